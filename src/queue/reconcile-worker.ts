/**
 * Reconciliations on BullMQ. One job scheduler, every few minutes, looks for the apps whose moment came
 * and enqueues a reconciliation for each; a worker runs them a couple at a time.
 *
 * Each app's moment is fixed within `poll.reconcileEvery` by a hash of its handle (due-slots.ts, shared
 * with the market reads), so 10,000 apps spread over the day instead of all reconciling at once. When an
 * app last reconciled is read from SQLite (its runs), never from Redis: after a flush, putting the one
 * scheduler back (`syncReconcileSchedulers`, from the worker's re-assert) is all it takes, and no app is
 * reconciled twice for one moment. An app whose moment passed while no worker ran catches up only within
 * CATCH_UP_MS; past that it waits for its next moment.
 */
import { DelayedError, type JobsOptions, type Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { OutboxMessage } from '../alerts/messages.js';
import type { AlertPolicy } from '../alerts/raise.js';
import { type CatalogClient, CatalogError } from '../catalog/index.js';
import type { Config } from '../config/index.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import { lastReconciledAt, reconcilableApps } from '../store/reconcile.js';
import {
  type ReconcileDeps,
  ReconcileError,
  type ReconcileOptions,
  type ReconcileOutcome,
  reconcileApp,
} from '../watch/reconcile.js';
import { pollLockKey, withLock } from './app-lock.js';
import { CATCH_UP_MS, dueSlots } from './due-slots.js';
import { POLL_LOCK_TTL_MS } from './poll-worker.js';

export const RECONCILE_QUEUE = 'reconcile';
export const RECONCILE_JOB = 'reconcile';
export const RECONCILE_DUE_JOB = 'due';
export const RECONCILE_SCHEDULER_ID = 'reconcile-due';

/** How often the scheduler looks for apps whose moment came: how late after it one may start. */
export const RECONCILE_TICK_MS = 5 * 60_000;

export interface ReconcileJobData {
  handle: string;
  /** The moment (epoch ms) this reconciliation is for; part of the job id. */
  slot: number;
}

/** What a finished reconciliation job returns; kept small, it is stored in Redis. */
export type ReconcileJobResult = Omit<ReconcileOutcome, 'messages' | 'alertKinds'> & {
  deliveryIds: number[];
};

/** A failed reconciliation is tried twice more, 1 and 2 minutes later; the next moment starts over. */
const RECONCILE_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 60_000 },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 1000 },
};

/** A reconciliation that finds its app being polled tries again this much later. */
const BUSY_RETRY_MS = 15_000;

/**
 * One app's reconciliation under the app's poll lock, or `busy` when a poll of it (in any process) holds
 * the lock for longer than `waitMs`: beside a poll, a reconciliation could judge the rows the poll is
 * writing from a listing read before or after them, and spend the same requests twice.
 */
export async function reconcileLocked(
  deps: ReconcileDeps,
  lock: { redis: Redis; prefix: string; waitMs?: number },
  handle: string,
  options: ReconcileOptions,
): Promise<ReconcileOutcome | 'busy'> {
  const deadline = Date.now() + (lock.waitMs ?? 0);
  for (;;) {
    const run = await withLock(
      lock.redis,
      pollLockKey(lock.prefix, handle),
      { ttlMs: POLL_LOCK_TTL_MS },
      () => reconcileApp(deps, handle, options),
    );
    if (run.taken) return run.value;
    if (Date.now() >= deadline) return 'busy';
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The apps to reconcile now, each with its moment (due-slots.ts). `last` holds when each app last started
 * one.
 */
export function dueReconciles(
  handles: readonly string[],
  last: ReadonlyMap<string, number>,
  everyMs: number,
  now: number,
  catchUpMs = CATCH_UP_MS,
): ReconcileJobData[] {
  return dueSlots(handles, last, everyMs, now, { catchUpMs }).map(({ subject, slot }) => ({
    handle: subject,
    slot,
  }));
}

export interface ReconcileWorkerDeps {
  config: Config;
  store: Store;
  client: CatalogClient;
  logger: Logger;
  alerts: AlertPolicy;
}

export interface ReconcileWorkerOptions {
  /** BullMQ duplicates it for its blocking reads; the per-app poll lock runs on it as it is. */
  connection: Redis;
  prefix: string;
  /** Reconciliations running at once in this process. */
  concurrency?: number;
  /** Called with the outbox messages a reconciliation raised, after its transaction committed. */
  onMessages?: (messages: OutboxMessage[]) => Promise<void>;
  /** A bad key or no credits: this worker pauses itself and logs it once, then calls this. */
  onFatal?: (err: CatalogError) => void;
  /** The queue's and the worker's error events (a Redis outage); logged as errors by default. */
  reportError?: (what: string) => (err: Error) => void;
  now?: () => Date;
}

/**
 * The scheduler that looks for due apps every RECONCILE_TICK_MS. Idempotent: safe to call whenever
 * Redis may have lost it (the worker's re-assert).
 */
export async function syncReconcileSchedulers(queue: Queue<ReconcileJobData>): Promise<void> {
  await queue.upsertJobScheduler(
    RECONCILE_SCHEDULER_ID,
    { every: RECONCILE_TICK_MS },
    { name: RECONCILE_DUE_JOB, opts: { removeOnComplete: { count: 10 }, removeOnFail: { count: 10 } } },
  );
}

/** Enqueues a reconciliation for each watched app whose moment came; returns them. */
export async function enqueueDueReconciles(
  queue: Queue<ReconcileJobData>,
  deps: Pick<ReconcileWorkerDeps, 'config' | 'store' | 'logger'>,
  now = new Date(),
): Promise<ReconcileJobData[]> {
  const ready = reconcilableApps(deps.store.db);
  const handles = deps.config.apps.map((app) => app.handle).filter((handle) => ready.has(handle));
  const due = dueReconciles(
    handles,
    lastReconciledAt(deps.store.db),
    deps.config.poll.reconcileEvery,
    now.getTime(),
  );
  if (due.length === 0) return due;
  // The id names the moment: a second look (another worker, a retried tick) adds nothing.
  await queue.addBulk(
    due.map((data) => ({
      name: RECONCILE_JOB,
      data,
      opts: { ...RECONCILE_JOB_OPTIONS, jobId: `reconcile-${data.handle}-${data.slot}` },
    })),
  );
  deps.logger.debug({ apps: due.length }, `${due.length} reconciliation(s) due`);
  return due;
}

export function createReconcileWorker(
  queue: Queue<ReconcileJobData>,
  deps: ReconcileWorkerDeps,
  options: ReconcileWorkerOptions,
): Worker<ReconcileJobData, ReconcileJobResult | number> {
  const { logger } = deps;
  const worker: Worker<ReconcileJobData, ReconcileJobResult | number> = new Worker(
    RECONCILE_QUEUE,
    async (job, token) => {
      if (job.name === RECONCILE_DUE_JOB) {
        return (await enqueueDueReconciles(queue, deps, options.now?.() ?? new Date())).length;
      }
      const { handle } = job.data;
      try {
        const outcome = await reconcileLocked(
          {
            client: deps.client,
            store: deps.store,
            logger,
            alerts: deps.alerts,
            ...(options.now ? { now: options.now } : {}),
          },
          { redis: options.connection, prefix: options.prefix },
          handle,
          { pages: deps.config.poll.reconcilePages },
        );
        if (outcome === 'busy') {
          logger.debug({ app: handle }, `reconciliation of ${handle} waits: a poll of it is running`);
          await job.moveToDelayed(Date.now() + BUSY_RETRY_MS, token);
          throw new DelayedError();
        }
        if (outcome.messages.length > 0) await options.onMessages?.(outcome.messages);
        const { messages, alertKinds, ...rest } = outcome;
        return { ...rest, deliveryIds: messages.flatMap((m) => m.deliveryIds) };
      } catch (err) {
        const cause = err instanceof ReconcileError ? err.cause : err;
        const message = errorMessage(err);
        if (cause instanceof CatalogError && !cause.retryable) {
          if (cause.fatal && !worker.isPaused()) {
            logger.error(
              `${cause.message} Reconciliations are paused; restart reviewwatch once it is fixed.`,
            );
            void worker.pause(true);
            options.onFatal?.(cause);
          }
          throw new UnrecoverableError(message);
        }
        logger.warn(
          { app: handle, attempt: job.attemptsMade + 1 },
          `reconciliation of ${handle} failed: ${message}`,
        );
        throw err;
      }
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency ?? 2,
      autorun: false,
    },
  );
  worker.on('error', reportErrorOf(deps, options)('reconcile worker'));
  return worker;
}

function reportErrorOf(deps: ReconcileWorkerDeps, options: ReconcileWorkerOptions) {
  return (
    options.reportError ??
    ((what: string) => (err: Error) => deps.logger.error({ err: err.message }, `${what} error`))
  );
}
