import { eq } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxMessage } from '../../src/alerts/messages.js';
import { alertPolicyOf } from '../../src/alerts/policy.js';
import { CatalogClient } from '../../src/catalog/index.js';
import { type Config, parseConfig } from '../../src/config/index.js';
import { pollLockKey } from '../../src/queue/app-lock.js';
import { connectRedis, removePrefixedKeys } from '../../src/queue/connection.js';
import {
  CATCH_UP_MS,
  dueReconciles,
  enqueueDueReconciles,
  latestSlot,
  RECONCILE_DUE_JOB,
  RECONCILE_JOB,
  RECONCILE_SCHEDULER_ID,
  RECONCILE_TICK_MS,
  type ReconcileService,
  reconcileOffset,
  startReconcileService,
  syncReconcileSchedulers,
} from '../../src/queue/reconcile-worker.js';
import { startUpkeep } from '../../src/queue/upkeep.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { pollRuns } from '../../src/store/schema.js';
import { pollApp } from '../../src/watch/poll.js';
import { captureLog, REDIS_URL, tempStore, uniquePrefix, waitFor } from '../helpers/index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('when each app reconciles', () => {
  it('is fixed by its handle and spread evenly over the period', () => {
    expect(reconcileOffset('my-app', DAY)).toBe(reconcileOffset('my-app', DAY));
    const perHour = new Array<number>(24).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const offset = reconcileOffset(`app-${i}`, DAY);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(DAY);
      perHour[Math.floor(offset / HOUR)] = (perHour[Math.floor(offset / HOUR)] ?? 0) + 1;
    }
    // About 417 an hour; no hour holds more than a fifth above that.
    expect(Math.max(...perHour)).toBeLessThan(500);
    expect(Math.min(...perHour)).toBeGreaterThan(340);
  });

  it('is due once per moment, and only soon after it', () => {
    const now = Date.UTC(2026, 10, 20, 12);
    const slot = latestSlot('my-app', DAY, now);
    expect(slot).toBeLessThanOrEqual(now);
    expect(now - slot).toBeLessThan(DAY);
    expect((slot - reconcileOffset('my-app', DAY)) % DAY).toBe(0);
    const at = (t: number, last = new Map<string, number>()) => dueReconciles(['my-app'], last, DAY, t);
    expect(at(slot + 1_000)).toEqual([{ handle: 'my-app', slot }]);
    expect(at(slot - 1_000)).toEqual([]);
    // Started for this moment (or after it): not again until the next.
    expect(at(slot + 1_000, new Map([['my-app', slot + 500]]))).toEqual([]);
    expect(at(slot + 1_000, new Map([['my-app', slot - DAY + 500]]))).toEqual([{ handle: 'my-app', slot }]);
    // A moment missed by more than the catch-up window waits for the next one.
    expect(at(slot + CATCH_UP_MS + 1_000)).toEqual([]);
    expect(at(slot + DAY + 1_000)).toEqual([{ handle: 'my-app', slot: slot + DAY }]);
  });

  it('is configured by poll.reconcileEvery and poll.reconcilePages, with daily and 5 pages by default', () => {
    const defaults = parseConfig({ apps: [{ handle: 'a' }] });
    expect(defaults.poll).toMatchObject({ reconcileEvery: DAY, reconcilePages: 5 });
    expect(parseConfig({ apps: [{ handle: 'a' }], poll: { reconcileEvery: '6h' } }).poll.reconcileEvery).toBe(
      6 * HOUR,
    );
    expect(() => parseConfig({ apps: [{ handle: 'a' }], poll: { reconcileEvery: '5m' } })).toThrow(
      /poll.reconcileEvery: must be at least 1h/,
    );
  });
});

describe('the reconcile service', () => {
  const APPS = ['shop-a', 'shop-b', 'shop-c'];
  let sim: Simulator;
  let redis: Redis;
  let store: ReturnType<typeof tempStore>;
  let config: Config;
  let prefix: string;
  let service: ReconcileService | undefined;
  const log = captureLog();
  const messages: OutboxMessage[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ appCount: 0, handles: APPS, maxReviewsPerApp: 30 });
    redis = await connectRedis(REDIS_URL);
    store = tempStore();
    config = parseConfig({
      apps: APPS.map((handle) => ({ handle, notify: ['ops'] })),
      channels: { ops: { type: 'console' } },
      // Hourly: at any moment every app's latest moment is within the catch-up window, so all are due.
      poll: { reconcilePages: 2, reconcileEvery: '1h' },
      alerts: { ratingDrop: { minDrop: 5, displayed: false } },
    });
    const client = new CatalogClient({ baseUrl: sim.url, apiKey: 'k' });
    // Baselines for two of the three: the third has nothing to compare with yet.
    for (const handle of APPS.slice(0, 2)) {
      await pollApp({ client, store, logger: log.logger }, handle, { maxPages: 10, baselinePages: 10 });
    }
    prefix = uniquePrefix();
    service = startReconcileService(
      { config, store, client, logger: log.logger, alerts: alertPolicyOf(config) },
      {
        connection: redis,
        prefix,
        onMessages: async (raised) => {
          messages.push(...raised);
        },
      },
    );
  });

  afterEach(() => {
    messages.length = 0;
  });

  afterAll(async () => {
    await service?.close();
    await removePrefixedKeys(redis, prefix);
    await redis.quit();
    await sim.close();
    store.cleanup();
  });

  const reconcileRuns = () => store.db.select().from(pollRuns).where(eq(pollRuns.kind, 'reconcile')).all();

  it('reconciles each due app once per moment, in the worker, and raises what it finds', async () => {
    const queue = (service as ReconcileService).queue;
    const now = Date.now();
    sim.controls.addReviews('shop-a', [{ rating: 5 }, { rating: 1, review_content: 'Missed by the polls' }]);
    const due = await enqueueDueReconciles(queue, { config, store, logger: log.logger }, new Date(now));
    expect(due.map((d) => d.handle).sort()).toEqual(['shop-a', 'shop-b']);
    await waitFor(
      () => reconcileRuns().length === 2,
      15_000,
      () => JSON.stringify(reconcileRuns()),
    );
    const runs = reconcileRuns();
    expect(runs.map((r) => r.status)).toEqual(['ok', 'ok']);
    // Two pages at most (poll.reconcilePages); fewer when the listing ends sooner.
    expect(runs.every((r) => r.requests >= 1 && r.requests <= 2)).toBe(true);
    expect(runs.find((r) => r.appHandle === 'shop-a')?.newReviews).toBe(2);
    await waitFor(() => messages.length === 1);
    // SQLite knows they ran: looking again finds nothing due until their next moment, an hour on.
    const again = (t: number) =>
      enqueueDueReconciles(queue, { config, store, logger: log.logger }, new Date(t));
    expect(await again(now)).toEqual([]);
    const next = latestSlot('shop-b', HOUR, now) + HOUR + 1_000;
    expect(await again(next)).toContainEqual({ handle: 'shop-b', slot: next - 1_000 });
  });

  it("runs the scheduler's look for due apps as a job: an app reconciles once its baseline is stored", async () => {
    const queue = (service as ReconcileService).queue;
    const client = new CatalogClient({ baseUrl: sim.url, apiKey: 'k' });
    await pollApp({ client, store, logger: log.logger }, 'shop-c', { maxPages: 10, baselinePages: 10 });
    const tick = await queue.add(RECONCILE_DUE_JOB, { handle: '', slot: 0 });
    await waitFor(() => reconcileRuns().some((r) => r.appHandle === 'shop-c'));
    expect(await tick.isCompleted()).toBe(true);
    expect(reconcileRuns().filter((r) => r.appHandle === 'shop-c')).toHaveLength(1);
  });

  it('waits while the app is being polled, and reconciles once the poll is done', async () => {
    const queue = (service as ReconcileService).queue;
    const before = reconcileRuns().filter((r) => r.appHandle === 'shop-a').length;
    // A poll of shop-a holds its lock (in this or another process).
    const lock = pollLockKey(prefix, 'shop-a');
    await redis.set(lock, 'a-poll', 'PX', 60_000);
    const job = await queue.add(
      RECONCILE_JOB,
      { handle: 'shop-a', slot: 1 },
      { jobId: 'reconcile-locked-test' },
    );
    await waitFor(
      async () => (await job.getState()) === 'delayed',
      15_000,
      () => 'the job put back to wait',
    );
    expect(reconcileRuns().filter((r) => r.appHandle === 'shop-a')).toHaveLength(before);
    expect(await redis.get(lock)).toBe('a-poll');
    await redis.del(lock);
    await job.promote();
    // The run is in SQLite before BullMQ records the job as completed: wait for both.
    await waitFor(
      () => job.isCompleted(),
      15_000,
      () => 'the job completed',
    );
    expect(reconcileRuns().filter((r) => r.appHandle === 'shop-a')).toHaveLength(before + 1);
  });

  it('has its scheduler put back by the upkeep after Redis lost it', async () => {
    const queue = (service as ReconcileService).queue;
    await syncReconcileSchedulers(queue);
    const schedulers = async () => (await queue.getJobSchedulers(0, -1)).map((s) => [s.key, s.every]);
    expect(await schedulers()).toEqual([[RECONCILE_SCHEDULER_ID, RECONCILE_TICK_MS]]);
    // Idempotent: a second sync changes nothing.
    await syncReconcileSchedulers(queue);
    expect(await schedulers()).toHaveLength(1);

    const upkeep = await startUpkeep({
      redis,
      prefix,
      everyMs: 60_000,
      logger: log.logger,
      reassert: () => syncReconcileSchedulers(queue),
    });
    try {
      await removePrefixedKeys(redis, prefix);
      expect(await schedulers()).toEqual([]);
      await upkeep.check();
      expect(await schedulers()).toEqual([[RECONCILE_SCHEDULER_ID, RECONCILE_TICK_MS]]);
    } finally {
      upkeep.stop();
    }
  });
});
