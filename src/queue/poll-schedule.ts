import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../ops/metrics.js';
import {
  afterPoll,
  fmtDuration,
  INTERVAL_TOLERANCE,
  intervalChanged,
  type Plan,
  type PlanEntry,
  planFromStore,
  scheduleSettings,
} from '../schedule/index.js';
import { lastPollTimes, recordIncident } from '../store/apps.js';
import type { Store } from '../store/db.js';
import type { PollJobData } from './names.js';
import type { PollJobResult, RetryPolicy } from './poll-worker.js';
import { syncPollSchedulers, upsertPollScheduler } from './schedulers.js';

/** How often the rates are re-read and the plan remade while nothing else asks for it. */
const REPLAN_EVERY_MS = 3_600_000;

/** A new app's baseline asks for a new plan (its pace is known now); plans come at most this often. */
const REPLAN_GAP_MS = 60_000;

export interface PollScheduleOptions {
  queue: Queue<PollJobData>;
  redis: Redis;
  store: Store;
  config: Config;
  retry: RetryPolicy;
  logger: Logger;
  metrics?: Metrics;
  /** After each plan, e.g. to give the watchdog its yardstick. */
  onPlan?: (plan: Plan) => void;
  replanEveryMs?: number;
  replanGapMs?: number;
  now?: () => number;
}

/**
 * The poll schedule of a running worker (`poll.schedule`): plans each app's interval from the store
 * (schedule/), keeps the job schedulers in Redis at those intervals, and tightens an own app's next
 * polls after an incident. Redis holds the intervals in force; SQLite and the config hold what they are
 * made from, so the plan is simply made again at start, whenever Redis comes back empty, every hour,
 * and soon after a new app's baseline. A crash or a flushed Redis costs at most one interval.
 */
export class PollSchedule {
  readonly #o: PollScheduleOptions;
  readonly #now: () => number;
  readonly #tolerance: number;
  #plan = new Map<string, PlanEntry>();
  #current: Plan | undefined;
  /** The interval each app's scheduler has, as this process last set or found it. */
  readonly #inForce = new Map<string, number>();
  /** When this process last saw each app's poll start: isIncident's span. */
  readonly #lastPollAt = new Map<string, number>();
  #warned = '';
  /**
   * Every change this process makes to the schedulers, one after another: a plan and a tightening that
   * interleaved could write an interval read before the tightening back over it, or cancel it.
   */
  #chain: Promise<unknown> = Promise.resolve();
  /** A plan asked for while another runs: made after it, so nothing asked for is answered by an older plan. */
  #queued: Promise<Plan> | undefined;
  #queuedRepair = false;
  #lastSync = 0;
  #soon: NodeJS.Timeout | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: PollScheduleOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#tolerance = options.config.poll.schedule === 'fixed' ? 0 : INTERVAL_TOLERANCE;
  }

  /** The last plan made, if any. */
  get plan(): Plan | undefined {
    return this.#current;
  }

  /** Re-plans every `replanEveryMs` until stopped. */
  start(): void {
    this.#timer ??= setInterval(() => void this.#syncQuietly(), this.#o.replanEveryMs ?? REPLAN_EVERY_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    clearTimeout(this.#soon);
    this.#timer = undefined;
    this.#soon = undefined;
  }

  /**
   * Plans every app from the store and makes the job schedulers match. With `repair` (the default: at
   * start and when Redis came back empty) every scheduler is upserted, which also gives back its next
   * poll to one a kill left without; the periodic re-plans rewrite only what changed. Throws when Redis
   * does not answer (the caller's upkeep tries again).
   */
  sync(options: { repair?: boolean } = {}): Promise<Plan> {
    this.#queuedRepair ||= options.repair ?? true;
    this.#queued ??= this.#serially(() => {
      this.#queued = undefined;
      const repair = this.#queuedRepair;
      this.#queuedRepair = false;
      return this.#sync(repair);
    });
    return this.#queued;
  }

  #serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#chain.then(work);
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async #sync(repair: boolean): Promise<Plan> {
    const { config, store, logger } = this.#o;
    const now = this.#now();
    this.#lastSync = now;
    const plan = planFromStore(store.db, config, { now });
    const synced = await syncPollSchedulers(
      this.#o.queue,
      this.#o.redis,
      plan.entries.map((entry) => ({ handle: entry.handle, everyMs: entry.intervalMs })),
      this.#o.retry,
      logger,
      { tolerance: this.#tolerance, lastPolledAt: lastPollTimes(store.db), now, rewriteUnchanged: repair },
    );
    this.#plan = new Map(plan.entries.map((entry) => [entry.handle, entry]));
    this.#inForce.clear();
    for (const [handle, every] of synced.inForce) this.#inForce.set(handle, every);
    this.#current = plan;
    this.#o.metrics?.schedulePlanned(plan, this.#inForce);
    this.#warn(plan);
    if (plan.policy !== 'fixed') {
      logger.info(
        { policy: plan.policy, projected: Math.round(plan.projected.total), budget: plan.budget },
        `poll schedule (${plan.policy}): ${describe(plan, this.#inForce)}`,
      );
    }
    this.#o.onPlan?.(plan);
    return plan;
  }

  /** The budget's warnings once each, not at every hourly plan. */
  #warn(plan: Plan): void {
    const text = plan.warnings.join('\n');
    if (text !== this.#warned) for (const warning of plan.warnings) this.#o.logger.warn(warning);
    this.#warned = text;
  }

  async #syncQuietly(): Promise<void> {
    try {
      await this.sync({ repair: false });
    } catch (err) {
      this.#o.logger.warn(`could not re-plan the poll schedule now: ${errorMessage(err)}`);
    }
  }

  /** A plan within `replanGapMs` of the last one, so a burst of baselines makes one plan. */
  #syncSoon(): void {
    if (this.#soon) return;
    const wait = Math.max(0, this.#lastSync + (this.#o.replanGapMs ?? REPLAN_GAP_MS) - this.#now());
    this.#soon = setTimeout(() => {
      this.#soon = undefined;
      void this.#syncQuietly();
    }, wait);
    this.#soon.unref();
  }

  /**
   * After a poll of an app finished: a baseline asks for a new plan; under `adaptive` and `budget`, new
   * low reviews beyond the app's pace (an incident) bring its next poll to `poll.minEvery`, relaxing
   * back to its interval over the next polls (schedule/incident.ts).
   */
  pollFinished(handle: string, result: PollJobResult, startedAt: number): Promise<void> {
    if (result.status === 'skipped') return Promise.resolve();
    const previousAt = this.#lastPollAt.get(handle) ?? null;
    this.#lastPollAt.set(handle, startedAt);
    if (result.status === 'baseline') {
      this.#syncSoon();
      return Promise.resolve();
    }
    if (this.#o.config.poll.schedule === 'fixed') return Promise.resolve();
    return this.#serially(() => this.#afterPoll(handle, result, startedAt, previousAt));
  }

  async #afterPoll(handle: string, result: PollJobResult, startedAt: number, previousAt: number | null) {
    const entry = this.#plan.get(handle);
    if (!entry) return;
    const { config, logger, store } = this.#o;
    const next = afterPoll(
      entry,
      entry.lastIncidentAt,
      { at: startedAt, previousAt, newLowReviews: result.lowRated.length },
      scheduleSettings(config, 0),
    );
    if (next.lastIncidentAt !== entry.lastIncidentAt && next.lastIncidentAt !== null) {
      // In the store, so a restart tightens this app and no other (store/arrivals.ts).
      recordIncident(store.db, handle, next.lastIncidentAt);
      this.#plan.set(handle, { ...entry, lastIncidentAt: next.lastIncidentAt });
      logger.info(
        { app: handle, lowReviews: result.lowRated.length, everyMs: next.intervalMs },
        `${handle}: ${result.lowRated.length} new low review(s), more than its pace explains: polling it every ${fmtDuration(next.intervalMs)} until it calms down`,
      );
    }
    const current = this.#inForce.get(handle);
    if (!intervalChanged(current, next.intervalMs, this.#tolerance)) return;
    await upsertPollScheduler(
      this.#o.queue,
      handle,
      next.intervalMs,
      this.#o.retry,
      startedAt + next.intervalMs,
    );
    this.#inForce.set(handle, next.intervalMs);
    this.#o.metrics?.pollIntervalSet(handle, next.intervalMs);
  }
}

/** "3 apps every 2m to 12h (median 45m); 21,340 requests a day projected of a 25,000 budget". */
function describe(plan: Plan, inForce: ReadonlyMap<string, number>): string {
  const every = [...inForce.values()].sort((a, b) => a - b);
  const median = every[Math.floor(every.length / 2)];
  const span =
    every.length === 0
      ? 'no apps'
      : `${every.length} app(s) every ${fmtDuration(every[0] ?? 0)} to ${fmtDuration(every.at(-1) ?? 0)} (median ${fmtDuration(median ?? 0)})`;
  const projected = Math.round(plan.projected.total).toLocaleString('en-US');
  const budget = plan.budget === null ? '' : ` of a ${plan.budget.toLocaleString('en-US')} budget`;
  return `${span}; ${projected} requests a day projected${budget}`;
}
