import type { Redis } from 'ioredis';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { nothingPollingReason, readWorkers, scheduledPolling } from '../queue/heartbeat.js';
import { withTimeout } from '../util/timeout.js';

/** The worker's schedules in Redis, once scheduling has started (queue/upkeep.ts). */
export interface ScheduleWatch {
  /** Whether Redis holds them: false after a FLUSHALL until they are put back. */
  present(): Promise<boolean>;
  /** Puts them back now rather than at the next upkeep tick. */
  restore(): void;
}

/** How long readiness waits for Redis to say whether the schedules are there. */
const SCHEDULES_TIMEOUT_MS = 1_000;
/** Probes come every few seconds: a restore that keeps failing is retried this often, not at each. */
const RESTORE_EVERY_MS = 10_000;

export interface PollingVerdict {
  ok: boolean;
  /** Why not, in words for `status` and /readyz: "paused: …" or "no poll finished in …". */
  reason?: string;
}

/**
 * Whether polling is alive: a watchdog over the poll worker. Redis and SQLite answering is not enough: a
 * worker whose schedules vanished, or that paused on a rejected key, answers every probe and watches
 * nothing. Unhealthy when polling is paused, or when no poll finished within twice the interval at which
 * one is due: `poll.every` under `fixed`, the shortest planned interval under `adaptive` and `budget` (the
 * app polled most often must have finished a poll by then, so polls as a whole have not).
 */
export class PollingHealth {
  #stallMs: number;
  readonly #logger: Logger;
  readonly #now: () => number;
  #lastFinished: number;
  #paused: string | undefined;
  #wasOk = true;
  #schedules: ScheduleWatch | undefined;
  #restoredAt = Number.NEGATIVE_INFINITY;

  constructor(options: { expectedEveryMs: number; logger: Logger; now?: () => number }) {
    this.#stallMs = 2 * options.expectedEveryMs;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    // A worker that just started has not stalled: it is given one full allowance from now.
    this.#lastFinished = this.#now();
  }

  /**
   * A new plan changed how often a poll is due. When that is sooner than before, the wait so far is
   * judged afresh from now (the rescheduled polls are only just due), unless polling had already stalled
   * by the old measure: a re-plan must not make a stall look alive.
   */
  setExpectedEvery(ms: number): void {
    const stallMs = 2 * ms;
    const now = this.#now();
    if (stallMs < this.#stallMs && now - this.#lastFinished <= this.#stallMs) this.#lastFinished = now;
    this.#stallMs = stallMs;
  }

  /** A poll finished (with news or without, or recorded as failed): polling is alive. */
  pollFinished(): void {
    this.#lastFinished = this.#now();
  }

  pause(reason: string): void {
    this.#paused = reason;
    this.verdict();
  }

  get paused(): string | undefined {
    return this.#paused;
  }

  /** From now on, readiness also asks whether Redis still holds the schedules. */
  watchSchedules(watch: ScheduleWatch): void {
    this.#schedules = watch;
  }

  /**
   * The verdict for /readyz: also not ready while Redis has lost the schedules (a flush: polls stopped
   * until the upkeep's next tick, up to 30 s), which the probe then has put back at once. When Redis does
   * not answer, its own check fails /readyz and says so; this one gives the watchdog's verdict.
   */
  async readiness(): Promise<PollingVerdict> {
    const watch = this.#schedules;
    if (watch && !(await withTimeout(watch.present(), SCHEDULES_TIMEOUT_MS).catch(() => true))) {
      if (this.#now() - this.#restoredAt >= RESTORE_EVERY_MS) {
        this.#restoredAt = this.#now();
        watch.restore();
      }
      return {
        ok: false,
        reason:
          'not scheduled: Redis lost the poll schedules (flushed, or restarted empty); putting them back',
      };
    }
    return this.verdict();
  }

  /** The current verdict; logs one line when it changes, not one per probe. */
  verdict(): PollingVerdict {
    const idle = this.#now() - this.#lastFinished;
    const verdict: PollingVerdict = this.#paused
      ? { ok: false, reason: `paused: ${this.#paused}` }
      : idle > this.#stallMs
        ? {
            ok: false,
            reason: `no poll finished in ${Math.round(idle / 1000)}s (expected one at least every ${Math.round(this.#stallMs / 1000)}s)`,
          }
        : { ok: true };
    if (verdict.ok !== this.#wasOk) {
      if (verdict.ok) this.#logger.info('polling is alive again: a poll finished');
      else this.#logger.error(`polling is not alive: ${verdict.reason}`);
      this.#wasOk = verdict.ok;
    }
    return verdict;
  }
}

/**
 * Whether some `reviewwatch start` polls, for a process that polls nothing itself (`serve`), from the
 * workers' heartbeats in Redis (queue/heartbeat.ts). Beside a `start` whose own server is off, the
 * /readyz of `serve` is the only one there is: a `start` killed with SIGKILL must not leave it saying ok.
 */
export class WorkersHealth {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  #wasOk: boolean | undefined;

  constructor(options: { redis: Redis; prefix: string; logger: Logger; timeoutMs?: number }) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#logger = options.logger;
    this.#timeoutMs = options.timeoutMs ?? 1_000;
  }

  /** The current verdict; logs one line when it changes, not one per probe. */
  async verdict(): Promise<PollingVerdict> {
    let verdict: PollingVerdict;
    try {
      const workers = await withTimeout(readWorkers(this.#redis, this.#prefix), this.#timeoutMs);
      verdict = scheduledPolling(workers)
        ? { ok: true }
        : { ok: false, reason: `nothing is polling: ${nothingPollingReason(workers, this.#prefix)}` };
    } catch (err) {
      // Redis is what fails /readyz then, and says so: this check cannot tell either way.
      return { ok: false, reason: `unknown: ${errorMessage(err)}` };
    }
    if (verdict.ok !== this.#wasOk) {
      if (verdict.ok) this.#logger.info('a `reviewwatch start` is polling');
      else this.#logger.warn(verdict.reason ?? 'nothing is polling');
      this.#wasOk = verdict.ok;
    }
    return verdict;
  }
}
