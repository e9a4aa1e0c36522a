import { describe, expect, it } from 'vitest';
import { appDetailSchema } from '../../src/catalog/schemas.js';
import { diffListings, normalizeListing } from '../../src/market/index.js';
import { changeHtml } from '../../src/web/pages/listing-changes.js';

/** A listing as the API sends it, read through the client's schema and normalised. */
function listing(fields: Record<string, unknown>) {
  return normalizeListing(
    appDetailSchema.parse({
      title: 'Bundles',
      description: '<p>Bundles that sell.</p><p>Set up in minutes.</p>',
      pricing: 'Free plan available',
      pricings: [
        { name: 'Free', price: 'Free' },
        { name: 'Pro', price: '$19/month' },
        { name: 'Old', price: '$5/month' },
      ],
      categories: [{ name: 'Store design', url: 'https://apps.example/categories/store-design' }],
      languages: ['English'],
      worksWith: ['Checkout'],
      ...fields,
    }),
  );
}

const HOSTILE = '<img src=x onerror=alert(1)>';
/** A long description: 2,000 sentences, one of them changed. */
const LONG = Array.from({ length: 2_000 }, (_, i) => `Sentence number ${i} about bundles.`);

describe("an app's listing changes as field diffs", () => {
  const before = listing({ description: LONG.join(' ') });
  const after = listing({
    title: `Bundles ${HOSTILE}`,
    description: LONG.map((s, i) =>
      i === 1_000 ? 'A new claim <b>&lt;script&gt;alert(1)&lt;/script&gt;</b>.' : s,
    ).join(' '),
    pricings: [
      { name: 'Free', price: 'Free' },
      { name: 'Pro', price: '$29/month' },
      { name: `Team ${HOSTILE}`, price: '$99/month' },
    ],
    categories: [{ name: 'Marketing', url: 'https://apps.example/categories/marketing' }],
    languages: ['English', 'Deutsch'],
  });
  const rendered = diffListings(before, after).map((c) => [c.kind, changeHtml(c).text] as const);
  const of = (kind: string) => rendered.filter(([k]) => k === kind).map(([, text]) => text);

  it('says each field: title, plans in and out, prices up, sets added to and taken from', () => {
    expect(of('title')).toEqual([
      'Title: <del>Bundles</del> → <ins>Bundles &lt;img src=x onerror=alert(1)&gt;</ins>',
    ]);
    expect(of('plan-removed')).toEqual(['Plan removed: <strong>Old</strong> (was <del>$5/month</del>)']);
    expect(of('plan-added')).toEqual([
      'Plan added: <strong>Team &lt;img src=x onerror=alert(1)&gt;</strong> (<ins>$99/month</ins>)',
    ]);
    expect(of('price-up')).toEqual([
      '<strong>Pro</strong>: price up <del>$19/month</del> → <ins>$29/month</ins>',
    ]);
    expect(of('set')).toEqual([
      'Categories: added <ins>Marketing</ins>; removed <del>Store design</del>',
      'Languages: added <ins>Deutsch</ins>',
    ]);
  });

  it('shows only the sentences of a 50 KB description that changed, after the one before them', () => {
    const [description] = of('description');
    expect(description).toContain('<span class="context">…Sentence number 999 about bundles.</span>');
    expect(description).toContain('<del>Sentence number 1000 about bundles.</del>');
    // Markup is stripped from descriptions; what the text says, `<script>` included, is shown as text.
    expect(description).toContain('<ins>A new claim &lt;script&gt;alert(1)&lt;/script&gt;.</ins>');
    expect(description).not.toContain('Sentence number 1001');
    expect(description?.length).toBeLessThan(1_000);
  });

  it('never lets marketplace text become markup', () => {
    for (const [, text] of rendered) expect(text).not.toMatch(/<img|<b>|<script/);
  });
});
