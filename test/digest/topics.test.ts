/**
 * The digest's "What reviewers talk about" section: collected from a real store (topics of the week
 * against the eight weeks before, emerging phrases with a quote, own apps against a competitor) and
 * rendered in the email's HTML and text and in Slack, escaped.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectDigest, previousWeek } from '../../src/digest/index.js';
import { renderDigestEmail, renderDigestSlack } from '../../src/render/index.js';
import { DEFAULT_SCORING_RULES } from '../../src/scoring/index.js';
import { appTopics } from '../../src/store/topic-summary.js';
import { sampleDigestData } from '../fixtures/digest-sample.js';
import { tempStore } from '../helpers/index.js';
import { storeReview } from '../helpers/reviews.js';
import { Seed, visibleText } from './seed.js';

const TZ = 'Europe/Berlin';
const NOW = new Date('2026-11-23T08:00:00Z');
const WEEK = previousWeek(NOW, TZ);
let store: ReturnType<typeof tempStore>;

beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

function seed() {
  const seed = new Seed(store.db).app('my-app', 'My App').app('rival', 'Rival <b>Co</b>');
  const at = (iso: string) => new Date(iso);
  // Eight weeks before: one review a week about setup, one about nothing, one low about the price.
  for (let week = 1; week <= 8; week++) {
    const day = new Date(Date.parse('2026-11-18T10:00:00Z') - week * 7 * 86_400_000);
    seed.review('my-app', { rating: 5, content: 'Setup was quick and easy', createdAt: day });
    seed.review('my-app', { rating: 4, content: 'Does what it says', createdAt: day });
    seed.review('my-app', { rating: 2, content: 'Too expensive for a small shop', createdAt: day });
  }
  // The week: a wave about a Klaviyo sync, by six merchants, and a review about setup.
  const wave = [
    'The Klaviyo sync stopped <b>working</b>',
    'Klaviyo sync broken since Monday',
    'Our Klaviyo sync lost every order',
    'Klaviyo sync fails every night',
    'No Klaviyo sync for three days now',
    'Klaviyo sync is dead, support silent',
  ];
  wave.forEach((content, i) => {
    seed.review('my-app', {
      rating: 1,
      content,
      reviewer: `Shop ${i}`,
      createdAt: at(`2026-11-1${7 + (i % 3)}T10:00:00Z`),
    });
  });
  seed.review('my-app', { rating: 5, content: 'Setup took a minute', createdAt: at('2026-11-19T10:00:00Z') });
  // The competitor: billing complaints.
  seed.review('rival', {
    rating: 2,
    content: 'Charged twice for one month',
    createdAt: at('2026-11-18T10:00:00Z'),
  });
  seed.review('rival', { rating: 4, content: 'Fine app', createdAt: at('2026-11-18T11:00:00Z') });
}

function collect() {
  return collectDigest(store.db, {
    apps: [
      { handle: 'my-app', name: 'My App', role: 'own' },
      { handle: 'rival', role: 'competitor' },
    ],
    period: WEEK,
    maxRating: 2,
    scoring: DEFAULT_SCORING_RULES,
    now: NOW,
  });
}

describe('the digest says what reviewers talk about', () => {
  it('collects the top topics with their arrows, an emerging phrase with a quote, and the comparison', () => {
    seed();
    const topics = collect().topics;
    const mine = topics?.apps.find((a) => a.handle === 'my-app');
    expect(mine?.reviews).toBe(7);
    expect(mine?.topics[0]).toMatchObject({ name: 'integrations', reviews: 6, direction: 'up' });
    expect(mine?.topics.find((t) => t.name === 'setup')?.direction).toBe('flat');
    expect(mine?.phrases[0]?.phrase).toMatch(/klaviyo/);
    expect(mine?.phrases[0]?.quote).toMatch(/Klaviyo sync/);
    const billing = topics?.versus.find((v) => v.topic === 'integrations');
    expect(billing?.apps.map((a) => a.share)).toEqual([6 / 7, 0]);
  });

  it('counts the topics stored with each review, as /topics does, without matching its text again', () => {
    seed();
    // Stored under a config's own topic (say by the backfill): its text alone matches no built-in topic.
    for (const day of ['2026-11-17T12:00:00Z', '2026-11-18T12:00:00Z']) {
      storeReview(store.db, {
        appHandle: 'my-app',
        rating: 3,
        content: 'The night theme hurts my eyes',
        createdAt: new Date(day),
        topics: [{ name: 'dark-mode', words: ['night theme'] }],
      });
    }
    const mine = collect().topics?.apps.find((a) => a.handle === 'my-app');
    const page = appTopics(store.db, 'my-app', { from: WEEK.start, to: WEEK.end });
    expect(mine?.topics.find((t) => t.name === 'dark-mode')?.reviews).toBe(2);
    expect(mine?.reviews).toBe(page.reviews);
    expect(mine?.topics.map((t) => [t.name, t.reviews])).toEqual(
      page.topics.slice(0, mine?.topics.length).map((t) => [t.topic, t.reviews]),
    );
  });

  it('is left out when no app had a review in the period', () => {
    expect(collect().topics).toBeNull();
  });

  it('renders in the email, html and text, and in Slack, escaped', () => {
    const data = sampleDigestData();
    const { html, text } = renderDigestEmail(data);
    expect(text).toContain('WHAT REVIEWERS TALK ABOUT');
    expect(text).toContain('billing 29% ▲ up 3x · integrations 14% ▲ new · support 12% →');
    expect(text).toContain(
      `emerging: 'klaviyo' (5 low reviews): "The <b>Klaviyo</b> sync stopped & lists are empty"`,
    );
    expect(text).toContain(
      "billing: 29% of Bundle Builder's reviews, 0% of Stock Sync's, 20% of ShopBundles Pro's",
    );
    const shown = visibleText(html);
    expect(shown).toContain('What reviewers talk about');
    expect(shown).toMatch(/billing 29%\s*▲ up 3x/);
    expect(html).toContain('The &lt;b&gt;Klaviyo&lt;/b&gt; sync stopped &amp; lists');
    expect(html).not.toContain('<b>Klaviyo</b>');
    const slack = JSON.stringify(renderDigestSlack(data).blocks);
    expect(slack).toContain('*What reviewers talk about*');
    expect(slack).toContain('billing 29% ▲ up 3x');
    expect(slack).toContain('The &lt;b&gt;Klaviyo&lt;/b&gt; sync stopped &amp; lists');
    expect(slack).toContain("20% of ShopBundles Pro's");
  });
});
