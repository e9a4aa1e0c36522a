import { QueueEvents } from 'bullmq';
import { afterEach, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import {
  MAINTENANCE_QUEUE,
  PRUNE_JOB,
  PRUNE_SCHEDULER_ID,
  syncMaintenanceSchedule,
} from '../../src/queue/maintenance.js';
import { partsOf, type Worker } from '../../src/root/worker.js';
import { getApp } from '../../src/store/apps.js';
import type { PruneResult } from '../../src/store/retention.js';
import { waitFor } from '../helpers/index.js';
import { insertPollHistory } from '../helpers/poll-history.js';
import { type Harness, startHarness } from '../helpers/runtime.js';

const HOUR = 3_600_000;
const _DAY = 24 * HOUR;

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function rawConfig(retention: Record<string, unknown> = {}) {
  return {
    // The built-in simulator: the service polls my-app once at start, then every 15 minutes.
    catalog: { simulator: true },
    apps: [{ handle: 'my-app' }],
    digest: { timezone: 'Europe/Berlin' },
    retention: { schedule: '15 4 * * *', ...retention },
  };
}

/** A running service (`start`), once its first poll of my-app is stored: nothing else writes meanwhile. */
async function start(): Promise<Harness> {
  const harness = await startHarness(rawConfig(), {}, { mode: 'service' });
  cleanups.push(() => harness.close());
  await waitFor(
    () => getApp(harness.worker.store.db, 'my-app')?.baselineAt != null,
    15_000,
    () => 'the first poll',
  );
  return harness;
}

async function runJob(worker: Worker): Promise<PruneResult> {
  const queue = partsOf(worker).maintenanceQueue;
  if (!queue) throw new Error('a service has a maintenance queue');
  const events = new QueueEvents(MAINTENANCE_QUEUE, {
    connection: partsOf(worker).redis.duplicate(),
    prefix: worker.settings.queuePrefix,
  });
  cleanups.push(() => events.close());
  await events.waitUntilReady();
  const job = await queue.add(PRUNE_JOB, {});
  return (await job.waitUntilFinished(events, 30_000)) as PruneResult;
}

it('schedules the daily prune in the digest time zone and prunes when its job runs', async () => {
  const { worker, log } = await start();
  const schedulers = await partsOf(worker).maintenanceQueue?.getJobSchedulers();
  expect(schedulers).toEqual([
    expect.objectContaining({ key: PRUNE_SCHEDULER_ID, pattern: '15 4 * * *', tz: 'Europe/Berlin' }),
  ]);

  const { store } = worker;
  insertPollHistory(store, 'my-app', { now: Date.now(), days: 10, everyMs: HOUR / 4 });
  const before = store.db.$client.prepare('select count(*) as n from rating_snapshots').get() as {
    n: number;
  };
  const result = await runJob(worker);
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
  const { worker, log } = await start();
  const queue = partsOf(worker).maintenanceQueue;
  if (!queue) throw new Error('a service has a maintenance queue');
  expect(await queue.getJobSchedulers()).toHaveLength(1);
  await syncMaintenanceSchedule(queue, {
    config: parseConfig(rawConfig({ enabled: false })),
    store: worker.store,
    logger: log.logger,
  });
  expect(await queue.getJobSchedulers()).toEqual([]);
});
