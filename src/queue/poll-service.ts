import { Queue, type Worker } from 'bullmq';
import type { CatalogError } from '../catalog/index.js';
import type { Runtime } from '../runtime.js';
import { POLL_QUEUE, type PollJobData } from './names.js';
import { createPollWorker, type PollJobResult, type RetryPolicy } from './poll-worker.js';

export interface PollService {
  queue: Queue<PollJobData>;
  worker: Worker<PollJobData, PollJobResult>;
  retry: RetryPolicy;
  /** Lets active polls finish (up to `graceMs`), then closes worker and queue. */
  close(graceMs?: number): Promise<void>;
}

/** The poll queue and its worker, wired to a runtime. The worker starts when `worker.run()` is called. */
export function createPollService(
  rt: Runtime,
  options: { onFatal?: (err: CatalogError) => void } = {},
): PollService {
  const { config } = rt;
  const connection = rt.redis;
  const queue = new Queue<PollJobData>(POLL_QUEUE, { connection, prefix: rt.queuePrefix });
  const retry: RetryPolicy = { attempts: config.poll.attempts, backoffMs: config.poll.backoff };
  const worker = createPollWorker({
    connection,
    queue,
    prefix: rt.queuePrefix,
    concurrency: config.poll.concurrency,
    maxRequestsPerSecond: config.catalog.maxRequestsPerSecond,
    poll: { maxPages: config.poll.maxPages, baselinePages: config.poll.baselinePages },
    lowRatingMax: config.alerts.lowRating.maxRating,
    deps: { client: rt.client, store: rt.store, logger: rt.logger },
    logger: rt.logger,
    ...(options.onFatal ? { onFatal: options.onFatal } : {}),
  });
  worker.on('error', (err) => rt.logger.error({ err: err.message }, 'poll worker error'));
  return {
    queue,
    worker,
    retry,
    async close(graceMs = 30_000) {
      const graceful = worker.close();
      const timer = new Promise<'timeout'>((resolve) => setTimeout(resolve, graceMs, 'timeout').unref());
      if ((await Promise.race([graceful.then(() => 'closed' as const), timer])) === 'timeout') {
        rt.logger.warn(`polls still running after ${graceMs / 1000}s: stopping them; they will run again`);
        await worker.close(true);
      }
      await queue.close();
    },
  };
}
