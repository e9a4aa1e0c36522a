import { type ConnectionOptions, type Queue, Worker } from 'bullmq';
import { periodKey } from '../digest/index.js';
import {
  type DigestDeps,
  type DigestOutcome,
  overdueDigest,
  periodForRun,
  sendDigest,
} from '../digest/send.js';
import { DIGEST_JOB, DIGEST_SCHEDULER_ID } from './names.js';
import { syncCronScheduler } from './schedulers.js';

/** A failed digest is tried again for about a day (1, 2, 4 … 256 minutes apart). */
const DIGEST_JOB_OPTIONS = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 60_000 },
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 100 },
} as const;

interface DigestJobData {
  /** When the job first ran: the week before it is the one it reports, however often it is retried. */
  at?: number;
}

/** The digest's cron job scheduler (`digest.schedule` in `digest.timezone`), or none without channels. */
export async function syncDigestSchedule(queue: Queue<DigestJobData>, deps: DigestDeps): Promise<void> {
  const { digest } = deps.config;
  const cron = digest.channels.length > 0 ? { pattern: digest.schedule, tz: digest.timezone } : undefined;
  await syncCronScheduler(queue, DIGEST_SCHEDULER_ID, cron, { name: DIGEST_JOB, opts: DIGEST_JOB_OPTIONS });
}

/** A digest whose time passed while no worker ran goes out now, once (the job id is the period's). */
export async function enqueueOverdueDigest(queue: Queue<DigestJobData>, deps: DigestDeps): Promise<void> {
  const overdue = overdueDigest(deps, new Date());
  if (!overdue) return;
  deps.logger.info(`the digest for ${overdue.label} was not sent at its time: sending it now`);
  await queue.add(
    DIGEST_JOB,
    {},
    { ...DIGEST_JOB_OPTIONS, jobId: `catch-up-${periodKey(overdue).replace(/[:.+]/g, '-')}` },
  );
}

/**
 * Runs digest jobs. A channel that failed (or another worker's claim still in flight) fails the job, which
 * BullMQ retries with backoff; the channels already sent are not sent again (digest/send.ts).
 */
export function createDigestWorker(
  deps: DigestDeps,
  options: {
    connection: ConnectionOptions;
    prefix: string;
    queueName: string;
    /** The worker's error events (a Redis outage); logged as errors by default. */
    onError?: (err: Error) => void;
  },
): Worker<DigestJobData, DigestOutcome[]> {
  const worker = new Worker<DigestJobData, DigestOutcome[]>(
    options.queueName,
    async (job) => {
      const at = job.data?.at ?? job.processedOn ?? Date.now();
      if (job.data?.at === undefined) await job.updateData({ at });
      const period = periodForRun(deps.config, new Date(at));
      const outcomes = await sendDigest(deps, period);
      const unfinished = outcomes.filter((o) => o.status === 'failed' || o.status === 'busy');
      if (unfinished.length > 0) {
        throw new Error(
          `digest for ${period.label} not sent to ${unfinished.map((o) => o.channel).join(', ')}; will retry`,
        );
      }
      return outcomes;
    },
    { connection: options.connection, prefix: options.prefix, concurrency: 1, autorun: false },
  );
  worker.on(
    'error',
    options.onError ?? ((err) => deps.logger.error({ err: err.message }, 'digest worker error')),
  );
  return worker;
}
