import type { Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CatalogClient, type CatalogError, type ReviewsPage } from '../../src/catalog/index.js';
import { POLL_JOB } from '../../src/queue/names.js';
import { createPollWorker, type PollJobResult, pollJobOptions } from '../../src/queue/poll-worker.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { getApp } from '../../src/store/apps.js';
import { reviewsOf } from '../../src/store/reviews.js';
import { captureLog, tempStore } from '../helpers/index.js';
import { pollQueueFixture, type QueueFixture } from '../helpers/queue.js';

const HANDLES = ['app-one', 'app-two', 'app-three'];
let sim: Simulator;
let store: ReturnType<typeof tempStore>;
let fx: QueueFixture;
let worker: Worker<{ handle: string }, PollJobResult> | undefined;
let calls: Array<{ handle: string; at: number }>;
let client: CatalogClient;
let fatal: CatalogError[];

/** Records when each reviews request went out, to see the queue pause. */
class RecordingClient extends CatalogClient {
  override async reviews(handle: string, options: { page?: number } = {}): Promise<ReviewsPage> {
    calls.push({ handle, at: Date.now() });
    return super.reviews(handle, options);
  }
}

beforeAll(async () => {
  sim = await startSimulator({ appCount: 0, handles: HANDLES, maxReviewsPerApp: 15 });
});
afterAll(() => sim.close());
beforeEach(async () => {
  sim.controls.reset();
  store = tempStore();
  fx = await pollQueueFixture();
  calls = [];
  fatal = [];
  client = new RecordingClient({ baseUrl: sim.url, apiKey: 'k' });
});
afterEach(async () => {
  await worker?.close();
  worker = undefined;
  await fx.close();
  store.cleanup();
});

function startWorker(log = captureLog(), concurrency = 3) {
  worker = createPollWorker({
    connection: fx.redis,
    queue: fx.queue,
    prefix: fx.prefix,
    concurrency,
    maxRequestsPerSecond: 100,
    poll: { maxPages: 10, baselinePages: 5 },
    lowRatingMax: 2,
    deps: { client, store, logger: log.logger },
    logger: log.logger,
    onFatal: (err) => fatal.push(err),
    rateLimitBaseMs: 200,
  });
  void worker.run();
  return log;
}

async function pollAll(handles = HANDLES, attempts = 3): Promise<PollJobResult[]> {
  const jobs = await fx.queue.addBulk(
    handles.map((handle) => ({
      name: POLL_JOB,
      data: { handle },
      opts: { ...pollJobOptions({ attempts, backoffMs: 50 }) },
    })),
  );
  return Promise.all(jobs.map((job) => job.waitUntilFinished(fx.events, 15_000) as Promise<PollJobResult>));
}

describe('the poll worker', () => {
  it('polls through the queue and reports new low-rated reviews', async () => {
    startWorker();
    const baseline = await pollAll();
    expect(baseline.map((r) => r.status)).toEqual(['baseline', 'baseline', 'baseline']);
    sim.controls.addReviews('app-two', [{ rating: 1, review_content: 'Crashes on launch' }, { rating: 5 }]);
    const results = await pollAll();
    const two = results.find((r) => r.handle === 'app-two');
    expect(two).toMatchObject({ status: 'ok', newReviews: 2, requests: 1 });
    expect(two?.lowRated.map((r) => r.content)).toEqual(['Crashes on launch']);
  });

  it('pauses the whole queue for Retry-After on a 429, then loses nothing', async () => {
    // One poll at a time: a poll the worker had already taken when the 429 came back would go ahead,
    // and under load it may send its request well after the first one.
    startWorker(captureLog(), 1);
    await pollAll();
    for (const handle of HANDLES) sim.controls.addReviews(handle, 3);
    calls = [];
    sim.controls.failNext(1, { status: 429, retryAfterSec: 1 });
    const results = await pollAll();

    // Every app's three new reviews arrived, once.
    expect(results.map((r) => r.newReviews)).toEqual([3, 3, 3]);
    for (const handle of HANDLES)
      expect(reviewsOf(store.db, handle)).toHaveLength(sim.controls.reviews(handle).length);
    expect(sim.controls.stats().byStatus['429']).toBe(1);
    // After the 429 (the first call), no poll started until the Retry-After had passed: not the limited
    // one, and not the two waiting behind it.
    const first = calls[0]?.at ?? 0;
    const later = calls.slice(1);
    expect(later.map((c) => c.handle).sort()).toEqual([...HANDLES].sort());
    for (const call of later) expect(call.at - first).toBeGreaterThanOrEqual(900);
  });

  it('backs off exponentially without Retry-After, and retries 5xx without losing reviews', async () => {
    const log = startWorker();
    await pollAll(['app-one']);
    sim.controls.addReviews('app-one', 2);
    sim.controls.failNext(2, { status: 429 });
    sim.controls.failNext(1, { status: 503 });
    const [result] = await pollAll(['app-one']);
    expect(result?.newReviews).toBe(2);
    expect(log.text()).toMatch(/rate limit: pausing all polls/);
    expect(log.text()).toMatch(/will retry/);
  });

  it('stops without retrying when credits run out, records why, and raises it as fatal', async () => {
    sim.controls.setCredits(0);
    startWorker();
    await expect(pollAll(['app-one'], 5)).rejects.toThrow(/out of credits/);
    expect(calls).toHaveLength(1);
    expect(fatal).toHaveLength(1);
    expect(getApp(store.db, 'app-one')).toMatchObject({ lastPollStatus: 'failed' });
    expect(getApp(store.db, 'app-one')?.lastError).toMatch(/credits/);
  });

  it('records a poll that keeps failing as failed, with the reason', async () => {
    startWorker();
    sim.controls.failNext(10, { status: 500 });
    await expect(pollAll(['app-three'], 2)).rejects.toThrow(/HTTP 500/);
    expect(calls).toHaveLength(2);
    expect(getApp(store.db, 'app-three')?.lastError).toMatch(/HTTP 500/);
  });
});
