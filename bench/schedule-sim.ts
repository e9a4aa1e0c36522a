/**
 * A virtual clock over a World (schedule-world.ts): runs the product's own scheduling code (rate model,
 * planSchedule, intervalAfterPoll, intervalChanged) as the worker would run it, and records when each
 * review is found. No wall-clock time passes: the clock jumps from one poll to the next.
 *
 * What the simulated worker does, as the lead's integration is meant to:
 * - every `replanEveryMs` it reads each app's history (what the store would hold: the dates of the reviews
 *   its polls found, by the day, the newest 100) and makes a plan; an app's interval is rewritten only
 *   when it moved by more than `tolerance`, and then its next poll is its last poll plus the new interval
 *   (or now, if that is past);
 * - after each poll it applies afterPoll (an incident on an own app tightens its next polls);
 * - an app's first poll is its baseline: it stores the newest 200 reviews as history, none measured;
 * - a poll finding k new reviews costs 1 + ⌊k/10⌋ requests; reconciliations cost `reconcilePagesPerDay`
 *   per app a day, counted but not simulated as polls (one would also find a new review before the next
 *   poll does, shortening the longest waits of every schedule alike).
 */

import {
  type AppDemand,
  ARRIVALS_READ_PER_APP,
  afterPoll,
  appWeight,
  createRateEstimator,
  DEFAULT_RATE_MODEL,
  historyHorizonMs,
  intervalAfterPoll,
  intervalChanged,
  planSchedule,
  type RateEstimate,
  type ScheduleSettings,
} from '../src/schedule/index.js';
import type { AppArrivals } from '../src/store/arrivals.js';
import { DAY, type World } from './schedule-world.js';

export interface SimPolicy {
  name: string;
  settings: Omit<ScheduleSettings, 'reservedPerDay'>;
  replanEveryMs: number;
  tolerance: number;
  /** Plan with each app's true mean rate instead of the model's estimate: what estimation costs. */
  trueRates?: boolean;
  /**
   * Own apps capped at `poll.every`, as the product plans them (schedule/index.ts, capOf): no own app
   * polled less often than `fixed` would.
   */
  capOwn?: boolean;
}

/** A rate known rather than estimated. */
function knownRate(ratePerDay: number): RateEstimate {
  return { ratePerDay, longRatePerDay: ratePerDay, cold: false, observedDays: 365, arrivals: 100 };
}

export interface SimCosts {
  reconcilePagesPerDay: number;
  baselinePages: number;
}

export interface DelayStats {
  n: number;
  /** Minutes. */
  mean: number;
  p95: number;
  max: number;
}

export interface SimResult {
  name: string;
  /** Requests a day, averaged over the simulated days. */
  perDay: { polls: number; paging: number; baseline: number; reconcile: number; total: number };
  /** Share of polls made at an interval the tightening had shortened. */
  tightenedShare: number;
  /** Interval changes a re-plan applied (scheduler rewrites), a day; tightening after polls not counted. */
  changesPerDay: number;
  /** What the plans projected (mean of every plan's total), to compare with `perDay.total`. */
  projectedPerDay: number;
  /** `steady`: every review but the bursts' (what the bounds, which assume Poisson arrivals, speak of). */
  delays: {
    all: DelayStats;
    own: DelayStats;
    competitor: DelayStats;
    burst: DelayStats;
    steady: DelayStats;
    low: DelayStats;
  };
  warnings: string[];
  wallMs: number;
}

const HISTORY_READ = ARRIVALS_READ_PER_APP;
const BASELINE_REVIEWS = 200;
const DAY_OF = (t: number) => Math.floor(t / DAY) * DAY;

function upperBound(a: Float64Array, t: number, from = 0): number {
  let lo = from;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function simulate(
  world: World,
  policy: SimPolicy,
  costs: SimCosts,
  progress: (day: number) => void = () => {},
): SimResult {
  const started = performance.now();
  const { apps, start, end } = world;
  const n = apps.length;
  const settings: ScheduleSettings = {
    ...policy.settings,
    // Reconciliations, and baselines at the rate apps are added in this world.
    reservedPerDay:
      n * costs.reconcilePagesPerDay +
      (apps.filter((a) => a.addedAt > start).length * costs.baselinePages) / world.options.days,
  };
  const historyStart = start - world.options.historyDays * DAY;
  const nextPoll = new Float64Array(n);
  const lastPoll = new Float64Array(n);
  const planned = new Float64Array(n);
  const tightens = new Uint8Array(n);
  const rateOf = new Float64Array(n);
  const lastLow = new Float64Array(n).fill(Number.NaN);
  const ptr = new Int32Array(n);
  const baselineAt = new Float64Array(n).fill(Number.NaN);
  // What the store query would return for each app: the dates of the newest found reviews, by the day,
  // oldest first (the rate model takes them in any order), kept up to date as polls find reviews.
  const hist: Array<Array<[number, number]>> = apps.map(() => []);
  const histCount = new Int32Array(n);
  const histTruncated = new Uint8Array(n);
  const oldestCreated = new Float64Array(n).fill(Number.NaN);
  const remember = (i: number, at: number) => {
    const days = hist[i] as Array<[number, number]>;
    const day = DAY_OF(at);
    const last = days[days.length - 1];
    if (last && last[0] === day) last[1]++;
    else days.push([day, 1]);
    if (Number.isNaN(oldestCreated[i] as number)) oldestCreated[i] = day;
    histCount[i] = (histCount[i] as number) + 1;
    if ((histCount[i] as number) > HISTORY_READ) {
      const first = days[0] as [number, number];
      if (--first[1] === 0) days.shift();
      histCount[i] = HISTORY_READ;
      histTruncated[i] = 1;
    }
  };
  const phase = Float64Array.from(apps, (_, i) => (i * 0.6180339887) % 1);
  const weights = apps.map((a) => appWeight({ role: a.role, weight: a.weight }));

  const delays = new Float64Array(world.measured);
  const group = new Uint8Array(world.measured);
  const flags = new Uint8Array(world.measured);
  let recorded = 0;
  let polls = 0;
  let tightenedPolls = 0;
  let changes = 0;
  let paging = 0;
  let baselineRequests = 0;
  const projections: number[] = [];
  const warnings = new Set<string>();

  for (let i = 0; i < n; i++) {
    const app = apps[i];
    if (!app) continue;
    if (app.addedAt > start) {
      nextPoll[i] = app.addedAt;
      lastPoll[i] = Number.NaN;
    } else {
      // Watched since the history began: the store holds everything, the baseline is long past.
      baselineAt[i] = historyStart;
    }
  }

  const plan = (now: number) => {
    const estimate = createRateEstimator(now, DEFAULT_RATE_MODEL);
    const since = now - historyHorizonMs(DEFAULT_RATE_MODEL);
    // Apps join the config when they are added: until then nothing plans them.
    const present: number[] = [];
    apps.forEach((app, i) => {
      if (app.addedAt <= now) present.push(i);
    });
    const demands: AppDemand[] = present.map((i) => {
      const app = apps[i] as (typeof apps)[number];
      const base = baselineAt[i] as number;
      const days = hist[i] as Array<[number, number]>;
      while (days.length > 0 && (days[0] as [number, number])[0] < since) {
        histCount[i] = (histCount[i] as number) - (days.shift() as [number, number])[1];
        histTruncated[i] = 0;
      }
      const oldest = oldestCreated[i] as number;
      const history: Pick<AppArrivals, 'baselineAt' | 'oldestCreatedAt' | 'days' | 'truncated' | 'since'> = {
        baselineAt: Number.isNaN(base) ? null : base,
        oldestCreatedAt: Number.isNaN(oldest) ? null : oldest,
        days,
        truncated: histTruncated[i] === 1 && histCount[i] === HISTORY_READ,
        since,
      };
      const low = lastLow[i] as number;
      return {
        handle: app.handle,
        role: app.role,
        weight: weights[i] as number,
        rate: policy.trueRates ? knownRate(app.rate) : estimate(history),
        lastIncidentAt: Number.isNaN(low) ? null : low,
        ...(policy.capOwn && app.role === 'own' ? { maxEveryMs: settings.everyMs } : {}),
      };
    });
    const made = planSchedule(demands, settings, now);
    projections.push(made.projected.total);
    for (const w of made.warnings) warnings.add(w.replace(/\d[\d,.]*/g, '#'));
    // By app index; an app not yet added keeps its (unused) interval.
    const intervals = new Float64Array(n).fill(Number.NaN);
    made.entries.forEach((entry, k) => {
      intervals[present[k] as number] = entry.plannedMs;
      tightens[present[k] as number] = entry.tightens ? 1 : 0;
      rateOf[present[k] as number] = entry.ratePerDay;
    });
    return intervals;
  };

  const first = plan(start);
  first.forEach((plannedMs, i) => {
    if (Number.isNaN(plannedMs)) {
      planned[i] = settings.everyMs;
      return;
    }
    planned[i] = plannedMs;
    const entry = { plannedMs, intervalMs: plannedMs };
    if (!Number.isNaN(lastPoll[i] as number) && (apps[i] as { addedAt: number }).addedAt <= start) {
      // Polling was already under way: each app at its own phase of its interval.
      nextPoll[i] = start + (phase[i] as number) * entry.intervalMs;
      lastPoll[i] = (nextPoll[i] as number) - entry.intervalMs;
      const arrivals = (apps[i] as { arrivals: Float64Array }).arrivals;
      ptr[i] = upperBound(arrivals, lastPoll[i] as number);
      if ((ptr[i] as number) > 0) oldestCreated[i] = DAY_OF(arrivals[0] as number);
      for (let j = Math.max(0, (ptr[i] as number) - HISTORY_READ); j < (ptr[i] as number); j++) {
        remember(i, arrivals[j] as number);
      }
      if ((ptr[i] as number) > HISTORY_READ) histTruncated[i] = 1;
    }
  });

  const pollUntil = (i: number, until: number, counting: boolean) => {
    const app = apps[i];
    if (!app) return;
    const { arrivals, low, burst } = app;
    while ((nextPoll[i] as number) < until) {
      const t = nextPoll[i] as number;
      if (Number.isNaN(baselineAt[i] as number)) {
        // The baseline: history, not alerts.
        const upTo = upperBound(arrivals, t);
        ptr[i] = upTo;
        const from = Math.max(0, upTo - BASELINE_REVIEWS);
        if (upTo > from) oldestCreated[i] = DAY_OF(arrivals[from] as number);
        for (let j = Math.max(from, upTo - HISTORY_READ); j < upTo; j++) remember(i, arrivals[j] as number);
        if (upTo - from > HISTORY_READ) histTruncated[i] = 1;
        baselineAt[i] = t;
        if (counting) baselineRequests += Math.max(1, Math.ceil((upTo - from) / 10));
        lastPoll[i] = t;
        nextPoll[i] = t + settings.everyMs;
        continue;
      }
      let found = 0;
      let lows = 0;
      let j = ptr[i] as number;
      while (j < arrivals.length && (arrivals[j] as number) <= t) {
        const at = arrivals[j] as number;
        if (at >= start && at < end && at >= app.addedAt) {
          delays[recorded] = (t - at) / 60_000;
          group[recorded] = app.role === 'own' ? 1 : 0;
          flags[recorded] = ((low[j] as number) ? 1 : 0) | ((burst[j] as number) ? 2 : 0);
          recorded++;
        }
        if (low[j]) lows++;
        remember(i, at);
        found++;
        j++;
      }
      ptr[i] = j;
      if (counting) {
        polls++;
        paging += Math.floor(found / 10);
        if (t - (lastPoll[i] as number) < (planned[i] as number) - 1) tightenedPolls++;
      }
      const low0 = lastLow[i] as number;
      const entry = {
        plannedMs: planned[i] as number,
        tightens: tightens[i] === 1,
        ratePerDay: rateOf[i] as number,
      };
      const seen = { at: t, previousAt: lastPoll[i] as number, newLowReviews: lows };
      const next = afterPoll(entry, Number.isNaN(low0) ? null : low0, seen, settings);
      lastLow[i] = next.lastIncidentAt ?? Number.NaN;
      lastPoll[i] = t;
      nextPoll[i] = t + next.intervalMs;
    }
  };

  let lastDay = -1;
  for (let now = start; now < end; now += policy.replanEveryMs) {
    const until = Math.min(end, now + policy.replanEveryMs);
    // A fixed schedule never changes: its schedulers are written once.
    if (now > start && policy.settings.policy !== 'fixed') {
      const made = plan(now);
      made.forEach((plannedMs, i) => {
        if (Number.isNaN(plannedMs) || !intervalChanged(planned[i], plannedMs, policy.tolerance)) return;
        planned[i] = plannedMs;
        changes++;
        const entry = { plannedMs, tightens: tightens[i] === 1 };
        const last = lastPoll[i] as number;
        if (Number.isNaN(last) || Number.isNaN(baselineAt[i] as number)) return;
        const low0 = lastLow[i] as number;
        const interval = intervalAfterPoll(entry, Number.isNaN(low0) ? null : low0, last, settings);
        nextPoll[i] = Math.max(now, last + interval);
      });
    }
    for (let i = 0; i < n; i++) pollUntil(i, until, true);
    const day = Math.floor((until - start) / DAY);
    if (day !== lastDay) {
      lastDay = day;
      progress(day);
    }
  }
  // Past the end: keep polling, uncounted, until every measured review has been found.
  for (let i = 0; i < n; i++) {
    const app = apps[i];
    if (!app) continue;
    const lastMeasured = upperBound(app.arrivals, end - 1e-6);
    while ((ptr[i] as number) < lastMeasured) pollUntil(i, (nextPoll[i] as number) + 1, false);
  }

  const days = world.options.days;
  const reconcile = n * costs.reconcilePagesPerDay;
  const perDay = {
    polls: polls / days,
    paging: paging / days,
    baseline: baselineRequests / days,
    reconcile,
    total: (polls + paging + baselineRequests) / days + reconcile,
  };
  const pick = (keep: (k: number) => boolean) => {
    const out: number[] = [];
    for (let k = 0; k < recorded; k++) if (keep(k)) out.push(delays[k] as number);
    return stats(out);
  };
  return {
    name: policy.name,
    perDay,
    tightenedShare: polls === 0 ? 0 : tightenedPolls / polls,
    changesPerDay: changes / days,
    projectedPerDay: projections.reduce((a, b) => a + b, 0) / Math.max(1, projections.length),
    delays: {
      all: pick(() => true),
      own: pick((k) => group[k] === 1),
      competitor: pick((k) => group[k] === 0),
      burst: pick((k) => ((flags[k] as number) & 2) !== 0),
      steady: pick((k) => ((flags[k] as number) & 2) === 0),
      low: pick((k) => ((flags[k] as number) & 1) !== 0),
    },
    warnings: [...warnings],
    wallMs: performance.now() - started,
  };
}

export function stats(values: number[]): DelayStats {
  if (values.length === 0) return { n: 0, mean: Number.NaN, p95: Number.NaN, max: Number.NaN };
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    n: sorted.length,
    mean: sum / sorted.length,
    p95: sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)] as number,
    max: sorted[sorted.length - 1] as number,
  };
}
