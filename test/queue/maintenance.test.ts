import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { connectRedis } from '../../src/queue/connection.js';
import {
  MAINTENANCE_QUEUE,
  type MaintenanceService,
  PRUNE_JOB,
  PRUNE_SCHEDULER_ID,
  startMaintenanceService,
  syncMaintenanceSchedule,
} from '../../src/queue/maintenance.js';
import type { Store } from '../../src/store/db.js';
import type { PruneResult } from '../../src/store/retention.js';
import { captureLog, REDIS_URL, tempStore, uniquePrefix } from '../helpers/index.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function config(retention: Record<string, unknown> = {}) {
  return parseConfig(
    {
      apps: [{ handle: 'my-app' }],
      digest: { timezone: 'Europe/Berlin' },
      retention: { schedule: '15 4 * * *', ...retention },
    },
    {},
  );
}

/** Ten days of hourly polls, each a poll run and a snapshot, ending now. */
function simulatePolls(store: Store, now: number): void {
  const client = store.db.$client;
  client.prepare("insert into apps (handle) values ('my-app')").run();
  const run = client.prepare<[number, number]>(
    `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
     values ('my-app', ?, ?, 'ok', 1, 1, 0, 0)`,
  );
  const snapshot = client.prepare<[number, number | bigint]>(
    `insert into rating_snapshots (app_handle, taken_at, average, count, poll_run_id) values ('my-app', ?, 4.5, 10, ?)`,
  );
  client.transaction(() => {
    for (let t = now - 10 * DAY; t < now; t += HOUR / 4) snapshot.run(t, run.run(t, t).lastInsertRowid);
  })();
}

async function start(retention: Record<string, unknown> = {}) {
  const redis = await connectRedis(REDIS_URL);
  const prefix = uniquePrefix();
  const store = tempStore();
  const log = captureLog();
  const service = await startMaintenanceService(
    { config: config(retention), store, logger: log.logger },
    { connection: redis, prefix },
  );
  cleanups.push(async () => {
    await service.close();
    await service.queue.obliterate({ force: true }).catch(() => {});
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    store.cleanup();
  });
  return { redis, prefix, store, log, service };
}

async function runJob(service: MaintenanceService, redis: Redis, prefix: string): Promise<PruneResult> {
  const events = new QueueEvents(MAINTENANCE_QUEUE, { connection: redis.duplicate(), prefix });
  cleanups.push(() => events.close());
  await events.waitUntilReady();
  const job = await service.queue.add(PRUNE_JOB, {});
  return (await job.waitUntilFinished(events, 30_000)) as PruneResult;
}

it('schedules the daily prune in the digest time zone and prunes when its job runs', async () => {
  const { redis, prefix, store, log, service } = await start();
  const schedulers = await service.queue.getJobSchedulers();
  expect(schedulers).toEqual([
    expect.objectContaining({ key: PRUNE_SCHEDULER_ID, pattern: '15 4 * * *', tz: 'Europe/Berlin' }),
  ]);

  simulatePolls(store, Date.now());
  const before = store.db.$client.prepare('select count(*) as n from rating_snapshots').get() as {
    n: number;
  };
  const result = await runJob(service, redis, prefix);
  const after = store.db.$client.prepare('select count(*) as n from rating_snapshots').get() as { n: number };

  // Eight days past the two of full detail keep one snapshot per hour instead of four.
  expect(result.counts.ratingSnapshots).toBeGreaterThan(8 * 24 * 3 - 8);
  expect(before.n - after.n).toBe(result.counts.ratingSnapshots);
  // Poll runs past their 7 days go with their snapshots; those of kept snapshots stay.
  expect(result.counts.pollRuns).toBeGreaterThan(3 * 24 * 3 - 8);
  expect(result.counts.pollRuns).toBeLessThan(3 * 24 * 3 + 8);
  expect(log.lines().find((l) => l.msg === 'prune done')).toMatchObject({
    deleted: result.counts,
    reclaim: 'incremental',
  });
});

it('removes the schedule when retention is turned off', async () => {
  const { store, log, service } = await start();
  expect(await service.queue.getJobSchedulers()).toHaveLength(1);
  await syncMaintenanceSchedule(service.queue, {
    config: config({ enabled: false }),
    store,
    logger: log.logger,
  });
  expect(await service.queue.getJobSchedulers()).toEqual([]);
});
