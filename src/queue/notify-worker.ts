import {
  type ConnectionOptions,
  DelayedError,
  type JobsOptions,
  type Queue,
  UnrecoverableError,
  Worker,
} from 'bullmq';
import { messagesOf, type OutboxMessage } from '../alerts/messages.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { deliver } from '../notify/deliver.js';
import type { ChannelSender } from '../notify/sender.js';
import type { Throttle } from '../notify/throttle.js';
import type { Metrics } from '../ops/metrics.js';
import type { Store } from '../store/db.js';
import { heldDeliveryIds, undeliveredDeliveries } from '../store/outbox.js';
import { NOTIFY_JOB, NOTIFY_QUEUE, type NotifyJobData, notifyJobId, SWEEP_JOB } from './names.js';

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

/** The notify job of an outbox message; its job id makes a message already queued a no-op. */
function jobOf(message: OutboxMessage, delayMs = 0) {
  return {
    name: NOTIFY_JOB,
    data:
      message.kind === 'flush'
        ? { deliveryIds: [], flush: { channel: message.channel, app: message.app } }
        : { deliveryIds: message.deliveryIds },
    opts: { ...notifyJobOptions(), jobId: notifyJobId(message), delay: delayMs },
  };
}

/** Adds outbox messages to the notify queue. */
export async function enqueueMessages(queue: Queue<NotifyJobData>, messages: OutboxMessage[]): Promise<void> {
  if (messages.length === 0) return;
  await queue.addBulk(messages.map((message) => jobOf(message)));
}

/** Enqueues the flush of what the throttle holds for a channel and app, unless one is queued already. */
async function enqueueFlush(
  queue: Queue<NotifyJobData>,
  flush: { channel: string; app: string },
  delayMs = 0,
): Promise<void> {
  const job = jobOf({ kind: 'flush', channel: flush.channel, app: flush.app, deliveryIds: [] }, delayMs);
  await queue.add(job.name, job.data, job.opts);
}

/** Enqueues whatever the outbox still owes (pending, or held by a throttle); returns how many deliveries. */
export async function enqueueUndelivered(queue: Queue<NotifyJobData>, store: Store): Promise<number> {
  const rows = undeliveredDeliveries(store.db);
  await enqueueMessages(queue, messagesOf(rows));
  return rows.length;
}

export interface NotifyWorkerOptions {
  connection: ConnectionOptions;
  prefix: string;
  queue: Queue<NotifyJobData>;
  store: Store;
  senders: ReadonlyMap<string, ChannelSender>;
  throttle: Throttle;
  concurrency?: number;
  logger: Logger;
  now?: () => Date;
  /** Counts deliveries by channel and outcome. */
  metrics?: Metrics;
}

/**
 * Runs notify jobs: each delivers one outbox message (notify/deliver.ts) and turns the outcome into
 * BullMQ's terms: a hold becomes a delayed flush job, a wait a delayed retry, a final failure an
 * unrecoverable one. The sweep job re-enqueues what the outbox still owes.
 */
export function createNotifyWorker(options: NotifyWorkerOptions): Worker<NotifyJobData, NotifyResult> {
  const { store, logger, metrics } = options;
  const deps = {
    store,
    senders: options.senders,
    throttle: options.throttle,
    logger,
    now: options.now ?? (() => new Date()),
    ...(metrics ? { count: metrics.notification.bind(metrics) } : {}),
  };
  const worker = new Worker<NotifyJobData, NotifyResult>(
    NOTIFY_QUEUE,
    async (job, token) => {
      if (job.name === SWEEP_JOB) {
        return { status: 'swept', deliveries: await enqueueUndelivered(options.queue, store) };
      }
      const flush = job.data.flush;
      const outcome = await deliver(
        deps,
        flush
          ? { flush: { ...flush, id: `${job.id}-${job.timestamp}` } }
          : { deliveryIds: job.data.deliveryIds },
        {
          number: job.attemptsMade + 1,
          last: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
          started: job.attemptsStarted,
        },
      );
      switch (outcome.status) {
        case 'skipped':
          return { status: 'skipped', deliveries: 0 };
        case 'sent':
          return { status: 'sent', deliveries: outcome.deliveries };
        case 'held':
          await enqueueFlush(options.queue, outcome, outcome.waitMs);
          return { status: 'held', deliveries: outcome.deliveries };
        case 'wait':
          await job.moveToDelayed(Date.now() + outcome.waitMs, token);
          throw new DelayedError();
        case 'failed':
          if (outcome.final) throw new UnrecoverableError(outcome.error);
          throw new Error(outcome.error);
      }
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
  // While a flush is queued, sending or waiting to retry, an alert the throttle holds cannot enqueue one
  // (BullMQ ignores an add under a queued job id), and a flush retried sends only what it sent first. So
  // once a flush is done, what was held meanwhile gets its own flush now, not at the next sweep.
  const flushHeldSince = async (flush: { channel: string; app: string }) => {
    if (heldDeliveryIds(store.db, flush.channel, flush.app).length > 0)
      await enqueueFlush(options.queue, flush);
  };
  worker.on('completed', (job, result) => {
    const { flush } = job.data;
    if (flush === undefined || result.status !== 'sent') return;
    flushHeldSince(flush).catch((err: unknown) => {
      logger.warn(
        { channel: flush.channel, app: flush.app },
        `could not enqueue the flush of alerts held during the last one (${errorMessage(err)}); the sweep will`,
      );
    });
  });
  return worker;
}
