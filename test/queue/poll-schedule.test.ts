import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { collectStatus } from '../../src/cli/actions/status-report.js';
import { parseConfig } from '../../src/config/index.js';
import { connectRedis, removePrefixedKeys } from '../../src/queue/connection.js';
import { POLL_QUEUE, type PollJobData } from '../../src/queue/names.js';
import { PollSchedule } from '../../src/queue/poll-schedule.js';
import type { PollJobResult } from '../../src/queue/poll-worker.js';
import { withResources } from '../../src/root/resources.js';
import { partsOf, startWorker, type Worker } from '../../src/root/worker.js';
import { settingsOf } from '../../src/settings.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { lastPollTimes } from '../../src/store/apps.js';
import { runCli } from '../helpers/cli.js';
import { captureLog, loseEverything, REDIS_URL, tempDir, uniquePrefix, waitFor } from '../helpers/index.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A simulated marketplace with apps of very different paces: `busy` and `rival` get over ten reviews a
 * day, `steady` a few, `quiet` has three in its history. Their baselines store enough dated history to judge a pace.
 */
async function marketplace(): Promise<Simulator> {
  const sim = await startSimulator({ appCount: 0, apiKey: 'key' });
  cleanups.push(() => sim.close());
  sim.controls.addApp('busy', { reviewCount: 3000 });
  sim.controls.addApp('steady', { reviewCount: 300 });
  sim.controls.addApp('quiet', { reviewCount: 3 });
  sim.controls.addApp('rival', { reviewCount: 3000 });
  return sim;
}

interface Setup {
  sim: Simulator;
  databasePath: string;
  prefix: string;
  env: Record<string, string>;
  start(raw: Record<string, unknown>): Promise<{ worker: Worker; log: ReturnType<typeof captureLog> }>;
  /** Each app's scheduler as Redis holds it. */
  schedulers(): Promise<Record<string, { every: number | undefined; next: number | undefined }>>;
  /** The handles of the poll jobs waiting or delayed, one per scheduled poll. */
  queued(): Promise<string[]>;
  queue: Queue<PollJobData>;
  redis: Redis;
}

/**
 * An own app is never polled less often than poll.every unless its own maxEvery says so: these say so,
 * so that the quieter own apps show a schedule following their pace both ways.
 */
const APPS = [
  { handle: 'busy', maxEvery: '12h' },
  { handle: 'steady', maxEvery: '12h' },
  { handle: 'quiet', maxEvery: '12h' },
  { handle: 'rival', role: 'competitor' },
];
const HANDLES = APPS.map((app) => app.handle);

async function setUp(): Promise<Setup> {
  const sim = await marketplace();
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const databasePath = join(dir.dir, 'reviewwatch.db');
  const prefix = uniquePrefix();
  const env = { CATALOG_API_BASE_URL: sim.url, CATALOG_API_KEY: 'key' };
  const redis = await connectRedis(REDIS_URL);
  const queue = new Queue<PollJobData>(POLL_QUEUE, { connection: redis, prefix });
  cleanups.push(async () => {
    await queue.close();
    await removePrefixedKeys(redis, prefix);
    await redis.quit();
  });
  return {
    sim,
    databasePath,
    prefix,
    env,
    queue,
    redis,
    async start(raw) {
      const log = captureLog();
      const settings = settingsOf(parseConfig(fast(raw), env), { ...env, REDIS_URL }, 'test');
      const worker = await startWorker(
        { ...settings, databasePath, queuePrefix: prefix },
        // Not private: the schedulers must outlive the worker, as they do in Redis after a crash.
        { mode: 'service', logger: log.logger, stopGraceMs: 5_000 },
      );
      cleanups.push(() => worker.stop());
      return { worker, log };
    },
    async schedulers() {
      const list = await queue.getJobSchedulers(0, -1);
      return Object.fromEntries(
        list.map((s) => [s.key.replace(/^poll-/, ''), { every: s.every, next: s.next }]),
      );
    },
    async queued() {
      return (await queue.getJobs(['delayed', 'waiting', 'prioritized'])).map((j) => j.data.handle).sort();
    },
  };
}

/** Baselines of 10 pages (100 dated reviews, enough to judge a pace) without the default request spacing. */
function fast(raw: Record<string, unknown>): Record<string, unknown> {
  const poll = (raw.poll ?? {}) as Record<string, unknown>;
  const catalog = (raw.catalog ?? {}) as Record<string, unknown>;
  return {
    http: { port: 0 },
    ...raw,
    poll: { baselinePages: 10, ...poll },
    catalog: { maxRequestsPerSecond: 100, ...catalog },
  };
}

function baselineResult(handle: string): PollJobResult {
  return {
    handle,
    status: 'baseline',
    requests: 10,
    newReviews: 100,
    editedReviews: 0,
    capped: false,
    lowRated: [],
    deliveryIds: [],
  };
}

function adaptive(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { poll: { every: '15m', schedule: 'adaptive' }, apps: APPS, ...extra };
}

/** Waits until every app's baseline is stored, then plans as the worker does after baselines. */
async function baselined(worker: Worker, handles: string[]): Promise<void> {
  await waitFor(
    () => handles.every((h) => lastPollTimes(worker.store.db).has(h)),
    30_000,
    () => `baselines of ${handles.join(', ')}`,
  );
  await partsOf(worker).schedule?.sync();
}

describe('poll schedule on the worker', () => {
  it('adaptive: polls each app by its pace, in its job scheduler, and shows it in status and /metrics', async () => {
    const fx = await setUp();
    const { worker, log } = await fx.start(adaptive());
    // Cold: every app starts at poll.every, and is polled at once for its baseline.
    await baselined(worker, HANDLES);
    const after = await fx.schedulers();
    const every = (h: string) => after[h]?.every ?? Number.NaN;
    // The same mean delay as fixed's (15m), bought with fewer polls of the quieter apps.
    expect(every('busy')).toBeLessThan(15 * MINUTE);
    expect(every('steady')).toBeGreaterThan(15 * MINUTE);
    expect(every('quiet')).toBeGreaterThan(every('steady'));
    // The competitor weighs far less than an own app of the same pace.
    expect(every('rival')).toBeGreaterThan(5 * every('busy'));
    for (const h of HANDLES) {
      expect(every(h)).toBeGreaterThanOrEqual(2 * MINUTE);
      expect(every(h)).toBeLessThanOrEqual(12 * HOUR);
    }
    // One next poll per app (the cold interval's was replaced), due one new interval after its last poll.
    expect(await fx.queued()).toEqual([...HANDLES].sort());
    const polled = lastPollTimes(worker.store.db);
    const changed = HANDLES.filter((h) => every(h) !== 15 * MINUTE);
    expect(changed.length).toBeGreaterThanOrEqual(3);
    for (const h of changed) expect(after[h]?.next).toBe((polled.get(h) ?? 0) + every(h));
    for (const h of HANDLES) expect(after[h]?.next).toBeGreaterThan(Date.now());
    expect(log.text()).toMatch(/poll schedule \(adaptive\): 4 app\(s\) every/);

    const metrics = await partsOf(worker).metrics.metrics();
    expect(metrics).toContain(`reviewwatch_poll_interval_seconds{app="busy"} ${every('busy') / 1000}`);
    expect(metrics).toMatch(/reviewwatch_review_rate_per_day\{app="busy"\} \d/);
    expect(metrics).toMatch(/reviewwatch_poll_next_timestamp_seconds\{app="quiet"\} \d+/);
    expect(metrics).toMatch(/reviewwatch_schedule_projected_requests_per_day\{kind="total"\} \d/);

    const settings = {
      ...settingsOf(parseConfig(fast(adaptive()), fx.env), { ...fx.env, REDIS_URL }, 'test'),
      databasePath: fx.databasePath,
      queuePrefix: fx.prefix,
    };
    const report = await withResources(settings, (r) => collectStatus(r, Date.now()));
    const busy = report.apps.find((a) => a.handle === 'busy');
    expect(busy).toMatchObject({ intervalMs: every('busy'), scheduled: true });
    expect(busy?.ratePerDay).toBeGreaterThan(1);
    expect(report.schedule.policy).toBe('adaptive');
    expect(report.schedule.projected.total).toBeGreaterThan(0);
  });

  it('re-plans by itself soon after new apps are baselined', async () => {
    const fx = await setUp();
    const { worker, log } = await fx.start(adaptive());
    const schedule = new PollSchedule({
      queue: partsOf(worker).pollQueue,
      redis: partsOf(worker).redis,
      store: worker.store,
      config: worker.settings.config,
      retry: partsOf(worker).retry,
      logger: log.logger,
      replanGapMs: 100,
    });
    cleanups.push(() => schedule.stop());
    await schedule.sync();
    // The worker's scheduled polls baseline every app; this schedule hears of each baseline as the
    // worker's own does (whose next plan is up to a minute away).
    await waitFor(() => HANDLES.every((h) => lastPollTimes(worker.store.db).has(h)), 30_000);
    expect((await fx.schedulers()).quiet?.every).toBe(15 * MINUTE);
    for (const handle of HANDLES) {
      await schedule.pollFinished(handle, baselineResult(handle), Date.now());
    }
    await waitFor(
      async () => (await fx.schedulers()).quiet?.every !== 15 * MINUTE,
      10_000,
      () => 'a plan after the baselines',
    );
    expect(schedule.plan?.entries.find((e) => e.handle === 'quiet')?.reason).not.toBe('cold start');
  });

  it('tightens an own app to poll.minEvery when a poll finds more low reviews than its pace explains', async () => {
    const fx = await setUp();
    const { worker, log } = await fx.start(adaptive());
    await baselined(worker, HANDLES);
    expect((await fx.schedulers()).quiet?.every).toBeGreaterThan(15 * MINUTE);

    fx.sim.controls.addReviews('quiet', [{ rating: 1, review_content: 'Lost all my data' }]);
    const [polled] = await worker.pollNow(['quiet']);
    expect(polled?.result?.lowRated).toHaveLength(1);
    await waitFor(
      async () => (await fx.schedulers()).quiet?.every === 2 * MINUTE,
      10_000,
      () => 'quiet tightened',
    );
    const quiet = (await fx.schedulers()).quiet;
    expect(quiet?.next).toBeLessThanOrEqual(Date.now() + 2 * MINUTE);
    expect(await fx.queued()).toEqual([...HANDLES].sort());
    expect(log.text()).toMatch(
      /quiet: 1 new low review\(s\), more than its pace explains: polling it every 2m/,
    );
    // Kept in the store: a new plan (a restart's too) tightens quiet, and no app with only routine reviews.
    const plan = await partsOf(worker).schedule?.sync();
    expect(plan?.entries.filter((e) => e.reason === 'tightened').map((e) => e.handle)).toEqual(['quiet']);
  });

  it('keeps a tightening that lands while a plan is being made', async () => {
    const fx = await setUp();
    const { worker, log } = await fx.start(adaptive());
    await baselined(worker, HANDLES);
    const schedule = new PollSchedule({
      queue: partsOf(worker).pollQueue,
      redis: partsOf(worker).redis,
      store: worker.store,
      config: worker.settings.config,
      retry: partsOf(worker).retry,
      logger: log.logger,
    });
    cleanups.push(() => schedule.stop());
    await schedule.sync();
    expect((await fx.schedulers()).quiet?.every).toBeGreaterThan(15 * MINUTE);
    // In the same tick: a plan that rewrites every scheduler (as after Redis came back empty), made
    // before the incident is known, and a poll of quiet finding a low review. Interleaved, the plan
    // writes quiet's old interval back over the tightening.
    // Another process holds the sync lock a moment, so the plan waits after it was made: a tightening
    // not queued behind it lands in that gap, and the plan then writes over it.
    await fx.redis.set(`${fx.prefix}:poll:scheduler-sync-lock`, 'other', 'PX', 300);
    const startedAt = Date.now();
    const low = { ...baselineResult('quiet'), status: 'ok' as const, newReviews: 1 };
    low.lowRated = [{ reviewId: 'r1', rating: 1, reviewer: 'Ana', content: 'Crashes on open' }];
    await Promise.all([schedule.sync(), schedule.pollFinished('quiet', low, startedAt)]);
    const quiet = (await fx.schedulers()).quiet;
    expect(quiet?.every).toBe(2 * MINUTE);
    expect(quiet?.next).toBe(startedAt + 2 * MINUTE);
  });

  it('makes a plan asked for while another runs after it, not answered by the older one', async () => {
    const fx = await setUp();
    const { worker } = await fx.start(adaptive());
    await baselined(worker, HANDLES);
    const first = partsOf(worker).schedule?.sync();
    // Redis loses everything while that plan is being written; the upkeep asks for a new one.
    await loseEverything(fx.redis, fx.prefix);
    const second = partsOf(worker).schedule?.sync();
    await Promise.all([first, second]);
    expect(Object.keys(await fx.schedulers()).sort()).toEqual([...HANDLES].sort());
    expect(await fx.queued()).toEqual([...HANDLES].sort());
  });

  it('repairs what a partial loss leaves at the next plan: a stray poll, a scheduler without its next', async () => {
    const fx = await setUp();
    const { worker, log } = await fx.start(adaptive());
    await baselined(worker, HANDLES);
    const schedule = partsOf(worker).schedule;
    // A loss no FLUSHALL makes, but an evicting Redis can (docs/deployment.md asks for noeviction): the
    // delayed set goes, a plan writes every next poll again, then the schedulers go. Each app's next poll
    // from that plan is left standing one interval after the one the next plan makes, in the slot its
    // scheduler would take next: the app would be polled twice, then never again.
    const before = await fx.redis.keys(`${fx.prefix}:poll:*`);
    await fx.redis.del(`${fx.prefix}:poll:delayed`);
    await schedule?.sync();
    await fx.redis.del(...before.filter((key) => key !== `${fx.prefix}:poll:delayed`));
    await schedule?.sync({ repair: false });
    expect(await fx.queued()).toEqual([...HANDLES].sort());
    expect(log.text()).toContain('4 stray poll(s) removed');

    // Each next poll comes due and runs: each scheduler queues its next.
    const polledBefore = lastPollTimes(worker.store.db);
    for (const job of await fx.queue.getJobs(['delayed'])) await job.promote();
    await waitFor(
      async () => {
        const polled = lastPollTimes(worker.store.db);
        const running = await fx.queue.getJobCounts('waiting', 'active', 'prioritized');
        return (
          HANDLES.every((h) => (polled.get(h) ?? 0) > (polledBefore.get(h) ?? 0)) &&
          Object.values(running).every((n) => n === 0)
        );
      },
      30_000,
      () => 'the promoted polls',
    );
    expect(await fx.queued()).toEqual([...HANDLES].sort());

    // A scheduler that lost its next poll (evicted, or a worker killed between taking a poll and queuing
    // the next) gets one at the hourly plan, which otherwise rewrites only what changed.
    const [lost] = (await fx.queue.getJobs(['delayed'])).filter((j) => j.data.handle === 'steady');
    await fx.redis.zrem(`${fx.prefix}:poll:delayed`, String(lost?.id));
    await fx.redis.del(`${fx.prefix}:poll:${lost?.id}`);
    await schedule?.sync({ repair: false });
    expect(await fx.queued()).toEqual([...HANDLES].sort());
    expect(log.text()).toContain('1 without their next poll given one');
  });

  it('survives a kill and a Redis that lost everything with the adaptive intervals in force', async () => {
    const fx = await setUp();
    const first = await fx.start(adaptive());
    await baselined(first.worker, HANDLES);
    const planned = await fx.schedulers();
    await first.worker.kill();

    // A kill at the wrong moment can leave a scheduler without its next job; BullMQ refuses to remove a
    // scheduler's job, a crash loses it all the same.
    const [lost] = (await fx.queue.getJobs(['delayed'])).filter((j) => j.data.handle === 'busy');
    await fx.redis.zrem(`${fx.prefix}:poll:delayed`, String(lost?.id));
    await fx.redis.del(`${fx.prefix}:poll:${lost?.id}`);
    expect(await fx.queued()).toEqual(['quiet', 'rival', 'steady']);

    const second = await fx.start(adaptive());
    // Same plan from the same store: same intervals, same next polls, and busy's next poll put back.
    const restarted = await fx.schedulers();
    for (const h of ['steady', 'quiet', 'rival']) expect(restarted[h]).toEqual(planned[h]);
    expect(restarted.busy?.every).toBe(planned.busy?.every);
    // Put back within one interval of when the lost poll was due.
    expect(restarted.busy?.next).toBeGreaterThan(Date.now());
    expect(restarted.busy?.next).toBeLessThanOrEqual((planned.busy?.next ?? 0) + (planned.busy?.every ?? 0));
    expect(await fx.queued()).toEqual([...HANDLES].sort());

    // Redis loses every key (a FLUSHALL, a restart without persistence): the upkeep re-plans; the next
    // polls come one interval after the last poll, not all at once.
    await loseEverything(fx.redis, fx.prefix);
    await partsOf(second.worker).schedule?.sync();
    const healed = await fx.schedulers();
    const polled = lastPollTimes(second.worker.store.db);
    const plan = new Map(partsOf(second.worker).schedule?.plan?.entries.map((e) => [e.handle, e.intervalMs]));
    for (const h of HANDLES) {
      // The plan's own interval now (a kept one may have been within 20% of it).
      expect(healed[h]?.every).toBe(plan.get(h));
      expect(Math.abs((healed[h]?.every ?? 0) - (planned[h]?.every ?? 0))).toBeLessThanOrEqual(
        0.2 * (planned[h]?.every ?? 0),
      );
      expect(healed[h]?.next).toBe((polled.get(h) ?? 0) + (healed[h]?.every ?? 0));
    }
    expect(await fx.queued()).toEqual([...HANDLES].sort());
  });

  it('re-plans at start when the config changed: bounds, policy, budget and the watch list', async () => {
    const fx = await setUp();
    const first = await fx.start(adaptive());
    await baselined(first.worker, HANDLES);
    expect((await fx.schedulers()).quiet?.every).toBeGreaterThan(HOUR);
    await first.worker.stop();

    // A tighter maxEvery, and the competitor dropped from the watch list.
    const second = await fx.start(
      adaptive({ poll: { every: '15m', schedule: 'adaptive', maxEvery: '1h' }, apps: APPS.slice(0, 3) }),
    );
    const bounded = await fx.schedulers();
    expect(Object.keys(bounded).sort()).toEqual(['busy', 'quiet', 'steady']);
    expect(bounded.quiet?.every).toBe(HOUR);
    expect(await fx.queued()).toEqual(['busy', 'quiet', 'steady']);
    await second.worker.stop();

    // A budget too small for every own app at maxEvery: stretched past it, and said so.
    const third = await fx.start({
      poll: { every: '15m', schedule: 'budget', maxEvery: '1h' },
      catalog: { dailyRequestBudget: 40 },
      apps: APPS,
    });
    const plan = partsOf(third.worker).schedule?.plan;
    expect(plan?.policy).toBe('budget');
    // The budget is kept, or the plan says it cannot be: the simulated histories' pace moves with the date
    // they are seeded from, and on some days even every app at its longest interval spends a fraction more.
    const kept = (plan?.projected.total ?? Number.POSITIVE_INFINITY) <= 40;
    expect(kept || (plan?.warnings ?? []).some((w) => w.startsWith('the budget cannot be kept'))).toBe(true);
    expect(third.log.text()).toMatch(/the budget cannot keep every own app within poll.maxEvery \(1h\)/);
    const budgeted = await fx.schedulers();
    expect(budgeted.quiet?.every).toBeGreaterThan(HOUR);
    await third.worker.stop();

    // Back to fixed: every app at poll.every.
    await fx.start({ poll: { every: '15m' }, apps: APPS });
    const fixed = await fx.schedulers();
    expect(Object.values(fixed).map((s) => s.every)).toEqual(HANDLES.map(() => 15 * MINUTE));
  });

  it('status shows each app interval, pace and next poll, and the requests a day against the budget', async () => {
    const fx = await setUp();
    const raw = {
      poll: { every: '15m', schedule: 'budget' },
      catalog: { dailyRequestBudget: 2_000 },
      apps: APPS,
    };
    const { worker } = await fx.start(raw);
    await baselined(worker, HANDLES);
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const config = join(dir.dir, 'reviewwatch.yaml');
    writeFileSync(config, JSON.stringify(fast(raw)));
    const env = {
      ...fx.env,
      REDIS_URL,
      REVIEWWATCH_CONFIG: config,
      DATABASE_PATH: fx.databasePath,
      REVIEWWATCH_QUEUE_PREFIX: fx.prefix,
    };
    const status = await runCli(['status'], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^APP\s+STATE\s+LAST POLL\s+NEXT POLL\s+EVERY\s+REVIEWS\/DAY/m);
    expect(status.stdout).toMatch(/^busy\s+ok\s+\S+ ago\s+in \d+[sm]\s+\d+(\.\d)?[smh]\s+\d/m);
    expect(status.stdout).toMatch(
      /poll schedule: budget, [\d,]+ API requests a day projected of catalog.dailyRequestBudget 2,000/,
    );
    const json = JSON.parse((await runCli(['status', '--json'], env)).stdout);
    expect(json.schedule).toMatchObject({ policy: 'budget', budget: 2_000 });
    expect(json.apps[0]).toMatchObject({ handle: 'busy', scheduled: true });
    expect(json.apps[0].intervalMs).toBe((await fx.schedulers()).busy?.every);
  });
});
