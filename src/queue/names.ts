import type { OutboxMessage } from '../alerts/messages.js';

/**
 * Every queue, job, scheduler and job id reviewwatch puts in Redis, in one place: what the job ids are
 * made of is what makes a message or a poll enqueued twice a no-op.
 */

export const POLL_QUEUE = 'poll';
/**
 * One-shot runs (`poll --once`) poll through a queue of their own: the scheduled polls of a stopped
 * `start` waiting in POLL_QUEUE are `start`'s to run, not theirs (docs/architecture.md, "One-shot runs").
 */
export const ONCE_POLL_QUEUE = 'poll-once';
export const POLL_JOB = 'poll';

export interface PollJobData {
  handle: string;
  /**
   * Set by one-shot runs (epoch ms): while another poll of the app holds its lock, wait for it until then
   * and poll after it, instead of ending as skipped.
   */
  waitUntil?: number;
}

/** Scheduler ids derive from the handle; handles hold no `:` so they are valid BullMQ ids. */
export function pollSchedulerId(handle: string): string {
  return `poll-${handle}`;
}

export function handleOfSchedulerId(id: string): string | undefined {
  return id.startsWith('poll-') ? id.slice('poll-'.length) : undefined;
}

/** Set while polling is paused for a rejected key or no credits, with the reason: `status` reads it. */
export function pollPausedKey(prefix: string): string {
  return `${prefix}:poll-paused`;
}

/**
 * A sorted set of the processes that take poll jobs, each scored with when it last said so (Redis's
 * clock, epoch ms): `status` and `serve`'s /readyz read from it whether anything is polling (heartbeat.ts).
 */
export function workersKey(prefix: string): string {
  return `${prefix}:workers`;
}

export const NOTIFY_QUEUE = 'notify';
export const NOTIFY_JOB = 'deliver';
export const SWEEP_JOB = 'sweep';
export const SWEEP_SCHEDULER_ID = 'notify-sweep';

export interface NotifyJobData {
  /** The deliveries this message carries; a flush of held deliveries finds them when it runs. */
  deliveryIds: number[];
  /** Set on a flush of the deliveries a throttle held back for one app on one channel. */
  flush?: { channel: string; app: string };
}

/** The job id of a message, derived from the deliveries it carries: it is never enqueued twice. */
export function notifyJobId(message: OutboxMessage): string {
  switch (message.kind) {
    case 'single':
      return `delivery-${message.deliveryIds[0]}`;
    case 'group':
      return `group-${message.groupKey}`;
    case 'flush':
      return flushJobId(message.channel, message.app);
  }
}

/** The one message that flushes what a throttle held back for an app on a channel. */
export function flushJobId(channel: string, app: string): string {
  // `~` appears in neither a channel name nor a handle: no two pairs share an id.
  return `held~${channel}~${app}`;
}

export const DIGEST_QUEUE = 'digest';
export const DIGEST_JOB = 'weekly';
export const DIGEST_SCHEDULER_ID = 'weekly-digest';
