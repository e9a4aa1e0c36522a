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
