import {
  type ConnectionOptions,
  DelayedError,
  type Job,
  type JobsOptions,
  type Queue,
  UnrecoverableError,
  Worker,
} from 'bullmq';
import { GROUP_SIZE } from '../alerts/raise.js';
import type { Notification, ReviewAlert } from '../alerts/types.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { DeliveryError } from '../notify/errors.js';
import type { ChannelSender } from '../notify/sender.js';
import type { Metrics } from '../ops/metrics.js';
import type { Store } from '../store/db.js';
import {
  type DeliveryWithAlert,
  deliveriesWithAlerts,
  flushJobId,
  heldDeliveryIds,
  hold,
  markAttemptFailed,
  markSent,
  messagesSentSince,
  type OutboxMessage,
  oldestSentSince,
  setGroupKey,
  undeliveredMessages,
} from '../store/outbox.js';
import { NOTIFY_JOB, NOTIFY_QUEUE, type NotifyJobData, SWEEP_JOB } from './names.js';

export interface NotifyResult {
  status: 'sent' | 'held' | 'skipped' | 'swept';
  deliveries: number;
}

export const NOTIFY_ATTEMPTS = 8;

export function notifyJobOptions(): JobsOptions {
  return {
    attempts: NOTIFY_ATTEMPTS,
    backoff: { type: 'exponential', delay: 2_000, jitter: 0.5 },
    // SQLite keeps the record of every delivery; a finished job lingering in Redis would only turn the
    // next message under its id (a retry, a sweep, a later flush) into a no-op.
    removeOnComplete: true,
    removeOnFail: true,
  };
}

/** Adds outbox messages to the notify queue; job ids make a message already queued a no-op. */
export async function enqueueMessages(queue: Queue<NotifyJobData>, messages: OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  await queue.addBulk(
    messages.map((message) => ({
      name: NOTIFY_JOB,
      data: message.flush ? { deliveryIds: [], flush: message.flush } : { deliveryIds: message.deliveryIds },
      opts: { ...notifyJobOptions(), jobId: message.jobId },
    })),
  );
}

export interface NotifyWorkerOptions {
  connection: ConnectionOptions;
  prefix: string;
  queue: Queue<NotifyJobData>;
  store: Store;
  senders: ReadonlyMap<string, ChannelSender>;
  throttle: { max: number; windowMs: number };
  concurrency?: number;
  logger: Logger;
  now?: () => Date;
  /** Counts deliveries by channel and outcome. */
  metrics?: Metrics;
}

/**
 * Delivers outbox messages. SQLite is the truth: a job whose deliveries are already sent does nothing,
 * so a job that runs twice (a crash, a flushed Redis, a sweep) sends once. The one window left: a crash
 * after the channel accepted a message and before it was marked sent.
 */
export function createNotifyWorker(options: NotifyWorkerOptions): Worker<NotifyJobData, NotifyResult> {
  const { store, logger } = options;
  const now = options.now ?? (() => new Date());
  return new Worker<NotifyJobData, NotifyResult>(
    NOTIFY_QUEUE,
    async (job, token) => {
      if (job.name === SWEEP_JOB) {
        const messages = undeliveredMessages(store.db);
        await enqueueMessages(options.queue, messages);
        return { status: 'swept', deliveries: messages.length };
      }
      const flush = job.data.flush;
      const ids = flush ? heldDeliveryIds(store.db, flush.channel, flush.app) : job.data.deliveryIds;
      const deliveries = deliveriesWithAlerts(store.db, ids).filter(
        (d) => d.status === 'pending' || (flush !== undefined && d.status === 'held'),
      );
      const first = deliveries[0];
      if (!first) return { status: 'skipped', deliveries: 0 };
      // A flush is one message to the throttle, however many held alerts it carries.
      if (flush)
        setGroupKey(
          store.db,
          deliveries.map((d) => d.id),
          `flush-${job.id}-${job.timestamp}`,
        );
      const sender = options.senders.get(first.channel);
      const pendingIds = deliveries.map((d) => d.id);
      if (!sender) {
        options.metrics?.notification(first.channel, 'failed', pendingIds.length);
        markAttemptFailed(
          store.db,
          pendingIds,
          `channel "${first.channel}" is no longer in the config`,
          true,
        );
        throw new UnrecoverableError(`channel "${first.channel}" is no longer in the config`);
      }

      const wait = throttleWait(options, first, now());
      if (wait !== undefined) {
        if (flush) {
          await job.moveToDelayed(Date.now() + wait, token);
          throw new DelayedError();
        }
        hold(store.db, pendingIds);
        options.metrics?.notification(first.channel, 'held', pendingIds.length);
        await options.queue.add(
          NOTIFY_JOB,
          { deliveryIds: [], flush: { channel: first.channel, app: first.appHandle } },
          { ...notifyJobOptions(), jobId: flushJobId(first.channel, first.appHandle), delay: wait },
        );
        logger.info(
          { channel: first.channel, app: first.appHandle, held: pendingIds.length, inMs: wait },
          `throttled: ${pendingIds.length} alert(s) of ${first.appHandle} wait for the next grouped message on "${first.channel}"`,
        );
        return { status: 'held', deliveries: pendingIds.length };
      }

      const sentIds = new Set<number>();
      try {
        for (const chunk of notificationsOf(deliveries)) {
          await sender.send(chunk.notification);
          markSent(store.db, chunk.ids, now());
          for (const id of chunk.ids) sentIds.add(id);
        }
      } catch (err) {
        const sent = sentIds.size;
        options.metrics?.notification(first.channel, 'sent', sent);
        // Only what did not go out: a message sent before the failing one stays sent.
        const unsent = deliveries.filter((d) => !sentIds.has(d.id));
        await failed(job, token, err, unsent, logger, store, (outcome) =>
          options.metrics?.notification(first.channel, outcome, unsent.length),
        );
      }
      const sent = sentIds.size;
      options.metrics?.notification(first.channel, 'sent', sent);
      logger.info(
        { channel: first.channel, app: first.appHandle, deliveries: deliveries.length },
        `delivered ${deliveries.length} alert(s) of ${first.appHandle} to "${first.channel}"`,
      );
      return { status: 'sent', deliveries: deliveries.length };
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency ?? 4,
      // A job whose worker died mid-send is handed to another after the lock lapses: keep that short
      // (the lock is renewed every 5 s while a send is in flight).
      lockDuration: 10_000,
      stalledInterval: 10_000,
      autorun: false,
    },
  );
}

/** How long until another message about this app may go to this channel, or undefined if it may now. */
function throttleWait(
  options: NotifyWorkerOptions,
  delivery: DeliveryWithAlert,
  at: Date,
): number | undefined {
  const { max, windowMs } = options.throttle;
  const since = new Date(at.getTime() - windowMs);
  if (messagesSentSince(options.store.db, delivery.channel, delivery.appHandle, since) < max)
    return undefined;
  const oldest = oldestSentSince(options.store.db, delivery.channel, delivery.appHandle, since);
  return Math.max(1_000, (oldest ? oldest.getTime() + windowMs : at.getTime() + windowMs) - at.getTime());
}

/** One message for a single delivery; a group of review alerts otherwise, other kinds on their own. */
function notificationsOf(
  deliveries: DeliveryWithAlert[],
): Array<{ notification: Notification; ids: number[] }> {
  const reviews = deliveries.filter(
    (d): d is DeliveryWithAlert & { alert: ReviewAlert } => d.alert.kind === 'review',
  );
  const out: Array<{ notification: Notification; ids: number[] }> = [];
  // A group never holds more than GROUP_SIZE reviews: more would not fit Slack's limits, and a review
  // left out of a message must not be marked sent with it.
  for (let i = 0; i < reviews.length; i += GROUP_SIZE) {
    const chunk = reviews.slice(i, i + GROUP_SIZE);
    const [single] = chunk;
    if (chunk.length === 1 && single) {
      out.push({ notification: { kind: 'single', alert: single.alert }, ids: [single.id] });
    } else if (single) {
      out.push({
        notification: { kind: 'group', app: single.alert.app, alerts: chunk.map((d) => d.alert) },
        ids: chunk.map((d) => d.id),
      });
    }
  }
  for (const d of deliveries) {
    if (d.alert.kind !== 'review')
      out.push({ notification: { kind: 'single', alert: d.alert }, ids: [d.id] });
  }
  return out;
}

async function failed(
  job: Job<NotifyJobData>,
  token: string | undefined,
  err: unknown,
  deliveries: DeliveryWithAlert[],
  logger: Logger,
  store: Store,
  count: (outcome: 'failed' | 'retried') => void,
): Promise<never> {
  const ids = deliveries.map((d) => d.id);
  const message = errorMessage(err);
  if (err instanceof DeliveryError && err.retryAfterMs !== undefined) {
    logger.warn(
      { channel: err.channel, waitMs: err.retryAfterMs },
      `${message}: waiting as the channel asked`,
    );
    count('retried');
    await job.moveToDelayed(Date.now() + err.retryAfterMs, token);
    throw new DelayedError();
  }
  const permanent = err instanceof DeliveryError && err.permanent;
  const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  markAttemptFailed(
    store.db,
    ids,
    last && !permanent ? `${message} (gave up after ${job.attemptsMade + 1} attempts)` : message,
    permanent || last,
  );
  count(permanent || last ? 'failed' : 'retried');
  if (permanent || last) {
    logger.error(
      { deliveries: ids.length },
      `delivery failed for good: ${message}; \`reviewwatch notify retry\` sends it again`,
    );
    throw new UnrecoverableError(message);
  }
  logger.warn({ attempt: job.attemptsMade + 1 }, `delivery failed, will retry: ${message}`);
  throw err;
}
