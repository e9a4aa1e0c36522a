/**
 * The solvers of `adaptive` and `budget`: the interval of each warm app.
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
 */

import { tighteningPerDay, tightensRole } from './incident.js';
import type { AppDemand, PlanReason, ScheduleSettings } from './policy.js';
import { DAY_MS as DAY_IMPORTED } from './rate.js';
import { pagingPerDay } from './reservations.js';
import { fmt, fmtDuration } from './units.js';

/** A local copy: an imported binding is slower to read in the solver's inner loops under some loaders. */
const DAY_MS = DAY_IMPORTED;

/** Share of the budget the plan leaves unspent, for chance and for intervals left unchanged. */
export const BUDGET_MARGIN = 0.02;

/**
 * No app waits longer than this between polls, whatever the budget: the weekly digest needs every app
 * read at least once a week.
 */
export const LONGEST_INTERVAL_MS = 7 * DAY_MS;

export type Intervals = Map<string, { ms: number; reason: PlanReason }>;

export interface Solved {
  level: number | null;
  intervals: Intervals;
  /** Whether own apps are tightened after new low reviews. */
  tighten: boolean;
  marketStretch?: number;
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
export function solveAdaptive(
  apps: readonly AppDemand[],
  settings: ScheduleSettings,
): Omit<Solved, 'tighten'> {
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

export function solveBudget(
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
