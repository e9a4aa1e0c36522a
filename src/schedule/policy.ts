/**
 * How often to poll each app: the three policies of `poll.schedule`, and the plan they make.
 *
 * - `fixed`: every app every `poll.every`, as before.
 * - `adaptive`: the fewest requests that keep the mean delay of a (weighted) review where `fixed` keeps
 *   it, `poll.every / 2`. Busy apps are polled more often than `poll.every`, quiet ones less.
 * - `budget`: the least mean (weighted) delay that `catalog.dailyRequestBudget` requests a day can buy,
 *   counting what polls cannot avoid spending (baselines, extra pages, reconciliations) against it.
 *
 * The rule `adaptive` and `budget` follow, T_i = c / √(w_i λ_i), is solved in solvers.ts; an incident
 * tightens an own app's polls for a while (incident.ts); what polls cannot avoid spending is reserved
 * from a budget (reservations.ts). This file holds the types they share and joins them into a plan.
 *
 * Pure: the callers give the rates (rate.ts), the settings and the time.
 */
import type { SCHEDULE_POLICIES } from '../config/schema.js';
import { intervalAfterPoll, tighteningPerDay, tightensRole } from './incident.js';
import { DAY_MS, type RateEstimate } from './rate.js';
import { pagingPerDay } from './reservations.js';
import { type Intervals, type Solved, solveAdaptive, solveBudget } from './solvers.js';
import { fmt, roundInterval } from './units.js';

export type SchedulePolicy = (typeof SCHEDULE_POLICIES)[number];

export type AppRole = 'own' | 'competitor';

/**
 * Default weights. By the rule above, an app's interval scales with 1/√w, so the weight is the square of
 * how much sooner its reviews are wanted: own reviews are acted on within minutes (`poll.every`, 15m),
 * competitors' feed the weekly digest and can wait hours (`poll.maxEvery`, 12h): 45 times longer, so a
 * weight of 1/45² ≈ 0.0005, and a competitor is polled 45 times less often than an own app of its pace.
 */
export const DEFAULT_WEIGHTS: Readonly<Record<AppRole, number>> = { own: 1, competitor: 0.0005 };

export function appWeight(app: { role: AppRole; weight?: number | undefined }): number {
  return app.weight ?? DEFAULT_WEIGHTS[app.role];
}

export interface ScheduleSettings {
  policy: SchedulePolicy;
  /** `poll.every`: the `fixed` interval, `adaptive`'s yardstick, and every policy's interval for a cold app. */
  everyMs: number;
  minEveryMs: number;
  maxEveryMs: number;
  /** `catalog.dailyRequestBudget`: required by `budget`; the others warn when they would exceed it. */
  dailyRequestBudget: number | null;
  /** Requests a day spent outside the planned polls: baselines, reconciliations, digests (see reservedPerDay). */
  reservedPerDay: number;
  /**
   * After a poll finds new low reviews, each interval is at most this fraction of the time since (0.5: the
   * intervals grow 1.5× a poll). 0 turns the tightening off.
   */
  relaxRatio: number;
  /** Share of new reviews that are low, for projecting what the tightening costs. */
  lowShare: number;
  /**
   * The market reads (categories, listings, developers) at their configured periods, counted with the
   * polls; under `budget` they are stretched, up to `maxStretch` times, after the competitors' polls
   * and before any own app's (schedule/market.ts).
   */
  market?: { perDay: number; maxStretch: number };
}

export const DEFAULT_RELAX_RATIO = 0.5;
export const DEFAULT_LOW_SHARE = 0.2;

export interface AppDemand {
  handle: string;
  role: AppRole;
  weight: number;
  rate: RateEstimate;
  /**
   * When a poll of the app last found an incident (isIncident), epoch ms; kept in the store
   * (apps.last_incident_at), so it outlives a restart.
   */
  lastIncidentAt: number | null;
  /**
   * The app's own longest interval, which no policy and no budget exceeds: an own app's is `poll.every`
   * unless its `maxEvery` says otherwise (schedule/index.ts). Unset: `poll.maxEvery`, and a budget that
   * cannot pay for it may stretch the app past it.
   */
  maxEveryMs?: number;
}

/**
 * Why an app has its interval: `fixed`; `cold start` (too little history, so `poll.every`); `rate` (the
 * rule); `minEvery` or `maxEvery` (the rule clamped); `over budget` (past `maxEvery`, which the budget
 * cannot pay for); `tightened` (a poll found new low reviews lately).
 */
export type PlanReason =
  | 'fixed'
  | 'cold start'
  | 'rate'
  | 'minEvery'
  | 'maxEvery'
  | 'over budget'
  | 'tightened';

export interface PlanEntry {
  handle: string;
  role: AppRole;
  weight: number;
  /** The interval in force now: the planned one, or shorter while tightened. */
  intervalMs: number;
  /** The interval the rates call for. */
  plannedMs: number;
  /** Whether an incident shortens the next intervals (isIncident, intervalAfterPoll). */
  tightens: boolean;
  /** The input's last incident: where afterPoll starts from after a restart. */
  lastIncidentAt: number | null;
  ratePerDay: number;
  reason: PlanReason;
}

/** Requests a day the plan is expected to spend, by what spends them. */
export interface Projection {
  /** One request per planned poll. */
  polls: number;
  /** Pages beyond the first, when more than a page of reviews arrived between two polls. */
  paging: number;
  /** Polls the tightening adds after incidents by chance alone (real incidents add their own). */
  tightening: number;
  /** Baselines, reconciliations, digests: `ScheduleSettings.reservedPerDay`. */
  reserved: number;
  /** Category pages, listings and developers, as often as `marketStretch` lets them. */
  market: number;
  total: number;
}

export interface Plan {
  policy: SchedulePolicy;
  entries: PlanEntry[];
  projected: Projection;
  budget: number | null;
  /** The constant c of T_i = c / √(w_i λ_i) (ms · √(reviews/day)); null for `fixed`, or when over budget. */
  level: number | null;
  /**
   * How many times their configured periods the market reads are spread: 1 unless a budget could not pay
   * for them with every competitor already polled as rarely as it may be.
   */
  marketStretch: number;
  warnings: string[];
}

export function planSchedule(apps: readonly AppDemand[], settings: ScheduleSettings, now: number): Plan {
  checkSettings(settings);
  const warnings: string[] = [];
  let solved: Solved;
  if (settings.policy === 'fixed') {
    const intervals: Intervals = new Map();
    for (const app of apps) intervals.set(app.handle, { ms: settings.everyMs, reason: 'fixed' });
    solved = { level: null, intervals, tighten: false };
  } else {
    const warm = apps.filter((app) => !app.rate.cold);
    const cold = apps.length - warm.length;
    const tighten = settings.relaxRatio > 0;
    solved =
      settings.policy === 'adaptive'
        ? { ...solveAdaptive(warm, settings), tighten }
        : solveBudget(warm, settings, (cold * DAY_MS) / settings.everyMs, tighten, warnings);
    for (const app of apps) {
      if (app.rate.cold) solved.intervals.set(app.handle, { ms: settings.everyMs, reason: 'cold start' });
      // Every policy keeps an app within its own longest interval (an own app's poll.every).
      const got = solved.intervals.get(app.handle);
      if (got && app.maxEveryMs !== undefined && got.ms > app.maxEveryMs)
        solved.intervals.set(app.handle, { ms: app.maxEveryMs, reason: 'maxEvery' });
    }
  }

  const entries = apps.map((app): PlanEntry => {
    const { ms, reason } = solved.intervals.get(app.handle) ?? { ms: settings.everyMs, reason: 'fixed' };
    const plannedMs = roundInterval(ms);
    const tightens = solved.tighten && tightensRole(app.role) && !app.rate.cold;
    const intervalMs = intervalAfterPoll({ plannedMs, tightens }, app.lastIncidentAt, now, settings);
    return {
      handle: app.handle,
      role: app.role,
      weight: app.weight,
      intervalMs,
      plannedMs,
      tightens,
      lastIncidentAt: app.lastIncidentAt,
      ratePerDay: app.rate.ratePerDay,
      reason: intervalMs < plannedMs ? 'tightened' : reason,
    };
  });
  const marketStretch = solved.marketStretch ?? 1;
  const projected = project(entries, settings, marketStretch);
  const budget = settings.dailyRequestBudget;
  if (settings.policy !== 'budget' && budget !== null && projected.total > budget) {
    warnings.push(
      `the ${settings.policy} schedule is projected to spend ${fmt(projected.total)} requests a day, over catalog.dailyRequestBudget (${fmt(budget)})`,
    );
  }
  return {
    policy: settings.policy,
    entries,
    projected,
    budget,
    level: solved.level,
    marketStretch,
    warnings,
  };
}

/**
 * Interval changes within this fraction are not worth rewriting 10,000 schedulers for: the rates are
 * estimates, and the objective is flat near its optimum (an interval 20% off the best costs about 2% more
 * delay or requests for that app).
 */
export const INTERVAL_TOLERANCE = 0.2;

/** Whether an app's scheduler needs the new interval (see INTERVAL_TOLERANCE). */
export function intervalChanged(
  currentMs: number | undefined,
  nextMs: number,
  tolerance = INTERVAL_TOLERANCE,
): boolean {
  if (currentMs === undefined) return true;
  return Math.abs(nextMs - currentMs) > tolerance * Math.min(currentMs, nextMs);
}

function checkSettings(settings: ScheduleSettings): void {
  const { minEveryMs, everyMs, maxEveryMs } = settings;
  if (!(minEveryMs > 0 && minEveryMs <= maxEveryMs)) {
    throw new Error(
      `poll.minEvery (${minEveryMs} ms) must be positive and at most poll.maxEvery (${maxEveryMs} ms)`,
    );
  }
  if (settings.policy !== 'fixed' && !(everyMs >= minEveryMs && everyMs <= maxEveryMs)) {
    throw new Error('poll.every must lie between poll.minEvery and poll.maxEvery');
  }
  if (settings.policy === 'budget' && settings.dailyRequestBudget === null) {
    throw new Error('the budget schedule needs catalog.dailyRequestBudget');
  }
}

function project(
  entries: readonly PlanEntry[],
  settings: ScheduleSettings,
  marketStretch: number,
): Projection {
  let polls = 0;
  let paging = 0;
  let tightening = 0;
  for (const entry of entries) {
    polls += DAY_MS / entry.plannedMs;
    paging += pagingPerDay(entry.ratePerDay, entry.plannedMs);
    tightening += tighteningPerDay(entry.tightens, entry.ratePerDay, entry.plannedMs, settings);
  }
  const reserved = settings.reservedPerDay;
  const market = (settings.market?.perDay ?? 0) / marketStretch;
  return {
    polls,
    paging,
    tightening,
    reserved,
    market,
    total: polls + paging + tightening + reserved + market,
  };
}
