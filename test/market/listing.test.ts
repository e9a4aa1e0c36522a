import { describe, expect, it } from 'vitest';
import { appDetailSchema } from '../../src/catalog/schemas.js';
import {
  diffListings,
  diffSentences,
  type ListingChange,
  listingHash,
  normalizeDescription,
  normalizeListing,
  sentencesOf,
} from '../../src/market/index.js';

function detail(overrides: Record<string, unknown> = {}) {
  return appDetailSchema.parse({
    title: 'Rival Reviews',
    description: '<p>Collect reviews.</p><p>Show them <b>everywhere</b>.</p>',
    logo: 'https://cdn.example/logo.png',
    rating: '4.6',
    reviewCount: 120,
    developer: { name: 'Rival Labs', address: 'x', url: 'https://apps.example/partners/rival' },
    languages: ['English', 'French'],
    categories: [{ name: 'Store design', url: 'https://apps.example/categories/store-design' }],
    worksWith: ['Checkout'],
    pricing: 'Free plan available',
    pricings: [
      { name: 'Free', price: 'Free', description: '', features: ['50 reviews'] },
      { name: 'Pro', price: '$19.99/month', description: '', features: ['Unlimited reviews', 'Widgets'] },
    ],
    launchedDate: 'March 3, 2021',
    ...overrides,
  });
}

const kinds = (changes: ListingChange[]) => changes.map((c) => [c.field, c.kind, c.alerts]);

describe('listing diff', () => {
  it('sees no change in reordering, whitespace, markup, case of set members, rating or review count', () => {
    const a = normalizeListing(detail());
    const b = normalizeListing(
      detail({
        description: 'Collect   reviews.\n\nShow them **everywhere**.',
        rating: '4.7',
        reviewCount: 130,
        logo: 'https://cdn.example/logo.png?v=2',
        languages: ['french', ' English '],
        pricings: [
          { name: 'Pro ', price: '$19.99/month', features: ['Widgets', 'Unlimited reviews'] },
          { name: 'free', price: 'Free', features: ['50 reviews'] },
        ],
      }),
    );
    expect(diffListings(a, b)).toEqual([]);
    expect(listingHash(a)).toBe(listingHash(b));
  });

  it('keys plans by name: a cut, a new plan, a removed plan; the hash moves', () => {
    const a = normalizeListing(detail());
    const b = normalizeListing(
      detail({
        pricing: 'From $14.99/month',
        pricings: [
          { name: 'Pro', price: '$14.99/month', features: ['Unlimited reviews', 'Widgets'] },
          { name: 'Plus', price: '$49/month', features: [] },
        ],
      }),
    );
    const changes = diffListings(a, b);
    expect(kinds(changes)).toEqual([
      ['pricing', 'pricing-summary', false],
      ['pricing', 'plan-removed', true],
      ['pricing', 'plan-added', true],
      ['pricing', 'price-down', true],
    ]);
    expect(changes.find((c) => c.kind === 'price-down')).toMatchObject({
      plan: 'Pro',
      from: '$19.99/month',
      to: '$14.99/month',
    });
    expect(listingHash(a)).not.toBe(listingHash(b));
  });

  it('records a one-cent change without alerting, and compares unparsed prices as text', () => {
    const a = normalizeListing(
      detail({
        pricings: [
          { name: 'Pro', price: '$19.99/month' },
          { name: 'Big', price: 'Contact us' },
        ],
      }),
    );
    const b = normalizeListing(
      detail({
        pricings: [
          { name: 'Pro', price: '$20/month' },
          { name: 'Big', price: 'Ask sales' },
        ],
      }),
    );
    expect(diffListings(a, b)).toEqual([
      {
        field: 'pricing',
        alerts: true,
        kind: 'price-changed',
        plan: 'Big',
        from: 'Contact us',
        to: 'Ask sales',
      },
      {
        field: 'pricing',
        alerts: false,
        kind: 'price-up',
        plan: 'Pro',
        from: '$19.99/month',
        to: '$20/month',
        minor: true,
      },
    ]);
  });

  it('diffs sets as added and removed, the title exactly, features per plan', () => {
    const a = normalizeListing(detail());
    const b = normalizeListing(
      detail({
        title: 'Rival reviews',
        categories: ['Marketing and conversion', { name: 'Store design', url: '' }],
        languages: ['English'],
        worksWith: ['Checkout', 'Point of Sale'],
        pricings: [
          { name: 'Free', price: 'Free', features: ['50 reviews'] },
          { name: 'Pro', price: '$19.99/month', features: ['Unlimited reviews', 'AI replies'] },
        ],
      }),
    );
    expect(diffListings(a, b)).toEqual([
      { field: 'title', alerts: false, kind: 'title', from: 'Rival Reviews', to: 'Rival reviews' },
      {
        field: 'features',
        alerts: false,
        kind: 'plan-features',
        plan: 'Pro',
        added: ['AI replies'],
        removed: ['Widgets'],
      },
      { field: 'categories', alerts: true, kind: 'set', added: ['Marketing and conversion'], removed: [] },
      { field: 'languages', alerts: false, kind: 'set', added: [], removed: ['French'] },
      { field: 'worksWith', alerts: false, kind: 'set', added: ['Point of Sale'], removed: [] },
    ]);
  });

  it('listing.ignore keeps the change and silences its alert', () => {
    const a = normalizeListing(detail());
    const b = normalizeListing(detail({ pricings: [{ name: 'Pro', price: '$9/month' }], categories: [] }));
    const changes = diffListings(a, b, { ignore: ['pricing'] });
    expect(changes.filter((c) => c.field === 'pricing').every((c) => !c.alerts)).toBe(true);
    expect(changes.filter((c) => c.field === 'pricing').map((c) => c.kind)).toEqual([
      'plan-removed',
      'price-down',
    ]);
    expect(changes.find((c) => c.field === 'categories')?.alerts).toBe(true);
  });

  it('keeps hostile plan names and titles as text, two plans of one name as two plans', () => {
    const a = normalizeListing(
      detail({
        title: '<!channel> <script>x</script>',
        pricings: [
          { name: '<b>Pro</b> & *more*', price: '$10/month' },
          { name: '<b>Pro</b> & *more*', price: '$20/month' },
        ],
      }),
    );
    expect(a.title).toBe('<!channel> <script>x</script>');
    expect(a.plans.map((p) => [p.name, p.price])).toEqual([
      ['<b>Pro</b> & *more*', '$10/month'],
      ['<b>Pro</b> & *more*', '$20/month'],
    ]);
  });
});

describe('descriptions', () => {
  it('normalises markup, entities and whitespace away', () => {
    expect(
      normalizeDescription(
        '<h2>Why us</h2><ul><li>Fast &amp; <em>simple</em></li><li>Free&nbsp;setup</li></ul>',
      ),
    ).toBe('Why us\nFast & simple\nFree setup');
    expect(normalizeDescription('## Why us\n\n- Fast & _simple_\n*   Free   setup\n\n\n')).toBe(
      'Why us\nFast & simple\nFree setup',
    );
    expect(normalizeDescription('Rating < 3 is rare & 5 > 4')).toBe('Rating < 3 is rare & 5 > 4');
  });

  it('shows only the sentences that changed, with one of context', () => {
    const before = sentencesOf('Collect reviews. Show them everywhere. Import from anywhere. Priced fairly.');
    const after = sentencesOf(
      'Collect reviews. Show them everywhere. Import from 20 platforms. Priced fairly.',
    );
    expect(diffSentences(before, after)).toEqual([
      {
        after: 'Show them everywhere.',
        removed: ['Import from anywhere.'],
        added: ['Import from 20 platforms.'],
      },
    ]);
    expect(diffSentences(before, before)).toEqual([]);
  });

  it('diffs 50 KB descriptions quickly and keeps the diff small', () => {
    const sentences = Array.from({ length: 900 }, (_, i) => `Feature number ${i} makes the store faster.`);
    const big = sentences.join(' ');
    expect(big.length).toBeGreaterThan(35_000);
    const edited = sentences.map((s, i) => (i === 450 ? 'A brand new sentence.' : s));
    const t = performance.now();
    const hunks = diffSentences(
      sentencesOf(normalizeDescription(`<p>${big}</p>`)),
      sentencesOf(normalizeDescription(edited.join('  '))),
    );
    expect(performance.now() - t).toBeLessThan(2_000);
    expect(hunks).toEqual([
      {
        after: 'Feature number 449 makes the store faster.',
        removed: ['Feature number 450 makes the store faster.'],
        added: ['A brand new sentence.'],
      },
    ]);
  });

  it('stays linear on hostile text: 50 KB of unclosed tags and unmatched emphasis', () => {
    const hostile = `${'<a '.repeat(17_000)}${'**x '.repeat(5_000)}`;
    const t = performance.now();
    const text = normalizeDescription(hostile);
    expect(performance.now() - t).toBeLessThan(1_000);
    expect(text.startsWith('<a <a')).toBe(true);
  });
});
