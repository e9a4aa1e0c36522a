import type { JobsOptions, Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import { intervalChanged } from '../schedule/policy.js';
import { refreshLock, releaseLock } from './app-lock.js';
import { handleOfSchedulerId, POLL_JOB, type PollJobData, pollSchedulerId } from './names.js';
import { pollJobOptions, type RetryPolicy } from './poll-worker.js';

/**
 * A cron job scheduler put in place in its time zone, or removed when `cron` is undefined (the feature
 * is off). Idempotent: safe to call again whenever Redis may have lost it.
 */
export async function syncCronScheduler(
  queue: Queue,
  id: string,
  cron: { pattern: string; tz: string } | undefined,
  job: { name: string; opts: JobsOptions },
): Promise<void> {
  if (cron) await queue.upsertJobScheduler(id, cron, job);
  else await queue.removeJobScheduler(id);
}

/** The sync takes well under a second; a lock left by a killed process frees itself after this. */
const LOCK_TTL_MS = 10_000;

/** Scheduler writes between two refreshes of the lock during a long sync. */
const LOCK_REFRESH_EVERY = 500;

export interface SchedulerSync {
  added: string[];
  updated: string[];
  removed: string[];
  unchanged: string[];
  /** Schedulers found without their next poll, given one again. */
  repaired: string[];
  /** Queued polls of a scheduler that were not its next one, removed. */
  strays: number;
  /** The interval each app's scheduler has now, whether this sync changed it or kept it. */
  inForce: Map<string, number>;
}

/** The interval wanted for one app's polls. */
export interface PollInterval {
  handle: string;
  everyMs: number;
}

export interface SyncOptions {
  /**
   * A scheduler whose interval is within this fraction of the wanted one keeps it (and its next poll):
   * re-planned rates move a little every time, and rewriting thousands of schedulers for it buys nothing
   * (schedule/policy.ts, intervalChanged). 0, the default, applies every change.
   */
  tolerance?: number;
  /**
   * When each app's last poll finished (epoch ms). A changed interval counts from it, so the next poll
   * comes one new interval after the last one (or at once, if that is past), not a whole interval from
   * now; an app never polled is polled at once.
   */
  lastPolledAt?: ReadonlyMap<string, number>;
  now?: number;
  /**
   * Upsert the schedulers that keep their interval too (the default). That gives back the next poll of a
   * scheduler a kill left without one, so starts do it; periodic re-plans need only write what changed.
   */
  rewriteUnchanged?: boolean;
}

/**
 * Makes the poll queue's job schedulers match the wanted intervals in one step: upsert what is new or
 * changed, remove what is stale. A Redis lock keeps two workers booting at once from racing
 * (docs/stack-notes.md).
 */
export async function syncPollSchedulers(
  queue: Queue<PollJobData>,
  redis: Redis,
  intervals: readonly PollInterval[],
  retry: RetryPolicy,
  logger: Logger,
  options: SyncOptions = {},
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
    // What is queued is read before the schedulers: a scheduler's next poll only moves on between the two.
    const queued = await queuedPolls(queue);
    const existing = new Map<string, { every: number | undefined; next: number | undefined }>();
    for (const scheduler of await queue.getJobSchedulers(0, -1)) {
      const handle = handleOfSchedulerId(scheduler.key);
      if (handle !== undefined) existing.set(handle, { every: scheduler.every, next: scheduler.next });
    }
    const orphans = await orphanedSchedulers(queue, existing, queued);
    const sync: SchedulerSync = {
      added: [],
      updated: [],
      removed: [],
      unchanged: [],
      repaired: [],
      strays: await removeStrays(queue, queued.pending, existing),
      inForce: new Map(),
    };
    const wanted = new Set(intervals.map((i) => i.handle));
    const now = options.now ?? Date.now();
    let written = 0;
    for (const { handle, everyMs } of intervals) {
      const current = existing.get(handle)?.every;
      const keep = current !== undefined && !intervalChanged(current, everyMs, options.tolerance ?? 0);
      const every = keep ? current : everyMs;
      // A worker killed between taking a scheduled job and scheduling the next one leaves a scheduler with
      // no next job, and only an upsert puts it back: every sync looks, and a repair rewrites them all.
      const orphaned = orphans.has(handle);
      if (orphaned) sync.repaired.push(handle);
      if (!keep || orphaned || options.rewriteUnchanged !== false) {
        // A start date even for a kept interval: BullMQ ignores it while the interval is unchanged, and
        // if another process changed it meanwhile, the next poll still counts from the last one.
        await upsertPollScheduler(queue, handle, every, retry, startOf(handle, every, now, options));
        // Thousands of apps over a slow link can outlast the lock: keep it while it is ours.
        if (++written % LOCK_REFRESH_EVERY === 0) await refreshLock(redis, lock, token, LOCK_TTL_MS);
      }
      sync.inForce.set(handle, every);
      if (!existing.has(handle)) sync.added.push(handle);
      else if (keep) sync.unchanged.push(handle);
      else sync.updated.push(handle);
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
    if (sync.repaired.length + sync.strays > 0) {
      logger.warn(
        { repaired: sync.repaired.length, strays: sync.strays },
        `poll schedules repaired: ${sync.repaired.length} without their next poll given one, ${sync.strays} stray poll(s) removed (Redis lost part of its keys: is maxmemory-policy noeviction?)`,
      );
    }
    return sync;
  } finally {
    // Only our own lock: if it expired and another process took it, it is theirs.
    await releaseLock(redis, lock, token);
  }
}

/**
 * Sets one app's poll interval; its next poll comes at `startAt` (epoch ms; at once if past). BullMQ
 * keeps a scheduler's next poll when the interval is unchanged, and otherwise replaces it with one at
 * `startAt`, or at once without one.
 */
export async function upsertPollScheduler(
  queue: Queue<PollJobData>,
  handle: string,
  everyMs: number,
  retry: RetryPolicy,
  startAt?: number,
): Promise<void> {
  await queue.upsertJobScheduler(
    pollSchedulerId(handle),
    startAt === undefined ? { every: everyMs } : { every: everyMs, startDate: startAt },
    { name: POLL_JOB, data: { handle }, opts: pollJobOptions(retry) },
  );
}

/** BullMQ's id for the job a poll scheduler queues for `millis`. */
function schedulerJobId(handle: string, millis: number): string {
  return `repeat:${pollSchedulerId(handle)}:${millis}`;
}

const SCHEDULER_JOB = /^repeat:(.+):(\d+)$/;

/** The ids of the poll jobs queued (`pending`: not yet taken) or running, and whether one is either. */
async function queuedPolls(
  queue: Queue<PollJobData>,
): Promise<{ pending: string[]; has(id: string): boolean }> {
  const [pending, active] = await Promise.all([
    queue.getRanges(['delayed', 'waiting', 'prioritized'], 0, -1),
    queue.getRanges(['active'], 0, -1),
  ]);
  const all = new Set([...pending, ...active]);
  return { pending, has: (id) => all.has(id) };
}

/**
 * The apps whose scheduler's next poll is in no queue. One a worker made between reading the queues and
 * the schedulers is not missing: the queues are read again before saying so.
 */
async function orphanedSchedulers(
  queue: Queue<PollJobData>,
  schedulers: ReadonlyMap<string, { next: number | undefined }>,
  queued: { has(id: string): boolean },
): Promise<Set<string>> {
  const missing = (handle: string, ids: { has(id: string): boolean }) => {
    const next = schedulers.get(handle)?.next;
    return next !== undefined && !ids.has(schedulerJobId(handle, next));
  };
  const candidates = [...schedulers.keys()].filter((handle) => missing(handle, queued));
  if (candidates.length === 0) return new Set();
  const again = await queuedPolls(queue);
  return new Set(candidates.filter((handle) => missing(handle, again)));
}

/**
 * Removes the queued polls of a scheduler that are not its next one: a later one, or one whose scheduler
 * is gone. No FLUSHALL leaves them, but a Redis that evicted part of its keys can; left alone, each would
 * poll its app once more and, worse, stand where the scheduler puts its next poll, which it then never
 * does (BullMQ skips a slot that is taken), so the app would not be polled again.
 */
async function removeStrays(
  queue: Queue<PollJobData>,
  pending: readonly string[],
  schedulers: ReadonlyMap<string, { next: number | undefined }>,
): Promise<number> {
  let removed = 0;
  for (const id of pending) {
    const [, schedulerId = '', millis = ''] = SCHEDULER_JOB.exec(id) ?? [];
    const handle = handleOfSchedulerId(schedulerId);
    if (handle === undefined) continue;
    const scheduler = schedulers.get(handle);
    // Its next stays, and so does an earlier one: it polls once, and only the next schedules another.
    if (scheduler && (scheduler.next === undefined || Number(millis) <= scheduler.next)) continue;
    // 0 when a worker took it meanwhile: then it polls once.
    removed += await queue.remove(id);
  }
  return removed;
}

function startOf(handle: string, everyMs: number, now: number, options: SyncOptions): number {
  const last = options.lastPolledAt?.get(handle);
  return last === undefined ? now : Math.max(now, last + everyMs);
}
