import { afterEach, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import type { CategorySnapshot, NormalizedListing } from '../../src/market/index.js';
import {
  insertListingChanges,
  latestListing,
  listingChangesSince,
  recordListing,
} from '../../src/store/market/listings.js';
import { insertMarketRun, lastMarketRuns } from '../../src/store/market/runs.js';
import { appsSeenIn, recordCategorySnapshot, snapshotTimeline } from '../../src/store/market/snapshots.js';
import { pruneDatabase, retentionPolicyOf } from '../../src/store/retention.js';
import { categoryRanks } from '../../src/store/schema.js';
import { tempStore } from '../helpers/index.js';

const DAY = 86_400_000;
const NOW = new Date(Date.UTC(2026, 5, 15, 12));
const stores: Array<ReturnType<typeof tempStore>> = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.cleanup();
});

function snapshotAt(at: number, apps: string[]): CategorySnapshot {
  return {
    category: 'cat',
    at,
    apps: apps.map((handle, i) => ({
      handle,
      name: handle,
      developer: 'd',
      rank: i + 1,
      page: 1,
      rating: 4.5,
      builtFor: null,
      sponsored: false,
    })),
    sponsored: [],
    depth: apps.length,
    duplicates: 0,
  };
}

const LISTING: NormalizedListing = {
  title: 'T',
  description: 'x'.repeat(50_000),
  pricing: 'Free',
  plans: [],
  categories: [],
  languages: [],
  worksWith: [],
  developer: 'd',
};

it('thins old category snapshots and listing versions like rating snapshots, keeping every change and the entrants', async () => {
  const store = tempStore();
  stores.push(store);
  const { db } = store;
  const config = parseConfig({ apps: [{ handle: 'my-app' }] }, {});
  // 100 days of snapshots every 6 h; the first of each day a gap.
  for (let t = NOW.getTime() - 100 * DAY; t < NOW.getTime(); t += 6 * 3_600_000) {
    const gap = new Date(t).getUTCHours() === 12;
    recordCategorySnapshot(db, {
      category: 'cat',
      takenAt: new Date(t),
      status: gap ? 'failed' : 'ok',
      requests: 2,
      ...(gap
        ? {}
        : { snapshot: snapshotAt(t, t < NOW.getTime() - 90 * DAY ? ['old-app', 'my-app'] : ['my-app']) }),
    });
    insertMarketRun(db, {
      kind: 'category',
      subject: 'cat',
      startedAt: new Date(t),
      finishedAt: new Date(t),
      status: 'ok',
      requests: 2,
    });
  }
  // A listing changing every day for 100 days, each change recorded.
  for (let d = 100; d >= 1; d--) {
    const at = new Date(NOW.getTime() - d * DAY);
    for (const hour of [0, 1]) {
      const when = new Date(at.getTime() + hour * 3_600_000);
      const { current } = recordListing(db, {
        handle: 'my-app',
        listing: { ...LISTING, title: `T${d}-${hour}` },
        hash: `h${d}-${hour}`,
        builtFor: null,
        rating: 4,
        at: when,
      });
      insertListingChanges(
        db,
        'my-app',
        current,
        [{ field: 'title', alerts: false, kind: 'title', from: 'a', to: 'b', alerted: false }],
        when,
      );
    }
  }
  const policy = retentionPolicyOf(config);
  const dry = await pruneDatabase(db, policy, NOW, { dryRun: true });
  expect(snapshotTimeline(db, 'cat', new Date(0))).toHaveLength(400);
  // Small batches and no time to hold the lock: the market's deletes take many short transactions, and
  // the event loop (the worker's polls) gets a turn after each.
  let turns = 0;
  let pruning = true;
  const count = () => {
    turns++;
    if (pruning) setImmediate(count);
  };
  setImmediate(count);
  const result = await pruneDatabase(db, policy, NOW, { batchRows: 7, maxLockMs: 0 });
  pruning = false;
  const { categorySnapshots, listingVersions, marketRuns } = result.counts;
  expect(turns).toBeGreaterThan((categorySnapshots + listingVersions + marketRuns) / 7);
  const market = ({ categorySnapshots, listingVersions, marketRuns }: typeof result.counts) => ({
    categorySnapshots,
    listingVersions,
    marketRuns,
  });
  // A dry run counts what the real one deletes.
  expect(market(dry.counts)).toEqual(market(result.counts));

  const timeline = snapshotTimeline(db, 'cat', new Date(0));
  const oldDays = timeline.filter((s) => s.takenAt.getTime() < NOW.getTime() - 61 * DAY);
  // One a day past the hourly tier, and the successful one of each day, never its gap.
  expect(oldDays.every((s) => s.status === 'ok')).toBe(true);
  const days = new Set(oldDays.map((s) => Math.floor(s.takenAt.getTime() / DAY)));
  expect(days.size).toBe(oldDays.length);
  expect(result.counts.categorySnapshots).toBeGreaterThan(100);
  // The ranks went with their snapshots; the apps ever seen stay: entrants are judged on them.
  const ranks = db.select().from(categoryRanks).all();
  expect(new Set(ranks.map((r) => r.snapshotId)).size).toBe(timeline.filter((s) => s.status === 'ok').length);
  expect([...appsSeenIn(db, 'cat').keys()].sort()).toEqual(['my-app', 'old-app']);
  // Listing versions thinned, the latest kept, and all 200 changes still there, on kept versions.
  expect(result.counts.listingVersions).toBeGreaterThan(30);
  expect(latestListing(db, 'my-app')?.listing.title).toBe('T1-1');
  expect(listingChangesSince(db, ['my-app'], new Date(0))).toHaveLength(200);
  // Old runs go; the latest of each subject stays (the schedule's "last done").
  expect(result.counts.marketRuns).toBeGreaterThan(300);
  expect(lastMarketRuns(db, 'category').get('cat')).toBeGreaterThan(NOW.getTime() - DAY);
});
