import { type ConnectionOptions, Queue, Worker } from 'bullmq';
import { CronExpressionParser } from 'cron-parser';
import type { Config } from '../config/index.js';
import {
  collectDigest,
  type DigestPeriod,
  digestInputOf,
  periodKey,
  previousWeek,
  renderDigestEmail,
  renderDigestSlack,
} from '../digest/index.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { ChannelSender } from '../notify/sender.js';
import type { Store } from '../store/db.js';
import { claimDigest, digestRunsOf, finishDigest } from '../store/digests.js';

export const DIGEST_QUEUE = 'digest';
export const DIGEST_JOB = 'weekly';
const SCHEDULER_ID = 'weekly-digest';

/** A failed digest is tried again for about a day (1, 2, 4 … 256 minutes apart). */
const DIGEST_JOB_OPTIONS = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 60_000 },
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 100 },
} as const;

export interface DigestDeps {
  config: Config;
  store: Store;
  senders: ReadonlyMap<string, ChannelSender>;
  logger: Logger;
}

export interface DigestOutcome {
  channel: string;
  /** busy: another worker claimed it moments ago and may still be sending it. */
  status: 'sent' | 'already-sent' | 'busy' | 'failed';
  subject?: string;
  error?: string;
}

/**
 * Sends one period's digest to each digest channel that has not had it: email channels get the full
 * digest, Slack channels the compact summary. The digest_runs claim makes it once per period and channel,
 * whoever runs it.
 */
export async function sendDigest(
  deps: DigestDeps,
  period: DigestPeriod,
  now = new Date(),
): Promise<DigestOutcome[]> {
  const { config, store, logger } = deps;
  const channels = config.digest?.channels ?? [];
  const key = { periodStart: periodKey(period), periodEnd: period.end.toISOString() };
  let data: ReturnType<typeof collectDigest> | undefined;
  const outcomes: DigestOutcome[] = [];
  for (const channel of channels) {
    const sender = deps.senders.get(channel);
    if (!sender) continue;
    const claim = claimDigest(store.db, { ...key, channel }, now);
    if (claim !== 'claimed') {
      outcomes.push({ channel, status: claim === 'sent' ? 'already-sent' : 'busy' });
      continue;
    }
    data ??= collectDigest(store.db, digestInputOf(config, period, now));
    const message = sender.type === 'email' ? renderDigestEmail(data) : renderDigestSlack(data);
    const subject = 'subject' in message ? message.subject : message.text.slice(0, 200);
    try {
      await sender.post(message);
      finishDigest(store.db, { periodStart: key.periodStart, channel }, { sentAt: new Date(), subject });
      logger.info(
        { channel, period: period.label },
        `weekly digest for ${period.label} sent to "${channel}"`,
      );
      outcomes.push({ channel, status: 'sent', subject });
    } catch (err) {
      const error = errorMessage(err);
      finishDigest(store.db, { periodStart: key.periodStart, channel }, { error });
      logger.error({ channel, period: period.label }, `weekly digest to "${channel}" failed: ${error}`);
      outcomes.push({ channel, status: 'failed', error });
    }
  }
  return outcomes;
}

/** The period a digest fired at `at` reports on: the last complete week before it, in the digest's zone. */
export function periodForRun(config: Config, at: Date): DigestPeriod {
  return previousWeek(at, config.digest?.timezone ?? 'UTC');
}

/**
 * The period whose digest is due but not sent: when the last scheduled time has passed since that week
 * ended and a channel has no sent run for it. A worker that was down at send time catches up with it.
 */
export function overdueDigest(deps: DigestDeps, now: Date): DigestPeriod | undefined {
  const digest = deps.config.digest;
  if (!digest || digest.channels.length === 0) return undefined;
  const lastFire = CronExpressionParser.parse(digest.schedule, { currentDate: now, tz: digest.timezone })
    .prev()
    .toDate();
  const period = periodForRun(deps.config, lastFire);
  if (lastFire.getTime() < period.end.getTime()) return undefined;
  const sent = new Set(
    digestRunsOf(deps.store.db, periodKey(period))
      .filter((run) => run.status === 'sent')
      .map((run) => run.channel),
  );
  return digest.channels.every((channel) => sent.has(channel)) ? undefined : period;
}

export interface DigestService {
  queue: Queue;
  worker: Worker;
  close(): Promise<void>;
}

/** The cron job scheduler (`digest.schedule` in `digest.timezone`) and its worker; catches up at start. */
export async function startDigestService(
  deps: DigestDeps,
  options: { connection: ConnectionOptions; prefix: string },
): Promise<DigestService> {
  const queue = new Queue(DIGEST_QUEUE, options);
  const digest = deps.config.digest;
  if (digest && digest.channels.length > 0) {
    await queue.upsertJobScheduler(
      SCHEDULER_ID,
      { pattern: digest.schedule, tz: digest.timezone },
      { name: DIGEST_JOB, opts: DIGEST_JOB_OPTIONS },
    );
  } else {
    await queue.removeJobScheduler(SCHEDULER_ID);
  }
  const worker = new Worker(
    DIGEST_QUEUE,
    // The week before the moment the job first ran: the scheduled time, or now for a catch-up. A channel
    // that failed (or another worker's claim still in flight) fails the job, which BullMQ retries with
    // backoff; the channels already sent are not sent again.
    async (job) => {
      const period = periodForRun(deps.config, new Date(job.data?.at ?? job.processedOn ?? Date.now()));
      if (!job.data?.at) await job.updateData({ at: job.processedOn ?? Date.now() });
      const outcomes = await sendDigest(deps, period);
      const unfinished = outcomes.filter((o) => o.status === 'failed' || o.status === 'busy');
      if (unfinished.length > 0) {
        throw new Error(
          `digest for ${period.label} not sent to ${unfinished.map((o) => o.channel).join(', ')}; will retry`,
        );
      }
      return outcomes;
    },
    { ...options, concurrency: 1 },
  );
  worker.on('error', (err) => deps.logger.error({ err: err.message }, 'digest worker error'));
  const overdue = overdueDigest(deps, new Date());
  if (overdue) {
    deps.logger.info(`the digest for ${overdue.label} was not sent at its time: sending it now`);
    await queue.add(
      DIGEST_JOB,
      {},
      { ...DIGEST_JOB_OPTIONS, jobId: `catch-up-${periodKey(overdue).replace(/[:.+]/g, '-')}` },
    );
  }
  return {
    queue,
    worker,
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
