import { Job, type Queue } from 'bullmq';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { pollLockKey } from '../../src/queue/app-lock.js';
import { CATCH_UP_MS, latestSlot, slotOffset } from '../../src/queue/due-slots.js';
import {
  dueReconciles,
  enqueueDueReconciles,
  RECONCILE_DUE_JOB,
  RECONCILE_JOB,
  RECONCILE_SCHEDULER_ID,
  RECONCILE_TICK_MS,
  type ReconcileJobData,
  syncReconcileSchedulers,
} from '../../src/queue/reconcile-worker.js';
import { partsOf } from '../../src/root/worker.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { getApp } from '../../src/store/apps.js';
import { deliveries, pollRuns } from '../../src/store/schema.js';
import { loseEverything, waitFor } from '../helpers/index.js';
import { type Harness, startHarness } from '../helpers/runtime.js';
import { type FakeSlack, startFakeSlack } from '../helpers/slack.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('when each app reconciles', () => {
  it('is fixed by its handle and spread evenly over the period', () => {
    expect(slotOffset('my-app', DAY)).toBe(slotOffset('my-app', DAY));
    const perHour = new Array<number>(24).fill(0);
    for (let i = 0; i < 10_000; i++) {
      const offset = slotOffset(`app-${i}`, DAY);
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
    expect((slot - slotOffset('my-app', DAY)) % DAY).toBe(0);
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

/**
 * A handle whose daily reconciliation moment lies between `from` and `to` ms before `now`: the service's
 * own look for due apps (at start, and on demand below) runs on the real clock, so which apps it finds
 * due is set by the handles the test picks.
 */
function handleWithMoment(name: string, now: number, from: number, to: number): string {
  for (let i = 0; ; i++) {
    const handle = `${name}-${i}`;
    const ago = now - latestSlot(handle, DAY, now);
    if (ago >= from && ago < to) return handle;
  }
}

describe('the reconcile service', () => {
  const picked = Date.now();
  // Daily moments (the default poll.reconcileEvery). Two apps whose moments passed two to three hours
  // ago: past the hour of catch-up, so the service reconciles neither on its own, and due together at a
  // moment the test names. A third whose moment passed minutes ago: due for the next 25 minutes.
  const shopA = handleWithMoment('shop-a', picked, 2 * HOUR, 3 * HOUR);
  const shopB = handleWithMoment('shop-b', picked, 2 * HOUR, 3 * HOUR);
  const shopC = handleWithMoment('shop-c', picked, 5 * 60_000, 30 * 60_000);
  const dueAt = Math.max(latestSlot(shopA, DAY, picked), latestSlot(shopB, DAY, picked)) + 1_000;
  let sim: Simulator;
  let slack: FakeSlack;
  let harness: Harness;
  let queue: Queue<ReconcileJobData>;

  beforeAll(async () => {
    sim = await startSimulator({ appCount: 0, handles: [shopA, shopB, shopC], maxReviewsPerApp: 30 });
    // Not listed yet: the service's first poll of it finds nothing, so it has no baseline to compare with.
    sim.controls.delist(shopC);
    slack = await startFakeSlack();
    harness = await startHarness(
      {
        catalog: { baseUrl: sim.url, apiKey: 'k', maxRequestsPerSecond: 100 },
        // Hourly polls: after the first, none within the test reads what the reconciliations must find.
        poll: { every: '1h', baselinePages: 10, reconcilePages: 2 },
        apps: [shopA, shopB, shopC].map((handle) => ({ handle, notify: ['ops'] })),
        channels: { ops: { type: 'slack', webhookUrl: slack.url } },
        alerts: { ratingDrop: { minDrop: 5, displayed: false } },
      },
      {},
      { mode: 'service' },
    );
    const service = partsOf(harness.worker).reconcileQueue;
    if (!service) throw new Error('a service has a reconcile queue');
    queue = service;
    const { db } = harness.worker.store;
    // The service polls every app at once, and looks for due apps at once (finding none).
    await waitFor(
      () =>
        [shopA, shopB].every((h) => getApp(db, h)?.baselineAt != null) &&
        getApp(db, shopC)?.unavailableSince != null,
      15_000,
      () => 'the first polls',
    );
    await waitFor(
      async () => (await queue.getJobs(['completed'])).some((job) => job.name === RECONCILE_DUE_JOB),
      15_000,
      () => 'the first look for due apps',
    );
  });

  afterAll(async () => {
    await harness?.close();
    await slack?.close();
    await sim?.close();
  });

  const reconcileRuns = () =>
    harness.worker.store.db.select().from(pollRuns).where(eq(pollRuns.kind, 'reconcile')).all();
  const lookForDue = (at: number) =>
    enqueueDueReconciles(
      queue,
      { config: harness.worker.settings.config, store: harness.worker.store, logger: harness.log.logger },
      new Date(at),
    );
  /** Waits until the reconciliations enqueued for these apps and moments have finished. */
  const finished = (due: ReconcileJobData[]) =>
    waitFor(
      async () => {
        const jobs = await Promise.all(due.map((d) => Job.fromId(queue, `reconcile-${d.handle}-${d.slot}`)));
        const done = await Promise.all(jobs.map((job) => job?.isCompleted()));
        return done.every(Boolean);
      },
      15_000,
      () => `reconciliations of ${due.map((d) => d.handle).join(', ')}`,
    );

  it('reconciles each due app once per moment, in the worker, and raises what it finds', async () => {
    expect(reconcileRuns()).toEqual([]);
    sim.controls.addReviews(shopA, [{ rating: 5 }, { rating: 1, review_content: 'Missed by the polls' }]);
    const due = await lookForDue(dueAt);
    // The third app has no baseline yet.
    expect(due.map((d) => d.handle).sort()).toEqual([shopA, shopB]);
    await waitFor(
      () => reconcileRuns().length === 2,
      15_000,
      () => JSON.stringify(reconcileRuns()),
    );
    const runs = reconcileRuns();
    expect(runs.map((r) => r.status)).toEqual(['ok', 'ok']);
    // Two pages at most (poll.reconcilePages); fewer when the listing ends sooner.
    expect(runs.every((r) => r.requests >= 1 && r.requests <= 2)).toBe(true);
    expect(runs.find((r) => r.appHandle === shopA)?.newReviews).toBe(2);
    // The low review it found reaches the channel, in one message.
    await waitFor(() => slack.accepted().some((c) => JSON.stringify(c.body).includes('Missed by the polls')));
    const ids = harness.worker.store.db.select({ id: deliveries.id }).from(deliveries).all();
    await harness.settle(ids.map((d) => d.id));
    expect(slack.accepted()).toHaveLength(1);
    // SQLite knows they ran: looking again finds nothing due until their next moment, a day on.
    expect(await lookForDue(dueAt)).toEqual([]);
    const next = latestSlot(shopB, DAY, dueAt) + DAY + 1_000;
    const dueNext = await lookForDue(next);
    expect(dueNext).toContainEqual({ handle: shopB, slot: next - 1_000 });
    await finished(dueNext);
  });

  it("runs the scheduler's look for due apps as a job: an app reconciles once its baseline is stored", async () => {
    sim.controls.relist(shopC);
    const [baseline] = await harness.poll([shopC]);
    expect(baseline?.status).toBe('baseline');
    const tick = await queue.add(RECONCILE_DUE_JOB, { handle: '', slot: 0 });
    await waitFor(() => reconcileRuns().some((r) => r.appHandle === shopC));
    await waitFor(() => tick.isCompleted());
    expect(reconcileRuns().filter((r) => r.appHandle === shopC)).toHaveLength(1);
  });

  it('waits while the app is being polled, and reconciles once the poll is done', async () => {
    const { settings } = harness.worker;
    const { redis } = partsOf(harness.worker);
    const before = reconcileRuns().filter((r) => r.appHandle === shopA).length;
    // A poll of the app holds its lock (in this or another process).
    const lock = pollLockKey(settings.queuePrefix, shopA);
    await redis.set(lock, 'a-poll', 'PX', 60_000);
    const job = await queue.add(
      RECONCILE_JOB,
      { handle: shopA, slot: 1 },
      { jobId: 'reconcile-locked-test' },
    );
    await waitFor(
      async () => (await job.getState()) === 'delayed',
      15_000,
      () => 'the job put back to wait',
    );
    expect(reconcileRuns().filter((r) => r.appHandle === shopA)).toHaveLength(before);
    expect(await redis.get(lock)).toBe('a-poll');
    await redis.del(lock);
    await job.promote();
    // The run is in SQLite before BullMQ records the job as completed: wait for both.
    await waitFor(
      () => job.isCompleted(),
      15_000,
      () => 'the job completed',
    );
    expect(reconcileRuns().filter((r) => r.appHandle === shopA)).toHaveLength(before + 1);
  });

  it('has its scheduler put back by the upkeep after Redis lost it', async () => {
    const { settings } = harness.worker;
    const { redis } = partsOf(harness.worker);
    const schedulers = async () => (await queue.getJobSchedulers(0, -1)).map((s) => [s.key, s.every]);
    // The service put it in place; a second sync changes nothing.
    expect(await schedulers()).toEqual([[RECONCILE_SCHEDULER_ID, RECONCILE_TICK_MS]]);
    await syncReconcileSchedulers(queue);
    expect(await schedulers()).toEqual([[RECONCILE_SCHEDULER_ID, RECONCILE_TICK_MS]]);

    // Redis restarted empty: everything under the prefix is gone, and the connection comes back.
    expect(await loseEverything(redis, settings.queuePrefix)).toBeGreaterThan(0);
    redis.disconnect(true);
    await waitFor(
      async () => (await schedulers()).length > 0,
      15_000,
      () => harness.log.text(),
    );
    expect(await schedulers()).toEqual([[RECONCILE_SCHEDULER_ID, RECONCILE_TICK_MS]]);
    expect(harness.log.text()).toMatch(/Redis has lost reviewwatch's schedules/);
  });
});
