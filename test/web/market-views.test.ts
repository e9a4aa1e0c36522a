import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  categoryView,
  listingTimeline,
  type MarketViewInput,
  marketOverview,
} from '../../src/web/market-views/index.js';
import {
  DAY,
  ENTRANT,
  GAP_DAYS,
  HOSTILE_PLAN,
  HOSTILE_TITLE,
  MARKET_CATEGORY,
  marketSimOptions,
  SAMPLE_DAYS,
  sampleDay,
  seedMarketSample,
  TEST_APPS,
} from '../fixtures/market-sample.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { tempStore } from '../helpers/index.js';
import { type MarketSeeder, startMarketSeeder } from '../helpers/market.js';

const NOW = Date.now();
const INPUT: MarketViewInput = {
  apps: [
    { handle: 'shop', name: 'Shop', role: 'own' },
    { handle: 'rival', role: 'competitor' },
  ],
  categories: [MARKET_CATEGORY, 'finances'],
  maxRating: 3,
};

let store: ReturnType<typeof tempStore>;
let seeder: MarketSeeder;

beforeAll(async () => {
  store = tempStore();
  seeder = await startMarketSeeder(store, marketSimOptions(TEST_APPS));
  await seedMarketSample(seeder, TEST_APPS, NOW);
  const reviews = new ReviewSeeder(store);
  reviews.review({ app: 'shop', rating: 1, createdAt: NOW - DAY });
  reviews.review({ app: 'shop', rating: 2, createdAt: NOW - 2 * DAY });
  reviews.review({ app: 'shop', rating: 5, createdAt: NOW - 2 * DAY });
  const snapshot = store.db.$client.prepare(
    `insert into rating_snapshots (app_handle, taken_at, average, count, poll_run_id) values ('shop', ?, ?, 100, 1)`,
  );
  snapshot.run(NOW - 10 * DAY, 4.6);
  snapshot.run(NOW - 8 * DAY, 4.5);
  snapshot.run(NOW - DAY, 4.38);
}, 60_000);

afterAll(async () => {
  await seeder.close();
  store.cleanup();
});

describe('marketOverview', () => {
  it("gives each watched app its rating and week's change, ranks and moves, open low reviews", () => {
    const overview = marketOverview(store.db, INPUT, new Date(NOW));
    expect(overview.apps.map((a) => [a.handle, a.name, a.role])).toEqual([
      ['shop', 'Shop', 'own'],
      ['rival', 'Rival & Co', 'competitor'],
    ]);
    const shop = overview.apps[0];
    expect(shop?.rating).toBe(4.38);
    expect(shop?.ratingChange).toBeCloseTo(-0.12, 5);
    expect(shop?.openLow).toBe(2);
    // Fell eight places on day 25, give or take the wobble and the entrant that passed it.
    const rank = shop?.ranks[0];
    expect(rank?.category).toBe(MARKET_CATEGORY);
    expect(rank?.move).toBeLessThanOrEqual(-5);
    expect(rank?.before?.at.getTime()).toBe(sampleDay(NOW, SAMPLE_DAYS - 8));
    // A tracked category never snapshotted is waiting, and ranks nobody.
    expect(overview.categories.map((c) => [c.handle, c.state])).toEqual([
      [MARKET_CATEGORY, 'ok'],
      ['finances', 'waiting'],
    ]);
    expect(shop?.ranks).toHaveLength(1);
  });

  it("says the competitor's last listing change, every change of that version", () => {
    const rival = marketOverview(store.db, INPUT, new Date(NOW)).apps[1];
    expect(rival?.lastChange?.changes.map((c) => c.text)).toEqual(['Title: "Rival" → "Rival & Co"']);
    expect(rival?.lastChange?.at.getTime()).toBe(sampleDay(NOW, 22));
  });
});

describe('categoryView', () => {
  it('follows own apps, competitors and leaders, one point per successful snapshot, gaps apart', () => {
    const view = categoryView(store.db, INPUT, MARKET_CATEGORY, { now: new Date(NOW) });
    expect(view?.snapshots).toBe(SAMPLE_DAYS - GAP_DAYS.length);
    expect(view?.gaps).toEqual([
      {
        from: new Date(sampleDay(NOW, 12)),
        to: new Date(sampleDay(NOW, 13)),
        snapshots: 2,
        status: 'failed',
      },
    ]);
    const roles = view?.series.map((s) => s.role);
    expect(roles?.slice(0, 2)).toEqual(['own', 'competitor']);
    expect(roles?.slice(2).every((r) => r === 'leader')).toBe(true);
    const shop = view?.series[0];
    expect(shop?.points).toHaveLength(SAMPLE_DAYS - GAP_DAYS.length);
    expect(shop?.points.every((p) => p.rank !== null && p.rank > 0)).toBe(true);
    expect(view?.top.map((t) => t.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('lists the new entrant with where it came in and where it is, and the exits it caused', () => {
    const view = categoryView(store.db, INPUT, MARKET_CATEGORY, { now: new Date(NOW) });
    const entrant = view?.entrants.find((e) => e.handle === ENTRANT);
    expect(entrant?.name).toBe(HOSTILE_TITLE);
    expect(entrant?.at.getTime()).toBe(sampleDay(NOW, 18));
    expect(entrant?.rank).toBeGreaterThan(30);
    expect(entrant?.rankNow).toBeLessThanOrEqual(10);
    // The first snapshot is the baseline: nothing in it is an entrant.
    expect(view?.entrants.every((e) => e.at.getTime() > sampleDay(NOW, 0))).toBe(true);
    for (const exit of view?.exits ?? []) expect(exit.lastRank).toBeGreaterThan(0);
    expect(view?.sponsored.now.length).toBeGreaterThan(0);
  });

  it('is undefined for a category neither tracked nor ever snapshotted; a shorter span has fewer points', () => {
    expect(categoryView(store.db, INPUT, 'productivity', { now: new Date(NOW) })).toBeUndefined();
    expect(categoryView(store.db, INPUT, 'finances', { now: new Date(NOW) })?.series[0]?.points).toEqual([]);
    const week = categoryView(store.db, INPUT, MARKET_CATEGORY, { now: new Date(NOW), days: 7 });
    expect(week?.snapshots).toBe(7);
    expect(week?.gaps).toEqual([]);
  });
});

describe('listingTimeline', () => {
  it('pages through an app’s changes by version, newest first, each version in the diff’s order', () => {
    const first = listingTimeline(store.db, 'rival', { versions: 1 });
    expect(first.versions.map((v) => v.changes.map((c) => c.text))).toEqual([
      ['Title: "Rival" → "Rival & Co"'],
    ]);
    expect(first.versions[0]?.at.getTime()).toBe(sampleDay(NOW, 22));
    const second = listingTimeline(store.db, 'rival', { versions: 5, beforeVersion: first.next as number });
    expect(second.versions.map((v) => v.changes.map((c) => [c.text, c.tone]))).toEqual([
      [
        [`Plan added: "${HOSTILE_PLAN}" ($9/month)`, 'added'],
        ['"Growth": price down $29/month → $19/month', 'down'],
      ],
    ]);
    expect(second.next).toBeUndefined();
    expect(listingTimeline(store.db, 'shop', { versions: 5 })).toEqual({ versions: [], next: undefined });
  });
});
