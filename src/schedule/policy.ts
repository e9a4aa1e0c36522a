/**
 * How often to poll each app: the three policies of `poll.schedule`.
 *
 * - `fixed`: every app every `poll.every`, as before.
 * - `adaptive`: the fewest requests that keep the mean delay of a (weighted) review where `fixed` keeps
 *   it, `poll.every / 2`. Busy apps are polled more often than `poll.every`, quiet ones less.
 * - `budget`: the least mean (weighted) delay that `catalog.dailyRequestBudget` requests a day can buy,
 *   counting what polls cannot avoid spending (baselines, extra pages, reconciliations) against it.
 *
 * The rule both follow, for Poisson arrivals. An app with rate λ_i polled every T_i keeps a review waiting
 * T_i / 2 on average (its arrival is uniform between two polls) and costs 1 / T_i requests per unit time.
 * With weights w_i (own apps above competitors), the weighted delay per unit time is Σ w_i λ_i T_i / 2.
 * Minimising it subject to Σ 1 / T_i = B (Lagrange: w_i λ_i / 2 = μ / T_i²) gives
 *
 *     T_i = c / √(w_i λ_i)
 *
 * with one constant c for all apps: requests go to apps in proportion to the square root of their
 * weighted rate, not to the rate itself (polling in proportion to λ would spend most of the budget on
 * the busiest apps, whose reviews are already found quickly). The same c solves the dual problem,
 * fewest requests for a given weighted delay, which is `adaptive`. With the bounds [minEvery, maxEvery]
 * the optimum is the same rule clamped, with c chosen so that the clamped plan meets the budget
 * (water-filling: the KKT conditions hold with the bound's multiplier on the clamped apps); the
 * requests a day fall as c grows, so c is found by bisection.
 *
 * One addition the derivation does not cover, for incidents, where arrivals are not Poisson: when a poll
 * of an own app finds more new low reviews than the app's own pace explains (isIncident: fewer than 1 in
 * 100 polls would find that many by chance; for a quiet app, one low review), its next poll comes after
 * `minEvery`, and each interval after that is at most half the time since that poll (so it grows 1.5× a
 * poll) until it is back at the plan's. A busy app's routine low review does not trigger it: polls spent
 * on a Poisson app right after a review buy nothing, since its next review is no nearer. `budget` pays
 * for the tightening out of the budget, and drops it when the budget cannot.
 *
 * Pure: the callers give the rates (rate.ts), the settings and the time.
 */
import type { SCHEDULE_POLICIES } from '../config/schema.js';
import { DAY_MS as DAY_IMPORTED, type RateEstimate } from './rate.js';

/** A local copy: an imported binding is slower to read in the solver's inner loops under some loaders. */
const DAY_MS = DAY_IMPORTED;

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

/** Share of the budget the plan leaves unspent, for chance and for intervals left unchanged. */
export const BUDGET_MARGIN = 0.02;

/**
 * No app waits longer than this between polls, whatever the budget: the weekly digest needs every app
 * read at least once a week.
 */
export const LONGEST_INTERVAL_MS = 7 * DAY_MS;

/** Reviews on one page of the API: a poll reads one more page per this many new reviews. */
const PAGE_SIZE = 10;

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

type Intervals = Map<string, { ms: number; reason: PlanReason }>;

interface Solved {
  level: number | null;
  intervals: Intervals;
  /** Whether own apps are tightened after new low reviews. */
  tighten: boolean;
  marketStretch?: number;
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
 * The interval after a poll at `now`: the planned one, or while an incident may be running (a poll found
 * one at `lastIncidentAt`) at most `relaxRatio` × the time since, and never below `minEvery`. The poll
 * worker applies it after each poll (see afterPoll); the plan applies it when it is made.
 */
export function intervalAfterPoll(
  entry: { plannedMs: number; tightens: boolean },
  lastIncidentAt: number | null,
  now: number,
  settings: Pick<ScheduleSettings, 'minEveryMs' | 'relaxRatio'>,
): number {
  const { plannedMs } = entry;
  if (!entry.tightens || settings.relaxRatio <= 0 || lastIncidentAt === null) return plannedMs;
  const since = Math.max(0, now - lastIncidentAt);
  const cap = Math.max(settings.minEveryMs, roundInterval(settings.relaxRatio * since));
  return Math.min(plannedMs, cap);
}

/** What a finished poll tells the schedule. */
export interface PollSeen {
  /** When the poll started (epoch ms). */
  at: number;
  /** When the app's previous poll started; null for its first. */
  previousAt: number | null;
  /** New reviews at or below `alerts.lowRating.maxRating` the poll found (PollJobResult.lowRated). */
  newLowReviews: number;
}

/** New low reviews in one poll that the app's own pace would explain less often than this: an incident. */
export const INCIDENT_CHANCE = 0.01;

/**
 * Whether a poll's new low reviews are an incident rather than the app's usual pace: more than a Poisson
 * count with the expected number of low reviews since the previous poll reaches in 99 polls of 100.
 */
export function isIncident(
  entry: { plannedMs: number; tightens: boolean; ratePerDay: number },
  poll: PollSeen,
  settings: Pick<ScheduleSettings, 'lowShare'>,
): boolean {
  if (!entry.tightens || poll.newLowReviews <= 0) return false;
  const span = poll.previousAt === null ? entry.plannedMs : Math.max(0, poll.at - poll.previousAt);
  return poll.newLowReviews >= incidentThreshold((entry.ratePerDay * settings.lowShare * span) / DAY_MS);
}

/**
 * After each poll of an app: whether it found an incident, and the interval to its next poll. The
 * worker keeps `lastIncidentAt` per app in the store (queue/poll-schedule.ts).
 */
export function afterPoll(
  entry: { plannedMs: number; tightens: boolean; ratePerDay: number },
  lastIncidentAt: number | null,
  poll: PollSeen,
  settings: Pick<ScheduleSettings, 'minEveryMs' | 'relaxRatio' | 'lowShare'>,
): { intervalMs: number; lastIncidentAt: number | null } {
  const incidentAt = isIncident(entry, poll, settings) ? poll.at : lastIncidentAt;
  return { intervalMs: intervalAfterPoll(entry, incidentAt, poll.at, settings), lastIncidentAt: incidentAt };
}

/** The fewest low reviews in one poll that count as an incident when μ are expected: P(K ≥ k) < 1%. */
export function incidentThreshold(expected: number): number {
  let k = 1;
  let term = Math.exp(-expected);
  // P(K ≥ 1) = 1 − e^(−μ), kept precise for the tiny μ of quiet apps.
  let tail = -Math.expm1(-expected);
  while (tail >= INCIDENT_CHANCE && k < 1_000) {
    tail -= term * (expected / k);
    term *= expected / k;
    k++;
  }
  return k;
}

/** How often a poll with μ low reviews expected finds an incident by chance alone: P(K ≥ threshold). */
function chanceIncident(expected: number): number {
  const k = incidentThreshold(expected);
  let term = Math.exp(-expected);
  let below = term;
  for (let j = 1; j < k; j++) {
    term *= expected / j;
    below += term;
  }
  return k === 1 ? -Math.expm1(-expected) : Math.max(0, 1 - below);
}

/**
 * Only own apps are tightened: an incident on a competitor's listing can wait for the digest, and
 * tightening the thousands of competitors a watch list may hold would cost more than polling them.
 */
function tightensRole(role: AppRole): boolean {
  return role === 'own';
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

/** What baselines, reconciliations and digests spend a day, to reserve from a budget. */
export function reservedPerDay(input: {
  apps: number;
  /** Apps whose first poll is still to come (each reads up to `baselinePages` pages once). */
  pendingBaselines: number;
  baselinePages: number;
  reconcileEveryMs: number;
  reconcilePages: number;
  /** The digest reads the store, not the API: 0 unless that changes. */
  digestRequestsPerDay?: number;
}): number {
  return (
    input.pendingBaselines * input.baselinePages +
    (input.apps * input.reconcilePages * DAY_MS) / input.reconcileEveryMs +
    (input.digestRequestsPerDay ?? 0)
  );
}

/** Expected pages beyond the first per day: a poll finding k new reviews reads ⌊k / 10⌋ more. */
export function pagingPerDay(ratePerDay: number, intervalMs: number): number {
  const perPoll = (ratePerDay * intervalMs) / DAY_MS;
  // E⌊K/10⌋ for K ~ Poisson(m) is close to (m − 4.5) / 10 once m is past a few pages, and ~0 below.
  return ((DAY_MS / intervalMs) * Math.max(0, perPoll - (PAGE_SIZE - 1) / 2)) / PAGE_SIZE;
}

/**
 * Expected polls a day the tightening adds to an app. Incidents come by chance alone (chanceIncident) at
 * about one per poll with μ = λ · lowShare · T expected low reviews when μ is small (a quiet app: every
 * low review), far rarer otherwise; g apart on average. With r = relaxRatio and m = minEvery, each makes
 * the app poll every m until r × the time since passes m (for m / r), then each interval (1 + r) times the
 * last, until the planned T is back (T / r after it) or the next one restarts it. Over a span
 * s = min(g, T / r) that is min(s, m / r) / m + log⁺(r s / m) / log(1 + r) polls where the plan would
 * have made s / T: log(T / m) / log(1 + r) more when incidents are rare. Real incidents add their own.
 */
export function tighteningPerDay(
  tightens: boolean,
  ratePerDay: number,
  intervalMs: number,
  settings: Pick<ScheduleSettings, 'minEveryMs' | 'relaxRatio' | 'lowShare'>,
): number {
  const r = settings.relaxRatio;
  const m = settings.minEveryMs;
  if (!tightens || r <= 0 || intervalMs <= m || ratePerDay <= 0) return 0;
  const expected = (ratePerDay * settings.lowShare * intervalMs) / DAY_MS;
  const triggers = (DAY_MS / intervalMs) * chanceIncident(expected);
  if (triggers <= 0) return 0;
  const gap = DAY_MS / triggers;
  return triggers * extraPolls(intervalMs, Math.log(intervalMs / m), gap, Math.log((r * gap) / m), m, r);
}

/** Polls a tightening adds before the next low review or full relaxation (see tighteningPerDay). */
function extraPolls(t: number, logTm: number, gap: number, logRgm: number, m: number, r: number): number {
  const span = Math.min(gap, t / r);
  const flat = Math.min(span, m / r) / m;
  const growing = Math.max(0, Math.min(logRgm, logTm)) / Math.log(1 + r);
  return Math.max(0, flat + growing - span / t);
}

export function fmtDuration(ms: number): string {
  if (ms >= DAY_MS && ms % DAY_MS === 0) return `${ms / DAY_MS}d`;
  if (ms >= 3_600_000) return `${Math.round((ms / 3_600_000) * 10) / 10}h`;
  if (ms >= 60_000) return `${Math.round((ms / 60_000) * 10) / 10}m`;
  return `${Math.round(ms / 1_000)}s`;
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

/** What the solvers need of the warm apps, as arrays: the bisections run over them many times. */
interface Demand {
  apps: readonly AppDemand[];
  /** Each app's longest interval: its own (AppDemand.maxEveryMs), else poll.maxEvery. */
  caps: Float64Array;
  /** √(w λ) per app (λ kept above zero: the rate model never gives 0 for a warm app, but be sure). */
  roots: Float64Array;
  rates: Float64Array;
}

function demandOf(apps: readonly AppDemand[], settings: ScheduleSettings): Demand {
  const roots = Float64Array.from(apps, (app) => Math.sqrt(Math.max(app.weight * app.rate.ratePerDay, 1e-9)));
  const caps = Float64Array.from(apps, (app) =>
    Math.max(settings.minEveryMs, app.maxEveryMs ?? settings.maxEveryMs),
  );
  return { apps, caps, roots, rates: Float64Array.from(apps, (app) => app.rate.ratePerDay) };
}

function clampedAt(
  level: number,
  root: number,
  settings: ScheduleSettings,
  cap = settings.maxEveryMs,
): number {
  return Math.min(cap, Math.max(settings.minEveryMs, level / root));
}

function intervalsAt(demand: Demand, level: number, settings: ScheduleSettings): Intervals {
  const out: Intervals = new Map();
  demand.apps.forEach((app, i) => {
    const raw = level / (demand.roots[i] as number);
    const cap = demand.caps[i] as number;
    const ms = Math.min(cap, Math.max(settings.minEveryMs, raw));
    const reason: PlanReason = raw <= settings.minEveryMs ? 'minEvery' : raw >= cap ? 'maxEvery' : 'rate';
    out.set(app.handle, { ms, reason });
  });
  return out;
}

/** Levels between which every app goes from minEvery to its longest interval. */
function levelRange(demand: Demand, settings: ScheduleSettings): [number, number] {
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  demand.roots.forEach((root, i) => {
    lo = Math.min(lo, settings.minEveryMs * root);
    hi = Math.max(hi, (demand.caps[i] as number) * root);
  });
  return [lo, hi];
}

/** The least x in [lo, hi] at which `holds` (false below some x, true above), by bisection on log x. */
function bisect(lo: number, hi: number, holds: (x: number) => boolean): number {
  let a = Math.log(lo);
  let b = Math.log(hi);
  for (let i = 0; i < 100 && b - a > 1e-6; i++) {
    const mid = (a + b) / 2;
    if (holds(Math.exp(mid))) b = mid;
    else a = mid;
  }
  return Math.exp(b);
}

/** The level whose weighted mean interval, Σ w λ T / Σ w λ, is `poll.every`: the mean delay `fixed` gives. */
function solveAdaptive(apps: readonly AppDemand[], settings: ScheduleSettings): Omit<Solved, 'tighten'> {
  if (apps.length === 0) return { level: null, intervals: new Map() };
  const demand = demandOf(apps, settings);
  const meanInterval = (level: number) => {
    let num = 0;
    let den = 0;
    for (const root of demand.roots) {
      const wl = root * root;
      num += wl * clampedAt(level, root, settings);
      den += wl;
    }
    return num / den;
  };
  // The rule without the apps' own caps (planSchedule applies those after): an own app is then polled
  // sooner than its pace calls for, never later.
  const uncapped = { ...demand, caps: demand.caps.map(() => settings.maxEveryMs) };
  const [lo, hi] = levelRange(uncapped, settings);
  const level = bisect(lo, hi, (c) => meanInterval(c) > settings.everyMs);
  return { level, intervals: intervalsAt(uncapped, level, settings) };
}

/**
 * Requests a day the warm apps cost at level c: polls, extra pages, and (where `tighten`) the tightening
 * of own apps.
 */
function levelCost(level: number, demand: Demand, tighten: boolean, settings: ScheduleSettings): number {
  const { roots, rates, apps, caps } = demand;
  let total = 0;
  for (let i = 0; i < roots.length; i++) {
    const t = clampedAt(level, roots[i] as number, settings, caps[i] as number);
    const rate = rates[i] as number;
    total += DAY_MS / t + pagingPerDay(rate, t);
    if (tighten && tightensRole((apps[i] as AppDemand).role))
      total += tighteningPerDay(true, rate, t, settings);
  }
  return total;
}

function solveBudget(
  apps: readonly AppDemand[],
  settings: ScheduleSettings,
  coldCost: number,
  tighten: boolean,
  warnings: string[],
): Solved {
  const budget = settings.dailyRequestBudget ?? 0;
  // Aim a little under: the projection is an expectation, and intervals the worker leaves unchanged
  // (intervalChanged) spend a little more than planned on average (1 / T is convex).
  const market = settings.market?.perDay ?? 0;
  const overhead = settings.reservedPerDay + coldCost + market;
  const available = budget * (1 - BUDGET_MARGIN) - overhead;
  if (apps.length === 0) return { level: null, intervals: new Map(), tighten };
  const demand = demandOf(apps, settings);
  const [lo, hi] = levelRange(demand, settings);
  for (const withTightening of tighten ? [true, false] : [false]) {
    if (levelCost(hi, demand, withTightening, settings) > available) continue;
    // Requests fall as the level rises: the least level within the budget spends it.
    const level = bisect(lo, hi, (c) => levelCost(c, demand, withTightening, settings) <= available);
    if (tighten && !withTightening) {
      warnings.push(
        `the budget of ${fmt(budget)} requests a day leaves nothing for polling own apps sooner after an incident: ` +
          `that needs about ${fmt((levelCost(hi, demand, true, settings) + overhead) / (1 - BUDGET_MARGIN))} a day with every app at poll.maxEvery`,
      );
    }
    return { level, intervals: intervalsAt(demand, level, settings), tighten: withTightening };
  }
  return { ...stretchBeyondMax(demand, settings, available, overhead, warnings), tighten: false };
}

/**
 * The budget cannot pay for every app at its longest interval. The apps without a cap of their own then go
 * past `maxEvery`, lower weights further: app i's interval is maxEvery · (1 + (s − 1) · √(w_max / w_i))
 * (the √ as in the rule above), at most LONGEST_INTERVAL_MS, with the least stretch s ≥ 1 the budget pays
 * for. Apps with a cap of their own (own apps: poll.every) stay at it. When even that does not fit, the
 * market reads are spread over longer periods, up to `market.maxStretch` times: after the competitors'
 * polls, before any own app's.
 */
function stretchBeyondMax(
  demand: Demand,
  settings: ScheduleSettings,
  available: number,
  overhead: number,
  warnings: string[],
): Omit<Solved, 'tighten'> {
  const { apps, caps } = demand;
  const capped = apps.map((app) => app.maxEveryMs !== undefined);
  const weights = apps.map((app) => Math.max(app.weight, 1e-12));
  const maxWeight = Math.max(...weights.filter((_, i) => !capped[i]), 1e-12);
  const spread = weights.map((w) => Math.sqrt(maxWeight / w));
  const longest = Math.max(LONGEST_INTERVAL_MS, settings.maxEveryMs);
  const at = (s: number) => (i: number) =>
    capped[i]
      ? (caps[i] as number)
      : Math.min(longest, settings.maxEveryMs * (1 + (s - 1) * (spread[i] as number)));
  const cost = (interval: (i: number) => number) => {
    let total = 0;
    for (let i = 0; i < apps.length; i++) {
      const t = interval(i);
      total += DAY_MS / t + pagingPerDay(demand.rates[i] as number, t);
    }
    return total;
  };
  const widest = longest / settings.maxEveryMs;
  const stretch =
    cost(at(widest)) > available ? widest : 1 + bisect(1e-9, widest - 1, (x) => cost(at(1 + x)) <= available);
  const interval = at(stretch);
  const intervals: Intervals = new Map();
  let ownOver = 0;
  let ownLongest = 0;
  apps.forEach((app, i) => {
    const ms = interval(i);
    intervals.set(app.handle, {
      ms,
      reason: ms > Math.max(settings.maxEveryMs, caps[i] as number) ? 'over budget' : 'maxEvery',
    });
    if (app.role === 'own' && ms > settings.maxEveryMs * 1.0001) {
      ownOver++;
      ownLongest = Math.max(ownLongest, ms);
    }
  });
  const needed = (cost((i) => caps[i] as number) + overhead) / (1 - BUDGET_MARGIN);
  if (ownOver > 0) {
    warnings.push(
      `the budget cannot keep every own app within poll.maxEvery (${fmtDuration(settings.maxEveryMs)}): ` +
        `${ownOver} own app${ownOver === 1 ? '' : 's'} polled only every ${fmtDuration(ownLongest)}; ` +
        `polling every app at poll.maxEvery needs about ${fmt(needed)} requests a day`,
    );
  }
  // What the polls still lack is taken from the market reads, spread over longer periods.
  const market = settings.market;
  let marketStretch = 1;
  const short = cost(interval) - available;
  if (market && market.perDay > 0 && short > 0) {
    marketStretch =
      short < market.perDay
        ? Math.min(market.maxStretch, market.perDay / (market.perDay - short))
        : market.maxStretch;
    warnings.push(
      `the budget cannot pay for the market reads at their periods with every competitor polled as rarely as it may be: ` +
        `category snapshots, listing and developer reads are spread ${marketStretch.toFixed(1)} times as far apart`,
    );
  }
  const marketSaved = market ? market.perDay - market.perDay / marketStretch : 0;
  if (cost(interval) > (available + marketSaved) * 1.0001) {
    warnings.push(
      `the budget cannot be kept: even every app polled as rarely as it may be (competitors once every ${fmtDuration(longest)}, own apps at their poll.every) spends more ` +
        `(reserved requests alone: ${fmt(overhead)} a day)`,
    );
  }
  return { level: null, intervals, marketStretch };
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

/** Whole seconds: BullMQ schedules in ms, and sub-second differences are noise. */
function roundInterval(ms: number): number {
  return Math.max(1_000, Math.round(ms / 1_000) * 1_000);
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
