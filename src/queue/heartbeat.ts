import type { Redis } from 'ioredis';
import { fmtDuration } from '../schedule/index.js';
import { processAlive, processScope } from '../util/process-id.js';
import { withTimeout } from '../util/timeout.js';
import { workersKey } from './names.js';

/**
 * Whether anything is polling, as another process can tell: each process that takes poll jobs says so in
 * Redis every few seconds (a heartbeat), on Redis's clock so that hosts with different clocks agree. A
 * process killed with SIGKILL cannot say goodbye, and its job schedulers stay behind in Redis looking
 * busy; its heartbeat stops, which any reader on any host notices within `SILENT_AFTER_BEATS` beats. A
 * reader that shares its pid namespace (its host, or its container) can also ask whether the pid is
 * still alive, and knows at once. Neither the job schedulers (they outlive the process) nor BullMQ's
 * worker list (CLIENT LIST, which some managed Redis services refuse) can tell this.
 */

/** How often a process beats. */
export const BEAT_EVERY_MS = 5_000;

/** A process whose last beat is older than this many of its beats is not polling. */
export const SILENT_AFTER_BEATS = 3;

/** How long a stop waits to take this process off the list; past it, the list sees it go silent. */
const STOP_TIMEOUT_MS = 1_000;

/** How long a silent process stays listed, so that `status` can say which one stopped and when. */
export const FORGET_AFTER_MS = 86_400_000;

export interface Beat {
  /** `<hostname>:<pid>` (util/process-id.ts), as `apps.last_poll_by` records it. */
  id: string;
  pid: number;
  /** Where its pid can be checked from (`processScope`). */
  scope: string;
  /** `service` polls on schedule (`start`); `once` is a one-shot run (`poll --once`). */
  mode: 'service' | 'once';
  /** How often it beats; a reader judges silence by the writer's own pace. */
  everyMs: number;
}

export interface SeenWorker extends Beat {
  /** How long ago it last beat, on Redis's clock. */
  sinceBeatMs: number;
  /**
   * `live`: beating. `exited`: its pid no longer exists (judged only from its own scope). `silent`: no
   * beat for `SILENT_AFTER_BEATS` beats: dead on another host, or stuck.
   */
  state: 'live' | 'exited' | 'silent';
}

/** Where a reader stands: its scope, and how it checks a pid there. */
export interface Vantage {
  scope: string;
  alive(pid: number): boolean;
}

const THIS_PROCESS: Vantage = {
  get scope() {
    return processScope();
  },
  alive: processAlive,
};

/** Adds or refreshes this process (ARGV[1]) at Redis's time; drops the ones silent past ARGV[2] ms. */
const BEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return now
`;

export interface Heartbeat {
  /** Beats now, not at the next interval: after a flush took this process off the list, say. */
  beat(): Promise<void>;
  /** Stops beating and takes this process off the list: a stopped process polls nothing. */
  stop(): Promise<void>;
}

/**
 * Beats for this process every `beat.everyMs` while `beating()` (its poll worker runs), the first time
 * before it returns. A beat that fails (Redis away) is skipped: the process looks silent, as it must,
 * since nothing it polls can be enqueued or recorded meanwhile.
 */
export async function startHeartbeat(options: {
  redis: Redis;
  prefix: string;
  beat: Beat;
  beating: () => boolean;
}): Promise<Heartbeat> {
  const { redis, beat } = options;
  const key = workersKey(options.prefix);
  const member = JSON.stringify(beat);
  // Commands to a reconnecting client wait for it (maxRetriesPerRequest: null): one beat at a time, and
  // none of them may hold up a start or a stop.
  let pending: Promise<unknown> | undefined;
  const once = () => {
    if (pending || !options.beating()) return pending;
    pending = withTimeout(redis.eval(BEAT, 1, key, member, FORGET_AFTER_MS), beat.everyMs)
      .catch(() => undefined)
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };
  await once();
  const timer = setInterval(() => void once(), beat.everyMs);
  timer.unref();
  return {
    async beat() {
      await once();
    },
    async stop() {
      clearInterval(timer);
      await withTimeout(redis.zrem(key, member), STOP_TIMEOUT_MS).catch(() => undefined);
    },
  };
}

/** This process's beat. */
export function beatOf(id: string, mode: Beat['mode']): Beat {
  return { id, pid: process.pid, scope: processScope(), mode, everyMs: BEAT_EVERY_MS };
}

/** Every process that beat within `FORGET_AFTER_MS`, the latest first, judged from this process. */
export async function readWorkers(
  redis: Redis,
  prefix: string,
  vantage = THIS_PROCESS,
): Promise<SeenWorker[]> {
  // Redis's clock first: a beat landing between the two reads then counts as just made, not as future.
  const [seconds, micros] = await redis.time();
  const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const flat = await redis.zrange(workersKey(prefix), 0, '-1', 'WITHSCORES');
  const entries: Array<{ member: string; at: number }> = [];
  for (let i = 0; i + 1 < flat.length; i += 2)
    entries.push({ member: flat[i] as string, at: Number(flat[i + 1]) });
  return judgeWorkers(entries, now, vantage);
}

/** The state of each listed process at `now` (Redis's clock), the latest beat first. Pure. */
export function judgeWorkers(
  entries: ReadonlyArray<{ member: string; at: number }>,
  now: number,
  vantage: Vantage,
): SeenWorker[] {
  const seen: SeenWorker[] = [];
  for (const { member, at } of entries) {
    const beat = parseBeat(member);
    if (!beat) continue;
    const sinceBeatMs = Math.max(0, now - at);
    const state =
      beat.scope === vantage.scope && !vantage.alive(beat.pid)
        ? 'exited'
        : sinceBeatMs > SILENT_AFTER_BEATS * beat.everyMs
          ? 'silent'
          : 'live';
    seen.push({ ...beat, sinceBeatMs, state });
  }
  return seen.sort((a, b) => a.sinceBeatMs - b.sinceBeatMs);
}

function parseBeat(member: string): Beat | undefined {
  try {
    const b = JSON.parse(member) as Partial<Beat>;
    const valid =
      typeof b.id === 'string' &&
      typeof b.pid === 'number' &&
      typeof b.scope === 'string' &&
      (b.mode === 'service' || b.mode === 'once') &&
      typeof b.everyMs === 'number' &&
      b.everyMs > 0;
    return valid ? (b as Beat) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a `start` polls on schedule: one of them beats. */
export function scheduledPolling(workers: readonly SeenWorker[]): boolean {
  return workers.some((w) => w.mode === 'service' && w.state === 'live');
}

/**
 * Why nothing polls on schedule, in words for `status` and /readyz: "the last `reviewwatch start`,
 * web-1:4242, exited (its last beat 42s ago)".
 */
export function nothingPollingReason(workers: readonly SeenWorker[], prefix: string): string {
  const last = workers.find((w) => w.mode === 'service');
  if (!last) return `no \`reviewwatch start\` reports to this Redis under queue prefix "${prefix}"`;
  const since = fmtDuration(Math.round(last.sinceBeatMs / 1000) * 1000);
  return last.state === 'exited'
    ? `the last \`reviewwatch start\`, ${last.id}, exited (its last beat ${since} ago)`
    : `the last \`reviewwatch start\`, ${last.id}, has not reported for ${since} (killed, its host down, or stuck)`;
}
