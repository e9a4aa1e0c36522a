import { type ConnectionOptions, type Queue, Worker } from 'bullmq';
import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import { type PruneResult, pruneDatabase, retentionPolicyOf } from '../store/retention.js';
import { syncCronScheduler } from './schedulers.js';

export const MAINTENANCE_QUEUE = 'maintenance';
export const PRUNE_JOB = 'prune';
export const PRUNE_SCHEDULER_ID = 'daily-prune';

/** A failed prune is tried twice more, 10 and 20 minutes later; tomorrow's run starts over anyway. */
const PRUNE_JOB_OPTIONS = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 10 * 60_000 },
  removeOnComplete: { count: 30 },
  removeOnFail: { count: 30 },
} as const;

export interface MaintenanceDeps {
  config: Config;
  store: Store;
  logger: Logger;
}

/** Logs a prune's progress at most this often. */
const PROGRESS_EVERY_MS = 30_000;

/**
 * The daily prune's cron job scheduler (`retention.schedule`, in `digest.timezone`), or none
 * when `retention.enabled` is false. Idempotent: safe to call again whenever Redis may have lost it.
 */
export async function syncMaintenanceSchedule(queue: Queue, deps: MaintenanceDeps): Promise<void> {
  const { retention, digest } = deps.config;
  const cron = retention.enabled ? { pattern: retention.schedule, tz: digest.timezone } : undefined;
  await syncCronScheduler(queue, PRUNE_SCHEDULER_ID, cron, { name: PRUNE_JOB, opts: PRUNE_JOB_OPTIONS });
}

/** Runs one prune of the store with the config's retention policy, logging progress and the outcome. */
export async function runPrune(deps: MaintenanceDeps, now = new Date()): Promise<PruneResult> {
  const { logger } = deps;
  let lastLog = performance.now();
  const result = await pruneDatabase(deps.store.db, retentionPolicyOf(deps.config), now, {
    onProgress: (p) => {
      if (performance.now() - lastLog < PROGRESS_EVERY_MS) return;
      lastLog = performance.now();
      logger.info({ phase: p.phase, done: p.done, total: p.total, deleted: p.counts }, 'prune in progress');
    },
  });
  logger.info(
    {
      deleted: result.counts,
      bytesReclaimed: result.bytesReclaimed,
      bytesAfter: result.bytesAfter,
      freeBytes: result.freeBytes,
      reclaim: result.reclaim,
      durationMs: result.durationMs,
    },
    'prune done',
  );
  if (result.reclaim === 'reuse' && result.freeBytes > 0) {
    logger.warn(
      { freeBytes: result.freeBytes },
      'the database predates incremental vacuum: freed space is reused but not returned; run `reviewwatch prune --vacuum` once, in a quiet moment',
    );
  }
  return result;
}

/**
 * Runs prune jobs, one at a time: the prune yields between its short transactions, so the job's lock is
 * renewed and the worker's polls write in between. Created paused, like every worker: the root runs it.
 */
export function createMaintenanceWorker(
  deps: MaintenanceDeps,
  options: {
    connection: ConnectionOptions;
    prefix: string;
    /** The worker's error events (a Redis outage); logged as errors by default. */
    onError?: (err: Error) => void;
  },
): Worker<unknown, PruneResult> {
  const worker = new Worker<unknown, PruneResult>(MAINTENANCE_QUEUE, () => runPrune(deps), {
    connection: options.connection,
    prefix: options.prefix,
    concurrency: 1,
    autorun: false,
  });
  worker.on(
    'error',
    options.onError ?? ((err) => deps.logger.error({ err: err.message }, 'maintenance worker error')),
  );
  worker.on('failed', (_job, err) => deps.logger.error({ err: err.message }, 'prune failed'));
  return worker;
}
