import { QueueEvents } from 'bullmq';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarketJobData } from '../../src/queue/market-worker.js';
import { enqueueMarketJobs, marketJobId } from '../../src/queue/market-worker.js';
import { partsOf } from '../../src/root/worker.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { categoryRow } from '../../src/store/market/categories.js';
import { developerRow } from '../../src/store/market/developers.js';
import { listingChangesSince } from '../../src/store/market/listings.js';
import { lastOkMarketRun } from '../../src/store/market/runs.js';
import { latestSnapshots, snapshotsSince, snapshotTimeline } from '../../src/store/market/snapshots.js';
import { alerts, categoryRanks, deliveries, marketRuns } from '../../src/store/schema.js';
import { snapshotCategory } from '../../src/watch/category-snapshot.js';
import { waitFor } from '../helpers/index.js';
import { type Harness, startHarness } from '../helpers/runtime.js';
import { type FakeSlack, startFakeSlack } from '../helpers/slack.js';

/**
 * The market watch end to end: `start`'s market worker on real Redis, the simulator over HTTP, SQLite,
 * and a Slack webhook that receives what the alerts say.
 */
const CATEGORY = 'store-design';
/** Ranks that barely wobble and never reshuffle by chance: every move below is the script's. */
const QUIET = { dailySd: 0.05, tickSd: 0, spikeChance: 0, reshufflePerDay: 0 };

let sim: Simulator;
let slack: FakeSlack;
let harness: Harness;
let events: QueueEvents;
let slot = Date.now();

beforeAll(async () => {
  slack = await startFakeSlack();
  sim = await startSimulator({
    appCount: 400,
    maxReviewsPerApp: 5,
    handles: ['my-app', 'rival-app'],
    market: {
      noise: QUIET,
      events: [
        { kind: 'place', handle: 'my-app', category: CATEGORY, rank: 5 },
        { kind: 'place', handle: 'rival-app', category: CATEGORY, rank: 15 },
        { kind: 'price', at: 0, handle: 'rival-app', plan: 'Pro', price: '$50/month' },
      ],
    },
  });
  harness = await startHarness(
    {
      catalog: { baseUrl: sim.url, apiKey: 'k', maxRequestsPerSecond: 200 },
      apps: [
        { handle: 'my-app', notify: ['slack'] },
        { handle: 'rival-app', role: 'competitor', notify: ['slack'] },
      ],
      channels: { slack: { type: 'slack', webhookUrl: slack.url } },
      categories: [{ handle: CATEGORY, pages: 2, notify: ['slack'] }],
      web: { publicUrl: 'https://reviews.example.com' },
    },
    {},
    { mode: 'service' },
  );
  const queue = partsOf(harness.worker).marketQueue;
  if (!queue) throw new Error('no market queue in service mode');
  events = new QueueEvents(queue.name, { connection: queue.opts.connection, prefix: queue.opts.prefix });
  await events.waitUntilReady();
  // At start every category and listing never read is read at once: the baselines.
  const { db } = harness.worker.store;
  await waitFor(
    () =>
      lastOkMarketRun(db, 'category', CATEGORY) !== undefined &&
      lastOkMarketRun(db, 'listing', 'rival-app') !== undefined &&
      lastOkMarketRun(db, 'listing', 'my-app') !== undefined,
    20_000,
    () => 'no baseline reads',
  );
}, 60_000);

afterAll(async () => {
  await events?.close();
  await harness?.close();
  await sim?.close();
  await slack?.close();
});

/** Runs one market job through the queue and the worker now, and waits for it. */
type Read = MarketJobData extends infer T ? (T extends MarketJobData ? Omit<T, 'slot'> : never) : never;

async function read(data: Read): Promise<unknown> {
  const queue = partsOf(harness.worker).marketQueue;
  if (!queue) throw new Error('no market queue');
  // A moment after every read so far: a job for a moment already read is skipped as done.
  slot = Math.max(slot + 1, Date.now());
  const job = { ...data, slot } as MarketJobData;
  await enqueueMarketJobs(queue, [job]);
  const added = await queue.getJob(marketJobId(job));
  if (!added) throw new Error('job not added');
  return added.waitUntilFinished(events, 20_000);
}

/** The statuses of a subject's market runs, oldest first. */
function runsOf(kind: 'developer' | 'listing', subject: string): string[] {
  return harness.worker.store.db
    .select({ status: marketRuns.status })
    .from(marketRuns)
    .where(and(eq(marketRuns.kind, kind), eq(marketRuns.subject, subject)))
    .orderBy(marketRuns.id)
    .all()
    .map((r) => r.status);
}

async function snapshot(): Promise<void> {
  sim.controls.advanceMarket(1);
  await read({ kind: 'snapshot', category: CATEGORY });
}

function alertsOf(kind: string) {
  return harness.worker.store.db
    .select()
    .from(alerts)
    .all()
    .filter((a) => a.kind === kind);
}

async function slackTexts(count: number): Promise<string[]> {
  const deliveryIds = harness.worker.store.db
    .select()
    .from(deliveries)
    .all()
    .map((d) => d.id);
  await harness.settle(deliveryIds);
  await waitFor(
    () => slack.accepted().length >= count,
    10_000,
    () => `${slack.accepted().length} messages`,
  );
  return slack.accepted().map((c) => JSON.stringify(c.body));
}

describe('category snapshots', () => {
  it('an own app falling eight places alerts once, saying why; a reshuffle is one message', {
    timeout: 60_000,
  }, async () => {
    for (let i = 0; i < 5; i++) await snapshot(); // six in all with the baseline: the app's level
    expect(alertsOf('rank')).toEqual([]);
    sim.controls.addMarketEvents([
      { kind: 'rank', at: sim.controls.marketTick() + 1, handle: 'my-app', places: 8 },
    ]);
    await snapshot(); // the fall's first snapshot: not yet persisted
    expect(alertsOf('rank')).toEqual([]);
    await snapshot(); // the second: it persists
    const [rank, ...more] = alertsOf('rank');
    expect(more).toEqual([]);
    const payload = rank?.payload as {
      move: { kind: string; from: number; to: number; reasons: Array<{ kind: string }> };
    };
    expect(payload.move).toMatchObject({ kind: 'fell', from: 5, to: 13 });
    expect(payload.move.reasons.map((r) => r.kind)).toContain('passed');
    await snapshot();
    expect(alertsOf('rank')).toHaveLength(1);

    // A marketplace-wide reorder: many apps move at once.
    const latest = latestSnapshots(harness.worker.store.db, [CATEGORY]).get(CATEGORY);
    const others = (latest?.apps ?? []).filter((a) => a.rank !== null && a.handle !== 'my-app').slice(0, 40);
    const at = sim.controls.marketTick() + 1;
    sim.controls.addMarketEvents(
      others.map((a, i) => ({ kind: 'rank', at, handle: a.handle, places: i % 2 === 0 ? 6 : -6 })),
    );
    await snapshot();
    await snapshot();
    expect(alertsOf('reshuffle')).toHaveLength(1);
    expect(alertsOf('rank')).toHaveLength(1);

    const texts = await slackTexts(2);
    const rankText = texts.find((t) => t.includes('fell from #5 to #13'));
    expect(rankText).toContain('Why it may have happened');
    expect(rankText).toContain('Passed by');
    expect(rankText).toContain('https://reviews.example.com/categories/store-design');
    expect(texts.filter((t) => t.includes('reshuffled'))).toHaveLength(1);
  });

  it('a failed page makes the whole snapshot a gap, never ranks of 0', async () => {
    const { db } = harness.worker.store;
    const deps = {
      client: partsOf(harness.worker).client,
      store: harness.worker.store,
      logger: harness.log.logger,
      config: harness.worker.settings.config,
    };
    const entry = { handle: CATEGORY, pages: 2, notify: [] };
    const ranked = () => db.select().from(categoryRanks).all().length;
    const before = ranked();
    sim.controls.failNext(2, { status: 503, pathIncludes: `/category/${CATEGORY}?page=2` });
    // An attempt that will be retried records only the requests it spent; the last one records the gap.
    await expect(snapshotCategory(deps, entry, { final: false })).rejects.toThrow(/503/);
    expect(snapshotTimeline(db, CATEGORY, new Date(0)).at(-1)?.status).toBe('ok');
    const outcome = await snapshotCategory(deps, entry, { final: true });
    expect(outcome).toMatchObject({ status: 'failed', requests: 2 });
    expect(snapshotTimeline(db, CATEGORY, new Date(0)).at(-1)?.status).toBe('failed');
    expect(ranked()).toBe(before);
    expect(snapshotsSince(db, CATEGORY, new Date(0)).every((s) => s.apps.length > 0)).toBe(true);
  });
});

describe('listings', () => {
  it("a competitor's price cut alerts its channels once, and not again on the next read", async () => {
    const { db } = harness.worker.store;
    sim.controls.advanceMarket(1);
    sim.controls.addMarketEvents([
      { kind: 'price', at: sim.controls.marketTick(), handle: 'rival-app', plan: 'Pro', price: '$25/month' },
    ]);
    await read({ kind: 'listing', handle: 'rival-app' });
    await read({ kind: 'listing', handle: 'rival-app' });
    const listing = alertsOf('listing').filter((a) => a.appHandle === 'rival-app');
    expect(listing).toHaveLength(1);
    const changes = (
      (listing[0]?.payload ?? {}) as { changes: Array<{ kind: string; from: string; to: string }> }
    ).changes;
    expect(changes).toEqual([
      expect.objectContaining({ kind: 'price-down', from: '$50/month', to: '$25/month' }),
    ]);
    // Stored with the listing's history, whatever alerted.
    expect(listingChangesSince(db, ['rival-app'], new Date(0)).map((c) => c.field)).toContain('pricing');
    const texts = await slackTexts(3);
    expect(texts.filter((t) => t.includes(': price down '))).toHaveLength(1);
  });
});

describe('a category the API does not know', () => {
  it('is marked unavailable and logged once, and cleared when it answers again', async () => {
    const { db } = harness.worker.store;
    sim.controls.failNext(2, { status: 404, pathIncludes: `/category/${CATEGORY}` });
    await read({ kind: 'snapshot', category: CATEGORY });
    await read({ kind: 'snapshot', category: CATEGORY });
    expect(categoryRow(db, CATEGORY)?.unavailableSince).toBeInstanceOf(Date);
    expect(
      snapshotTimeline(db, CATEGORY, new Date(0))
        .slice(-2)
        .map((s) => s.status),
    ).toEqual(['unavailable', 'unavailable']);
    const marked = () => harness.log.lines().filter((l) => /Marked unavailable/.test(l.msg));
    expect(marked()).toHaveLength(1);
    await read({ kind: 'snapshot', category: CATEGORY });
    expect(categoryRow(db, CATEGORY)?.unavailableSince).toBeNull();
    expect(harness.log.text()).toMatch(/category store-design answers again/);
    // The gaps alerted nothing: no rank alert beyond the one fall above.
    expect(alertsOf('rank')).toHaveLength(1);
  });
});

describe('a developer or a listing the API does not know', () => {
  it('counts the read as unavailable; a developer is marked and logged once, a listing left to the polls', async () => {
    const { db } = harness.worker.store;
    const gone = 'gone-developer';
    const marked = () =>
      harness.log.lines().filter((l) => /Marked unavailable/.test(l.msg) && l.developer === gone);
    sim.controls.failNext(2, { status: 404, pathIncludes: `/developer/${gone}` });
    await read({ kind: 'developer', developer: gone, via: 'rival-app' });
    await read({ kind: 'developer', developer: gone, via: 'rival-app' });
    expect(developerRow(db, gone)?.unavailableSince).toBeInstanceOf(Date);
    expect(marked()).toHaveLength(1);
    expect(runsOf('developer', gone)).toEqual(['unavailable', 'unavailable']);

    sim.controls.failNext(1, { status: 404, pathIncludes: '/app/rival-app' });
    await read({ kind: 'listing', handle: 'rival-app' });
    expect(runsOf('listing', 'rival-app').at(-1)).toBe('unavailable');
    expect(
      harness.log.lines().filter((l) => /Marked unavailable/.test(l.msg) && l.app === 'rival-app'),
    ).toEqual([]);
  });
});

describe('listing.ignore', () => {
  let other: Harness;
  let otherEvents: QueueEvents;
  beforeAll(async () => {
    other = await startHarness(
      {
        catalog: { baseUrl: sim.url, apiKey: 'k', maxRequestsPerSecond: 200 },
        apps: [{ handle: 'rival-app', role: 'competitor', notify: ['slack'] }],
        channels: { slack: { type: 'slack', webhookUrl: slack.url } },
        listing: { ignore: ['pricing'] },
      },
      {},
      { mode: 'service' },
    );
    const queue = partsOf(other.worker).marketQueue;
    if (!queue) throw new Error('no market queue');
    otherEvents = new QueueEvents(queue.name, {
      connection: queue.opts.connection,
      prefix: queue.opts.prefix,
    });
    await otherEvents.waitUntilReady();
    await waitFor(() => lastOkMarketRun(other.worker.store.db, 'listing', 'rival-app') !== undefined);
  });
  afterAll(async () => {
    await otherEvents?.close();
    await other?.close();
  });

  it('stores the changes of an ignored field and never alerts them', async () => {
    sim.controls.advanceMarket(1);
    sim.controls.addMarketEvents([
      { kind: 'price', at: sim.controls.marketTick(), handle: 'rival-app', plan: 'Pro', price: '$5/month' },
    ]);
    const queue = partsOf(other.worker).marketQueue;
    if (!queue) throw new Error('no market queue');
    const job = { kind: 'listing' as const, handle: 'rival-app', slot: Date.now() + 1 };
    await enqueueMarketJobs(queue, [job]);
    await (await queue.getJob(marketJobId(job)))?.waitUntilFinished(otherEvents, 20_000);
    const { db } = other.worker.store;
    const stored = listingChangesSince(db, ['rival-app'], new Date(0));
    expect(stored.find((c) => (c.change as { kind: string }).kind === 'price-down')).toMatchObject({
      alerted: false,
    });
    expect(db.select().from(alerts).all()).toEqual([]);
  });
});
