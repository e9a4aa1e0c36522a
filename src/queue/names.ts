export const POLL_QUEUE = 'poll';
export const POLL_JOB = 'poll';

export interface PollJobData {
  handle: string;
}

/** Scheduler ids derive from the handle; handles hold no `:` so they are valid BullMQ ids. */
export function pollSchedulerId(handle: string): string {
  return `poll-${handle}`;
}

export function handleOfSchedulerId(id: string): string | undefined {
  return id.startsWith('poll-') ? id.slice('poll-'.length) : undefined;
}

export const NOTIFY_QUEUE = 'notify';
export const NOTIFY_JOB = 'deliver';
export const SWEEP_JOB = 'sweep';

export interface NotifyJobData {
  /** The deliveries this message carries; a flush of held deliveries finds them when it runs. */
  deliveryIds: number[];
  /** Set on a flush of the deliveries a throttle held back for one app on one channel. */
  flush?: { channel: string; app: string };
}
