import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import { handleOfSchedulerId, POLL_JOB, type PollJobData, pollSchedulerId } from './names.js';
import { pollJobOptions, type RetryPolicy } from './poll-worker.js';

/** The sync takes well under a second; a lock left by a killed process frees itself after this. */
const LOCK_TTL_MS = 10_000;

/**
 * Deletes the lock only if it still holds our token, in one step: a GET then a DEL could delete a lock
 * that expired in between and was taken by another process.
 */
const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

export interface SchedulerSync {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: string[];
}

/**
 * Makes the poll queue's job schedulers match the config in one step: upsert what is new or changed,
 * remove what is stale. A Redis lock keeps two workers booting at once from racing (docs/stack-notes.md).
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
  const token = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  for (let tries = 0; (await redis.set(lock, token, 'PX', LOCK_TTL_MS, 'NX')) !== 'OK'; tries++) {
    if (tries === 0) {
      const ttl = await redis.pttl(lock);
      logger.info(
        `waiting for the poll schedule lock: another reviewwatch is syncing, or one that was killed left it (free in ${Math.ceil(Math.max(ttl, 0) / 1000)}s at most)`,
      );
    }
    if (tries > (LOCK_TTL_MS / 200) * 2)
      throw new Error('could not take the poll schedule lock: another reviewwatch holds it');
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
    // Upsert every time, changed or not: a worker killed between taking a scheduled job and scheduling
    // the next one leaves a scheduler with no next job, and only an upsert puts it back.
    for (const handle of handles) {
      const every = existing.get(handle);
      await queue.upsertJobScheduler(
        pollSchedulerId(handle),
        { every: everyMs },
        { name: POLL_JOB, data: { handle }, opts: pollJobOptions(retry) },
      );
      if (!existing.has(handle)) sync.added.push(handle);
      else if (every !== everyMs) sync.updated.push(handle);
      else sync.unchanged.push(handle);
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
    // Only our own lock: if it expired and another process took it, it is theirs.
    await releaseLock(redis, lock, token);
  }
}

/** Deletes `key` if it holds `token`; returns whether it did. */
export async function releaseLock(redis: Redis, key: string, token: string): Promise<boolean> {
  return (await redis.eval(RELEASE_LOCK, 1, key, token)) === 1;
}
