import { count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CatalogClient } from '../../src/catalog/index.js';
import { Metrics } from '../../src/ops/metrics.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { openStore } from '../../src/store/db.js';
import { openGaps } from '../../src/store/gaps.js';
import { reviews } from '../../src/store/schema.js';
import { appStatuses } from '../../src/store/status.js';
import { type PollDeps, type PollOptions, pollApp } from '../../src/watch/poll.js';
import { reconcileApp } from '../../src/watch/reconcile.js';
import { captureLog, tempStore } from '../helpers/index.js';

const OPTIONS: PollOptions = { maxPages: 10, baselinePages: 3 };
const DAY = 86_400_000;
let sim: Simulator;
let store: ReturnType<typeof tempStore>;
let client: CatalogClient;
let log: ReturnType<typeof captureLog>;

beforeAll(async () => {
  sim = await startSimulator({ appCount: 0, handles: [] });
});
afterAll(() => sim.close());
beforeEach(async () => {
  sim.controls.reset();
  sim.controls.addApp('busy-app', { reviewCount: 30 });
  store = tempStore();
  client = new CatalogClient({ baseUrl: sim.url, apiKey: 'k' });
  log = captureLog();
  await poll(); // the baseline
});
afterEach(() => store.cleanup());

const poll = (deps: Partial<PollDeps> = {}, options = OPTIONS) =>
  pollApp({ client, store, logger: log.logger, ...deps }, 'busy-app', options);

function requests(): number {
  return sim.controls.stats().byEndpoint.reviews ?? 0;
}

function storedIds(): Set<string> {
  return new Set(
    store.db
      .select({ id: reviews.reviewId })
      .from(reviews)
      .where(eq(reviews.appHandle, 'busy-app'))
      .all()
      .map((r) => r.id),
  );
}

/** Every review the listing shows is stored. */
function expectNothingMissing(): void {
  const stored = storedIds();
  const missing = sim.controls.reviews('busy-app').filter((r) => !stored.has(r.review_id));
  expect(missing.map((r) => r.review_id)).toEqual([]);
}

describe('a burst larger than poll.maxPages', () => {
  it('is read to its end by the following polls, page 1 first, each review once', async () => {
    sim.controls.addReviews('busy-app', 125);
    sim.controls.resetStats();
    const first = await poll();
    expect(first).toMatchObject({ capped: true, requests: 10, gap: { state: 'opened', unread: 25 } });
    expect(first.newReviews).toHaveLength(100);
    expect(openGaps(store.db)).toMatchObject([{ handle: 'busy-app', unread: 25 }]);
    expect(log.text()).toMatch(/about 25 older reviews are unread; the next polls read on/);

    const second = await poll();
    // Page 1 (unchanged), then pages 11 to 13, the last holding reviews stored before the burst.
    expect(second).toMatchObject({ capped: false, requests: 4, gap: { state: 'closed', unread: 0 } });
    expect(second.newReviews).toHaveLength(25);
    expect(requests()).toBe(14); // ⌈125 / 10⌉ + 1 (page 1 again)
    expect(openGaps(store.db)).toEqual([]);
    expectNothingMissing();
    const stored = store.db
      .select({ n: count() })
      .from(reviews)
      .where(eq(reviews.appHandle, 'busy-app'))
      .get();
    expect(stored?.n).toBe(30 + 125);

    // Closed: back to one request per quiet poll.
    const quiet = await poll();
    expect(quiet).toMatchObject({ requests: 1, newReviews: [] });
    expect(quiet.gap).toBeUndefined();
  });

  it('is read on past reviews that arrive meanwhile, which push it down', async () => {
    sim.controls.addReviews('busy-app', 125);
    await poll();
    sim.controls.addReviews('busy-app', 7);
    const second = await poll();
    expect(second.newReviews).toHaveLength(7 + 25);
    expect(second.gap?.state).toBe('closed');
    expectNothingMissing();
  });

  it('takes as many polls as it needs, each within the cap, and reports what is left', async () => {
    sim.controls.addReviews('busy-app', 450);
    const unread: Array<number | null> = [];
    let polls = 0;
    for (;;) {
      const outcome = await poll({}, { ...OPTIONS, maxPages: 5 });
      polls++;
      expect(outcome.requests).toBeLessThanOrEqual(5);
      if (outcome.gap?.state === 'closed') break;
      unread.push(outcome.gap?.unread ?? null);
      if (polls > 20) throw new Error('the gap never closed');
    }
    // 50 read by the first poll, then 40 a poll (page 1 and four of the gap's); the last confirms its end.
    expect(unread).toEqual([400, 360, 320, 280, 240, 200, 160, 120, 80, 40, 0]);
    expectNothingMissing();
  });

  it('reads the page before when reviews above were removed and the unread part moved up', async () => {
    sim.controls.addReviews('busy-app', 125);
    await poll();
    // Three new on top, five archived from what was read: the unread part starts two places higher than
    // the three new reviews alone say.
    const read = sim.controls.reviews('busy-app').slice(20, 25);
    for (const review of read) sim.controls.archiveReview('busy-app', review.review_id);
    sim.controls.addReviews('busy-app', 3);
    const second = await poll();
    expect(second.gap?.state).toBe('closed');
    expectNothingMissing();
  });

  it('survives a restart: the gap lives in SQLite', async () => {
    sim.controls.addReviews('busy-app', 125);
    await poll();
    // A new process: its own connection to the file, nothing carried over in memory.
    const restarted = openStore(store.path);
    try {
      const next = await pollApp({ client, store: restarted, logger: log.logger }, 'busy-app', OPTIONS);
      expect(next.gap?.state).toBe('closed');
      expect(next.newReviews).toHaveLength(25);
    } finally {
      restarted.close();
    }
    expectNothingMissing();
  });

  it('alerts on its reviews however many polls later they are read: judged against the poll before it', async () => {
    // The last poll before the burst was a week ago (the worker was stopped); the burst is dated since.
    const weekAgo = Date.now() - 7 * DAY;
    store.close();
    store.cleanup();
    store = tempStore();
    // Newest first is by date: what the listing held then is older than the burst.
    for (const review of sim.controls.reviews('busy-app')) {
      if (Date.parse(review.review_created_date) >= weekAgo)
        sim.controls.archiveReview('busy-app', review.review_id);
    }
    await poll({ now: () => new Date(weekAgo) });
    const dated = Array.from({ length: 125 }, (_, i) => ({
      review_created_date: new Date(Date.now() - Math.floor(i / 25) * DAY).toISOString(),
    }));
    sim.controls.addReviews('busy-app', dated);
    await poll();
    const later = await poll({ now: () => new Date(Date.now() + DAY) });
    expect(later.newReviews).toHaveLength(25);
    // The oldest are four days old, more than two days before the poll that opened the gap.
    expect(later.newReviews.filter((r) => r.fromBaseline)).toEqual([]);
  });

  it('is shown by status and /metrics while open, and gone once read', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.watchGaps(() => openGaps(store.db));
    sim.controls.addReviews('busy-app', 125);
    await poll();
    expect(appStatuses(store.db, ['busy-app'])[0]?.gap).toMatchObject({ unread: 25 });
    expect(await metrics.metrics()).toMatch(
      /reviewwatch_poll_gaps_open 1\n[\s\S]*reviewwatch_poll_gap_unread_reviews\{app="busy-app"\} 25\n/,
    );
    await poll();
    expect(appStatuses(store.db, ['busy-app'])[0]?.gap).toBeNull();
    expect(await metrics.metrics()).toMatch(/reviewwatch_poll_gaps_open 0\n/);
    expect(await metrics.metrics()).not.toMatch(/reviewwatch_poll_gap_unread_reviews\{/);
  });

  it('is read to its end by a reconciliation, however deep', async () => {
    sim.controls.addReviews('busy-app', 125);
    await poll({}, { ...OPTIONS, maxPages: 2 });
    const outcome = await reconcileApp({ client, store, logger: log.logger }, 'busy-app', { pages: 5 });
    expect(outcome.gap).toMatchObject({ state: 'closed' });
    expect(openGaps(store.db)).toEqual([]);
    expectNothingMissing();
  });
});
