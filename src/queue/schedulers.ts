import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import { handleOfSchedulerId, POLL_JOB, type PollJobData, pollSchedulerId } from './names.js';
import { pollJobOptions, type RetryPolicy } from './poll-worker.js';

export interface SchedulerSync {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: string[];
}

/**
 * Makes the poll queue's job schedulers match the config in one step: upsert what is new or changed,
 * remove what is stale. A Redis lock keeps two workers booting at once from racing (STACK-NOTES.md).
 */
export async function syncPollSchedulers(
  queue: Queue<PollJobData>,
  redis: Redis,
  handles: string[],
  everyMs: number,
  retry: RetryPolicy,
  logger: Logger,
): Promise<SchedulerSync> {
  const lock = `${queue.opts.prefix ?? 'bull'}:${queue.name}:scheduler-sync-lock`;
  for (let tries = 0; (await redis.set(lock, String(process.pid), 'PX', 30_000, 'NX')) !== 'OK'; tries++) {
    if (tries > 150) throw new Error('another reviewwatch process holds the scheduler lock for over 30 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  try {
    const existing = new Map<string, number | undefined>();
    for (const scheduler of await queue.getJobSchedulers(0, -1)) {
      const handle = handleOfSchedulerId(scheduler.key);
      if (handle !== undefined) existing.set(handle, scheduler.every);
    }
    const sync: SchedulerSync = { added: [], updated: [], removed: [], unchanged: [] };
    const wanted = new Set(handles);
    for (const handle of handles) {
      const every = existing.get(handle);
      if (existing.has(handle) && every === everyMs) {
        sync.unchanged.push(handle);
        continue;
      }
      await queue.upsertJobScheduler(
        pollSchedulerId(handle),
        { every: everyMs },
        { name: POLL_JOB, data: { handle }, opts: pollJobOptions(retry) },
      );
      (existing.has(handle) ? sync.updated : sync.added).push(handle);
    }
    for (const handle of existing.keys()) {
      if (wanted.has(handle)) continue;
      await queue.removeJobScheduler(pollSchedulerId(handle));
      sync.removed.push(handle);
    }
    if (sync.added.length + sync.updated.length + sync.removed.length > 0) {
      logger.info(
        { added: sync.added.length, updated: sync.updated.length, removed: sync.removed.length },
        `poll schedules: ${sync.added.length} added, ${sync.updated.length} updated, ${sync.removed.length} removed`,
      );
    }
    return sync;
  } finally {
    await redis.del(lock);
  }
}
