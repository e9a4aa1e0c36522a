import { randomUUID } from 'node:crypto';
import { Job, type Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { NotifyJobData, PollJobData } from '../queue/names.js';
import { POLL_JOB } from '../queue/names.js';
import { enqueueMessages } from '../queue/notify-worker.js';
import {
  POLL_LOCK_TTL_MS,
  type PollJobResult,
  pollJobOptions,
  type RetryPolicy,
} from '../queue/poll-worker.js';
import { reconcileLocked } from '../queue/reconcile-worker.js';
import type { Store } from '../store/db.js';
import { type DeliveryState, deliveryStates } from '../store/outbox.js';
import { plural } from '../util/plural.js';
import type { Releasers } from '../util/releasers.js';
import type { MarketDeps, MarketOutcome } from '../watch/market-read.js';
import type { ReconcileDeps, ReconcileOutcome } from '../watch/reconcile.js';

/** A one-shot job stops waiting for another poll of its app this long before its run's deadline, to say so. */
const LOCK_WAIT_MARGIN_MS = 1_000;

export interface PollNowResult {
  handle: string;
  result?: PollJobResult;
  error?: string;
}

export interface PollNowOptions {
  onResult?: (r: PollNowResult) => void;
  timeoutMs?: number;
}

/** What a started worker offers beyond its parts: polls now, waiting on deliveries, stopping. */
export interface Controls {
  /**
   * Polls these apps now through the queue and the workers; `onResult` as each one finishes. With
   * `timeoutMs`, an app whose poll (retries included) has not finished by then is reported as failed with
   * its last error, and its job is taken off the queue where it can be.
   */
  pollNow(handles: string[], options?: PollNowOptions): Promise<PollNowResult[]>;
  /**
   * Reconciles this app now under its poll lock, waiting up to `waitMs` for a poll of it (`busy` when that
   * poll held on), and puts the alerts it raised on the notify queue; if Redis refuses them, they stay in
   * the outbox for `start` to deliver.
   */
  reconcile(handle: string, options: { waitMs: number }): Promise<ReconcileOutcome | 'busy'>;
  /**
   * Runs one market read (a category snapshot, a listing, a developer) with this worker's catalog client
   * and store, and puts the alerts it raised on the notify queue; if Redis refuses them, they stay in the
   * outbox for `start` to deliver.
   */
  readMarket<T extends MarketOutcome>(read: (deps: MarketDeps) => Promise<T>): Promise<T>;
  /** Waits until none of these deliveries is pending, or `timeoutMs` passes; returns their states. */
  settle(
    ids: number[],
    options?: { timeoutMs?: number; onProgress?: (settled: number) => void },
  ): Promise<DeliveryState[]>;
  /** Lets the jobs in flight finish (up to the grace), then releases everything, last opened first. */
  stop(): Promise<void>;
  /** Releases everything now: jobs in flight are abandoned and run again on the next start. */
  kill(): Promise<void>;
  /** Settles when everything is released, however the worker stopped. Never rejects. */
  readonly done: Promise<void>;
}

/** Stopping, killing and `done` over the releasers of whatever a root opened. */
export function lifecycle(
  releasers: Releasers,
  logger: Logger,
  force: () => void = () => {},
): Pick<Controls, 'stop' | 'kill' | 'done'> {
  let stopping: Promise<Error[]> | undefined;
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  const finish = async () => {
    stopping ??= releasers.releaseAll().then((errors) => {
      for (const err of errors) logger.error(err.message);
      return errors;
    });
    const errors = await stopping;
    resolveDone();
    if (errors.length > 0) throw new AggregateError(errors, errors.map((e) => e.message).join('; '));
  };
  return {
    done,
    stop: finish,
    kill() {
      force();
      return finish();
    },
  };
}

/** `pollNow` and `settle` on a worker's poll queue and store. */
export function onDemand(
  releasers: Releasers,
  parts: { queue: Queue<PollJobData>; retry: RetryPolicy; store: Store },
): Pick<Controls, 'pollNow' | 'settle'> {
  const { queue, retry, store } = parts;
  let events: Promise<QueueEvents> | undefined;
  const pollEvents = () => {
    events ??= (async () => {
      const created = new QueueEvents(queue.name, {
        connection: queue.opts.connection,
        prefix: queue.opts.prefix,
      });
      releasers.add('poll queue events', () => created.close());
      await created.waitUntilReady();
      return created;
    })();
    return events;
  };
  return {
    async pollNow(handles, options = {}) {
      const ready = await pollEvents();
      const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
      const run = randomUUID().slice(0, 8);
      // A poll of the app already running elsewhere is waited for, then this one polls: within the
      // timeout, or for as long as one poll may take when there is none.
      const waitUntil =
        deadline === undefined ? Date.now() + POLL_LOCK_TTL_MS : deadline - LOCK_WAIT_MARGIN_MS;
      const jobs: Array<Job<PollJobData>> = await queue.addBulk(
        handles.map((handle) => ({
          name: POLL_JOB,
          data: { handle, waitUntil },
          opts: { ...pollJobOptions(retry), jobId: `once-${run}-${handle}` },
        })),
      );
      return Promise.all(
        jobs.map(async (job, i) => {
          const handle = handles[i] as string;
          let outcome: PollNowResult;
          try {
            const ttl = deadline === undefined ? undefined : Math.max(1, deadline - Date.now());
            outcome = { handle, result: (await job.waitUntilFinished(ready, ttl)) as PollJobResult };
          } catch (err) {
            outcome = { handle, error: await unfinished(queue, job, err) };
          }
          options.onResult?.(outcome);
          return outcome;
        }),
      );
    },
    async settle(ids, options = {}) {
      const deadline = Date.now() + (options.timeoutMs ?? 120_000);
      let states = deliveryStates(store.db, ids);
      let shown = -1;
      while (states.some((s) => s.status === 'pending') && Date.now() < deadline) {
        const settled = states.filter((s) => s.status !== 'pending').length;
        if (settled !== shown) options.onProgress?.(settled);
        shown = settled;
        await new Promise((resolve) => setTimeout(resolve, 50));
        states = deliveryStates(store.db, ids);
      }
      return states;
    },
  };
}

/** `reconcile` through a worker's catalog client, store, poll locks and notify queue. */
export function reconcileOnDemand(parts: {
  deps: ReconcileDeps;
  redis: Redis;
  prefix: string;
  pages: number;
  notifyQueue: Queue<NotifyJobData>;
}): Pick<Controls, 'reconcile'> {
  const { deps, redis, prefix, pages, notifyQueue } = parts;
  return {
    async reconcile(handle, options) {
      const outcome = await reconcileLocked(deps, { redis, prefix, waitMs: options.waitMs }, handle, {
        pages,
      });
      if (outcome !== 'busy' && outcome.messages.length > 0) {
        await enqueueMessages(notifyQueue, outcome.messages).catch((err) =>
          deps.logger.warn(
            `could not enqueue notifications now (${errorMessage(err)}); they stay in the outbox`,
          ),
        );
      }
      return outcome;
    },
  };
}

/** `readMarket` through a worker's catalog client, store and notify queue. */
export function marketOnDemand(parts: {
  deps: MarketDeps;
  notifyQueue: Queue<NotifyJobData>;
}): Pick<Controls, 'readMarket'> {
  const { deps, notifyQueue } = parts;
  return {
    async readMarket(read) {
      const outcome = await read(deps);
      if (outcome.messages.length > 0) {
        await enqueueMessages(notifyQueue, outcome.messages).catch((err) =>
          deps.logger.warn(
            `could not enqueue notifications now (${errorMessage(err)}); they stay in the outbox`,
          ),
        );
      }
      return outcome;
    },
  };
}

/**
 * Why a polled job did not finish: its own failure, or (past the deadline) its last error so far; a job
 * still waiting for a retry is removed so it does not poll after the run has reported.
 */
async function unfinished(queue: Queue<PollJobData>, job: Job<PollJobData>, err: unknown): Promise<string> {
  const fresh = job.id ? await Job.fromId<PollJobData>(queue, job.id).catch(() => undefined) : undefined;
  if (!fresh || (await fresh.isFailed())) return fresh?.failedReason || errorMessage(err);
  const last = fresh.failedReason ? `; last error: ${fresh.failedReason}` : '';
  const state = await fresh.getState();
  if (state !== 'active') await fresh.remove().catch(() => undefined);
  return `did not finish in time (${plural(fresh.attemptsMade, 'attempt')} made${last})`;
}
