import type { Worker as BullWorker } from 'bullmq';
import type { OutboxMessage } from '../alerts/messages.js';
import { alertPolicyOf } from '../alerts/policy.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { ChannelSender } from '../notify/sender.js';
import type { PollingHealth } from '../ops/health.js';
import type { Metrics } from '../ops/metrics.js';
import { createDigestWorker } from '../queue/digest-worker.js';
import { beatOf, type Heartbeat, startHeartbeat } from '../queue/heartbeat.js';
import { createMaintenanceWorker } from '../queue/maintenance.js';
import { createMarketWorker } from '../queue/market-worker.js';
import { pollPausedKey } from '../queue/names.js';
import { createNotifyWorker, enqueueMessages } from '../queue/notify-worker.js';
import { createPollWorker, GAP_FOLLOW_UP_MS, type RetryPolicy, retryPolicyOf } from '../queue/poll-worker.js';
import { createReconcileWorker } from '../queue/reconcile-worker.js';
import type { Settings } from '../settings.js';
import { processId } from '../util/process-id.js';
import type { Releasers } from '../util/releasers.js';
import { TimeoutError, withTimeout } from '../util/timeout.js';
import type { Catalog, OnFatal } from './catalog.js';
import type { Queues } from './queues.js';
import type { Storage } from './storage.js';

export type PollWorker = ReturnType<typeof createPollWorker>;
export type NotifyWorker = ReturnType<typeof createNotifyWorker>;

export interface Workers {
  poll: PollWorker;
  notify: NotifyWorker;
  retry: RetryPolicy;
  /** Every worker, to run once the rest is in place. */
  all: BullWorker[];
  /** Abandons the jobs in flight: the next stop releases at once instead of after the grace. */
  force(): void;
}

/** What the workers are built from: the parts the steps before opened, and how this run treats them. */
export interface WorkerParts {
  storage: Storage;
  catalog: Catalog;
  queues: Queues;
  senders: ReadonlyMap<string, ChannelSender>;
  metrics: Metrics;
  health: PollingHealth | undefined;
  logger: Logger;
  mode: 'service' | 'once';
  onFatal: OnFatal | undefined;
  graceMs: number;
  /** How far the budget spreads the market reads (the poll schedule's plan); 1 without one. */
  marketStretch?: () => number;
}

/**
 * The workers of the queues that are open: poll and notify always, digest, daily prune,
 * reconciliation and the market where their queues are (`service`). Created paused (BullMQ's `autorun: false`); the
 * root runs them last. On release they get `graceMs` to finish their jobs, then are closed at once.
 */
export function createWorkers(settings: Settings, releasers: Releasers, parts: WorkerParts): Workers {
  const { queues, logger } = parts;
  // The alerts are in the outbox already; if Redis refuses them now, the sweep enqueues them later.
  const enqueueRaised = (messages: OutboxMessage[]) =>
    enqueueMessages(queues.notify, messages).catch((err) =>
      logger.warn(
        `could not enqueue ${messages.length} notification(s) now (${errorMessage(err)}); they stay in the outbox`,
      ),
    );
  const retry = retryPolicyOf(settings.config);
  const poll = pollWorkerOf(settings, parts, enqueueRaised);
  const notify = notifyWorkerOf(settings, parts);
  const all: BullWorker[] = [poll, notify, ...serviceWorkers(settings, parts, enqueueRaised)];
  return { poll, notify, retry, all, force: releaseWorkers(releasers, all, parts) };
}

/** The poll worker; a rejected key or exhausted credits pause it (and say so to /readyz and `status`). */
function pollWorkerOf(
  settings: Settings,
  parts: WorkerParts,
  onMessages: (messages: OutboxMessage[]) => Promise<void>,
): PollWorker {
  const { config } = settings;
  const { storage, logger, health } = parts;
  const { redis: connection } = storage;
  const prefix = settings.queuePrefix;
  const poll = createPollWorker({
    connection,
    queue: parts.queues.poll,
    prefix,
    concurrency: config.poll.concurrency,
    maxRequestsPerSecond: config.catalog.maxRequestsPerSecond,
    poll: { maxPages: config.poll.maxPages, baselinePages: config.poll.baselinePages },
    lowRatingMax: config.alerts.lowRating.maxRating,
    deps: { client: parts.catalog.client, store: storage.store, logger, alerts: alertPolicyOf(config) },
    metrics: parts.metrics,
    logger,
    onMessages,
    // Where the schedules are, a burst gap is read on at once rather than at the next scheduled poll.
    ...(parts.mode === 'service'
      ? { gapFollowUp: { delayMs: GAP_FOLLOW_UP_MS, retry: retryPolicyOf(config) } }
      : {}),
    onFatal:
      parts.onFatal ??
      ((err) => {
        if (poll.isPaused()) return;
        logger.error(`${err.message} Polling is paused; restart reviewwatch once it is fixed.`);
        health?.pause(err.message);
        // For `status`, which runs in another process; a restart clears it (and tries again).
        void connection.set(pollPausedKey(prefix), err.message).catch(() => undefined);
        void poll.pause(true);
      }),
  });
  poll.on('error', storage.reportError('poll worker'));
  if (health) {
    // A skipped slot (the app's previous poll still running) proves nothing about polling.
    poll.on('completed', (_job, result) => {
      if (result.status !== 'skipped') health.pollFinished();
    });
    // A failure recorded for good is an answer too; an attempt that will be retried is not.
    poll.on('failed', (job) => {
      if (job?.finishedOn) health.pollFinished();
    });
  }
  return poll;
}

function notifyWorkerOf(settings: Settings, parts: WorkerParts): NotifyWorker {
  const { throttle } = settings.config.alerts;
  const notify = createNotifyWorker({
    connection: parts.storage.redis,
    prefix: settings.queuePrefix,
    queue: parts.queues.notify,
    store: parts.storage.store,
    senders: parts.senders,
    throttle: { max: throttle.max, windowMs: throttle.window, maxHoldMs: throttle.maxHold },
    metrics: parts.metrics,
    logger: parts.logger,
  });
  notify.on('error', parts.storage.reportError('notify worker'));
  return notify;
}

/** The digest, daily prune and reconciliation workers, where their queues are open (`service`). */
function serviceWorkers(
  settings: Settings,
  parts: WorkerParts,
  onMessages: (messages: OutboxMessage[]) => Promise<void>,
): BullWorker[] {
  const { config } = settings;
  const { queues, logger } = parts;
  const { store, redis: connection, reportError } = parts.storage;
  const prefix = settings.queuePrefix;
  const deps = { config, store, senders: parts.senders, logger, simulated: settings.simulated };
  const workers: BullWorker[] = [];
  if (queues.digest) {
    workers.push(
      createDigestWorker(deps, {
        connection,
        prefix,
        queueName: queues.digest.name,
        onError: reportError('digest worker'),
      }),
    );
  }
  if (queues.maintenance) {
    workers.push(
      createMaintenanceWorker(deps, { connection, prefix, onError: reportError('maintenance worker') }),
    );
  }
  if (queues.reconcile) {
    workers.push(
      createReconcileWorker(
        queues.reconcile,
        { config, store, client: parts.catalog.client, logger, alerts: alertPolicyOf(config) },
        { connection, prefix, onMessages, reportError },
      ),
    );
  }
  if (queues.market) {
    workers.push(
      createMarketWorker(
        queues.market,
        { config, store, client: parts.catalog.client, logger },
        {
          connection,
          prefix,
          onMessages,
          onError: reportError('market worker'),
          ...(parts.marketStretch ? { stretch: parts.marketStretch } : {}),
        },
      ),
    );
  }
  return workers;
}

/**
 * On release, the workers get `graceMs` to finish their jobs, then are closed at once; returns what
 * abandons the jobs in flight instead (`kill`).
 */
function releaseWorkers(
  releasers: Releasers,
  all: readonly BullWorker[],
  parts: Pick<WorkerParts, 'graceMs' | 'logger'>,
): () => void {
  let forced = false;
  const closeNow = () => Promise.all(all.map((w) => w.close(true))).then(() => undefined);
  releasers.add('workers', async () => {
    if (forced) return closeNow();
    try {
      await withTimeout(Promise.all(all.map((w) => w.close())), parts.graceMs);
    } catch (err) {
      if (!(err instanceof TimeoutError)) throw err;
      parts.logger.warn(
        `jobs still running after ${parts.graceMs / 1000}s: stopping them; they will run again`,
      );
      await closeNow();
    }
  });
  return () => {
    forced = true;
    void closeNow();
  };
}

/**
 * Runs every worker, then says in Redis that this process polls (queue/heartbeat.ts) for as long as its
 * poll worker runs: `status` and `serve`'s /readyz read it to tell a running worker from one that was
 * killed and left its schedules behind. The heartbeat stops first on release, before the stop grace.
 */
export async function runWorkers(
  settings: Settings,
  releasers: Releasers,
  parts: { workers: Workers; storage: Storage; mode: WorkerParts['mode'] },
): Promise<Heartbeat> {
  const { workers } = parts;
  for (const worker of workers.all) void worker.run();
  const heartbeat = await startHeartbeat({
    redis: parts.storage.redis,
    prefix: settings.queuePrefix,
    beat: beatOf(processId(), parts.mode),
    beating: () => workers.poll.isRunning(),
  });
  releasers.add('heartbeat', () => heartbeat.stop());
  return heartbeat;
}
