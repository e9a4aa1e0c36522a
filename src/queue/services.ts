import { Queue, type Worker } from 'bullmq';
import type { CatalogError } from '../catalog/index.js';
import { errorMessage } from '../errors.js';
import type { Runtime } from '../runtime.js';
import { TimeoutError, withTimeout } from '../util/timeout.js';
import { NOTIFY_QUEUE, type NotifyJobData, POLL_QUEUE, type PollJobData } from './names.js';
import { createNotifyWorker, enqueueMessages, type NotifyResult } from './notify-worker.js';
import { createPollWorker, type PollJobResult, type RetryPolicy } from './poll-worker.js';

export interface Services {
  pollQueue: Queue<PollJobData>;
  pollWorker: Worker<PollJobData, PollJobResult>;
  notifyQueue: Queue<NotifyJobData>;
  notifyWorker: Worker<NotifyJobData, NotifyResult>;
  retry: RetryPolicy;
  /** Starts both workers. */
  run(): void;
  /** Lets active jobs finish (up to `graceMs`), then closes workers and queues. */
  close(graceMs?: number): Promise<void>;
}

/** The poll and notify queues with their workers, wired to a runtime. */
export function createServices(
  rt: Runtime,
  options: { onFatal?: (err: CatalogError) => void } = {},
): Services {
  const { config, logger } = rt;
  const connection = rt.redis;
  const prefix = rt.queuePrefix;
  const pollQueue = new Queue<PollJobData>(POLL_QUEUE, { connection, prefix });
  const notifyQueue = new Queue<NotifyJobData>(NOTIFY_QUEUE, { connection, prefix });
  const retry: RetryPolicy = { attempts: config.poll.attempts, backoffMs: config.poll.backoff };
  const pollWorker = createPollWorker({
    connection,
    queue: pollQueue,
    prefix,
    concurrency: config.poll.concurrency,
    maxRequestsPerSecond: config.catalog.maxRequestsPerSecond,
    poll: { maxPages: config.poll.maxPages, baselinePages: config.poll.baselinePages },
    lowRatingMax: config.alerts.lowRating.maxRating,
    deps: { client: rt.client, store: rt.store, logger, alerts: rt.alerts },
    metrics: rt.metrics,
    logger,
    // The alerts are in the outbox already; if Redis refuses them now, the sweep enqueues them later.
    onMessages: (messages) =>
      enqueueMessages(notifyQueue, messages).catch((err) =>
        logger.warn(
          `could not enqueue ${messages.length} notification(s) now (${errorMessage(err)}); they stay in the outbox`,
        ),
      ),
    ...(options.onFatal ? { onFatal: options.onFatal } : {}),
  });
  const notifyWorker = createNotifyWorker({
    connection,
    prefix,
    queue: notifyQueue,
    store: rt.store,
    senders: rt.senders,
    throttle: { max: config.alerts.throttle.max, windowMs: config.alerts.throttle.window },
    metrics: rt.metrics,
    logger,
  });
  pollWorker.on('error', (err) => logger.error({ err: err.message }, 'poll worker error'));
  notifyWorker.on('error', (err) => logger.error({ err: err.message }, 'notify worker error'));
  const workers = [pollWorker, notifyWorker] as const;
  return {
    pollQueue,
    pollWorker,
    notifyQueue,
    notifyWorker,
    retry,
    run() {
      for (const worker of workers) void worker.run();
    },
    async close(graceMs = 30_000) {
      try {
        await withTimeout(Promise.all(workers.map((w) => w.close())), graceMs);
      } catch (err) {
        if (!(err instanceof TimeoutError)) throw err;
        logger.warn(`jobs still running after ${graceMs / 1000}s: stopping them; they will run again`);
        await Promise.all(workers.map((w) => w.close(true)));
      }
      await pollQueue.close();
      await notifyQueue.close();
    },
  };
}
