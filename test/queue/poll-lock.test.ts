import { Queue, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { CatalogClient, type ReviewsPage } from '../../src/catalog/index.js';
import { formatPollLine } from '../../src/cli/format.js';
import { pollLockKey } from '../../src/queue/app-lock.js';
import { connectRedis } from '../../src/queue/connection.js';
import { POLL_JOB, POLL_QUEUE, type PollJobData } from '../../src/queue/names.js';
import { createPollWorker, type PollJobResult, pollJobOptions } from '../../src/queue/poll-worker.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { captureLog, REDIS_URL, tempStore, waitFor } from '../helpers/index.js';
import { pollQueueFixture, type QueueFixture } from '../helpers/queue.js';

let sim: Simulator;
let store: ReturnType<typeof tempStore>;
let fx: QueueFixture;
let other: { redis: Redis; queue: Queue<PollJobData> } | undefined;
let workers: Array<Worker<PollJobData, PollJobResult>>;
let gate: Gate;

/** Holds every reviews request until opened: a poll in flight stays in flight for as long as the test needs. */
class Gate {
  waiting = 0;
  requests = 0;
  private opened = false;
  private release: Array<() => void> = [];
  async pass(): Promise<void> {
    this.requests++;
    if (this.opened) return;
    this.waiting++;
    await new Promise<void>((resolve) => this.release.push(resolve));
    this.waiting--;
  }
  open(): void {
    this.opened = true;
    for (const resolve of this.release.splice(0)) resolve();
  }
}

class GatedClient extends CatalogClient {
  override async reviews(handle: string, options: { page?: number } = {}): Promise<ReviewsPage> {
    await gate.pass();
    return super.reviews(handle, options);
  }
}

beforeAll(async () => {
  sim = await startSimulator({ appCount: 0, handles: ['shop'], maxReviewsPerApp: 15 });
});
afterAll(() => sim.close());
beforeEach(async () => {
  sim.controls.reset();
  store = tempStore();
  fx = await pollQueueFixture();
  workers = [];
  gate = new Gate();
});
afterEach(async () => {
  gate.open();
  await Promise.all(workers.map((w) => w.close()));
  if (other) {
    await other.queue.close();
    await other.redis.quit();
    other = undefined;
  }
  await fx.close();
  store.cleanup();
});

/** A poll worker on its own Redis connection and Queue object, as another process would have. */
function startPollWorker(
  redis: Redis,
  queue: Queue<PollJobData>,
  log = captureLog(),
  pollLockTtlMs?: number,
) {
  const worker = createPollWorker({
    connection: redis,
    queue,
    prefix: fx.prefix,
    concurrency: 2,
    maxRequestsPerSecond: 100,
    poll: { maxPages: 10, baselinePages: 2 },
    lowRatingMax: 2,
    deps: { client: new GatedClient({ baseUrl: sim.url, apiKey: 'k' }), store, logger: log.logger },
    logger: log.logger,
    ...(pollLockTtlMs === undefined ? {} : { pollLockTtlMs }),
  });
  void worker.run();
  workers.push(worker);
  return log;
}

async function pollJob(handle = 'shop') {
  return fx.queue.add(POLL_JOB, { handle }, pollJobOptions({ attempts: 1, backoffMs: 50 }));
}

async function resultOf(job: Awaited<ReturnType<typeof pollJob>>): Promise<PollJobResult> {
  return (await job.waitUntilFinished(fx.events, 15_000)) as PollJobResult;
}

it('skips a poll of an app another process is still polling, logs it, and sends no request for it', async () => {
  const redis = await connectRedis(REDIS_URL);
  other = { redis, queue: new Queue<PollJobData>(POLL_QUEUE, { connection: redis, prefix: fx.prefix }) };
  const logA = startPollWorker(fx.redis, fx.queue);
  const logB = startPollWorker(other.redis, other.queue);

  const first = await pollJob();
  await waitFor(
    () => gate.waiting === 1,
    10_000,
    () => 'the first poll never sent its request',
  );
  // Whichever worker takes the second slot, the first poll still holds the app.
  const second = await resultOf(await pollJob());
  expect(second).toMatchObject({ handle: 'shop', status: 'skipped', requests: 0, deliveryIds: [] });
  expect(formatPollLine(second)).toBe('shop: skipped: another poll of it is still running');
  expect(gate.requests).toBe(1);
  const skips = [...logA.lines(), ...logB.lines()].filter((line) => /poll of shop skipped/.test(line.msg));
  expect(skips).toHaveLength(1);
  expect(skips[0]).toMatchObject({ app: 'shop', level: 40 });

  gate.open();
  expect(await resultOf(first)).toMatchObject({ handle: 'shop', status: 'baseline' });
  // Released when the poll ends, not left to expire: the next slot polls at once.
  expect(await fx.redis.exists(pollLockKey(fx.prefix, 'shop'))).toBe(0);
  expect(await resultOf(await pollJob())).toMatchObject({ status: 'ok', requests: 1 });
});

it('keeps the lock past its TTL while the poll runs, and lets a killed holder’s lock lapse', async () => {
  const ttlMs = 1_500;
  startPollWorker(fx.redis, fx.queue, captureLog(), ttlMs);
  const key = pollLockKey(fx.prefix, 'shop');

  const first = await pollJob();
  await waitFor(
    () => gate.waiting === 1,
    10_000,
    () => 'the first poll never sent its request',
  );
  const ttl = await fx.redis.pttl(key);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(ttlMs);
  // Refreshed while the poll is in flight: it outlives several TTLs.
  const since = Date.now();
  await waitFor(async () => {
    if (!(await fx.redis.exists(key))) throw new Error('the lock of a running poll lapsed');
    return Date.now() - since > 2 * ttlMs;
  }, 10_000);
  expect(await resultOf(await pollJob())).toMatchObject({ status: 'skipped' });
  gate.open();
  expect(await resultOf(first)).toMatchObject({ status: 'baseline' });

  // What a process killed mid-poll leaves: its lock, which nobody refreshes any more.
  await fx.redis.set(key, 'a-killed-process', 'PX', ttlMs);
  expect(await resultOf(await pollJob())).toMatchObject({ status: 'skipped' });
  // A skipped poll leaves another's lock alone.
  expect(await fx.redis.get(key)).toBe('a-killed-process');
  await waitFor(
    async () => (await fx.redis.exists(key)) === 0,
    10_000,
    () => 'the stale lock never lapsed',
  );
  expect(await resultOf(await pollJob())).toMatchObject({ status: 'ok' });
  expect(await fx.redis.exists(key)).toBe(0);
});
