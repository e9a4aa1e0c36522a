import { describe, expect, it } from 'vitest';
import {
  type AppDemand,
  type AppRole,
  afterPoll,
  appWeight,
  BUDGET_MARGIN,
  DEFAULT_WEIGHTS,
  incidentThreshold,
  intervalChanged,
  isIncident,
  LONGEST_INTERVAL_MS,
  type PlanEntry,
  pagingPerDay,
  planSchedule,
  reservedPerDay,
  type ScheduleSettings,
  tighteningPerDay,
} from '../../src/schedule/index.js';
import { DAY_MS } from '../../src/schedule/rate.js';
import { Rng } from '../../src/simulator/random.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NOW = Date.UTC(2026, 5, 15, 12);

const SETTINGS: ScheduleSettings = {
  policy: 'budget',
  everyMs: 15 * MINUTE,
  minEveryMs: 2 * MINUTE,
  maxEveryMs: 12 * HOUR,
  dailyRequestBudget: 10_000,
  reservedPerDay: 0,
  relaxRatio: 0.5,
  lowShare: 0.2,
};

function app(
  handle: string,
  ratePerDay: number,
  options: { role?: AppRole; weight?: number; cold?: boolean; lastIncidentAt?: number } = {},
): AppDemand {
  const role = options.role ?? 'own';
  return {
    handle,
    role,
    weight: options.weight ?? appWeight({ role }),
    rate: {
      ratePerDay,
      longRatePerDay: ratePerDay,
      cold: options.cold ?? false,
      observedDays: 60,
      arrivals: 100,
    },
    lastIncidentAt: options.lastIncidentAt ?? null,
  };
}

function entry(plan: { entries: PlanEntry[] }, handle: string): PlanEntry {
  const found = plan.entries.find((e) => e.handle === handle);
  if (!found) throw new Error(`no plan entry for ${handle}`);
  return found;
}

/** Σ w λ T / 2: the weighted delay a plan keeps reviews waiting, per day (the rule's objective). */
function weightedDelay(apps: AppDemand[], intervals: number[]): number {
  return apps.reduce((s, a, i) => s + (a.weight * a.rate.ratePerDay * (intervals[i] as number)) / 2, 0);
}

describe('the budget policy', () => {
  // Wide bounds and no tightening: the rule alone.
  const wide: ScheduleSettings = {
    ...SETTINGS,
    minEveryMs: 1_000,
    maxEveryMs: 30 * DAY_MS,
    everyMs: HOUR,
    relaxRatio: 0,
    reservedPerDay: 300,
    dailyRequestBudget: 2_300,
  };
  const apps = [
    app('a', 0.5),
    app('b', 2),
    app('c', 8, { weight: 0.25 }),
    app('d', 32),
    app('e', 1, { role: 'competitor' }),
    app('f', 40, { role: 'competitor' }),
  ];

  it('polls each app in proportion to √(w λ) where no bound binds: T_i · √(w_i λ_i) is one constant', () => {
    const plan = planSchedule(apps, wide, NOW);
    const products = apps.map(
      (a) => entry(plan, a.handle).plannedMs * Math.sqrt(a.weight * a.rate.ratePerDay),
    );
    const mean = products.reduce((s, p) => s + p, 0) / products.length;
    // Within the rounding of intervals to whole seconds.
    for (const p of products) expect(Math.abs(p / mean - 1)).toBeLessThan(0.005);
    expect(plan.entries.every((e) => e.reason === 'rate')).toBe(true);
    // And it spends the budget, less its margin.
    expect(plan.projected.total / (2_300 * (1 - BUDGET_MARGIN))).toBeCloseTo(1, 2);
    expect(plan.projected.reserved).toBe(300);
  });

  it('beats any other split of the same requests on the weighted delay', () => {
    const plan = planSchedule(apps, wide, NOW);
    const best = apps.map((a) => entry(plan, a.handle).plannedMs);
    const polls = best.reduce((s, t) => s + DAY_MS / t, 0);
    const rng = new Rng(42);
    const splits = [
      // Evenly: what `fixed` does with these requests.
      apps.map(() => apps.length / polls),
      // In proportion to the rate.
      apps.map((a) => 1 / a.rate.ratePerDay),
      // Random perturbations of the optimum.
      ...Array.from({ length: 20 }, () => best.map((t) => t * (0.7 + 0.6 * rng.next()))),
    ].map((shape) => {
      // Rescaled to the same polls a day.
      const scale = shape.reduce((s, t) => s + DAY_MS / t, 0) / polls;
      return shape.map((t) => t * scale);
    });
    const optimum = weightedDelay(apps, best);
    for (const split of splits) expect(weightedDelay(apps, split)).toBeGreaterThan(optimum);
  });

  it('weights own apps above competitors: √2000 (45) times the polls at the same pace', () => {
    const plan = planSchedule([app('own', 3), app('rival', 3, { role: 'competitor' })], wide, NOW);
    const ratio = entry(plan, 'rival').plannedMs / entry(plan, 'own').plannedMs;
    expect(ratio).toBeCloseTo(Math.sqrt(1 / DEFAULT_WEIGHTS.competitor), 0);
    expect(appWeight({ role: 'competitor', weight: 0.5 })).toBe(0.5);
  });

  it('clamps the busiest apps to minEvery and the quietest to maxEvery, the rest still by the rule', () => {
    const settings = { ...SETTINGS, relaxRatio: 0, dailyRequestBudget: 1_500 };
    const plan = planSchedule(
      [app('dead', 1e-5), app('mid', 2), app('mid2', 8), app('hot', 5_000)],
      settings,
      NOW,
    );
    expect(entry(plan, 'dead')).toMatchObject({ plannedMs: 12 * HOUR, reason: 'maxEvery' });
    expect(entry(plan, 'hot')).toMatchObject({ plannedMs: 2 * MINUTE, reason: 'minEvery' });
    const mid = entry(plan, 'mid');
    const mid2 = entry(plan, 'mid2');
    expect(mid.reason).toBe('rate');
    expect(mid.plannedMs / mid2.plannedMs).toBeCloseTo(2, 2);
    expect(plan.projected.total / (1_500 * (1 - BUDGET_MARGIN))).toBeCloseTo(1, 2);
  });

  it('gives a cold app poll.every, and counts it against the budget', () => {
    const plan = planSchedule([app('new', 0, { cold: true }), app('old', 3)], SETTINGS, NOW);
    expect(entry(plan, 'new')).toMatchObject({
      plannedMs: 15 * MINUTE,
      reason: 'cold start',
      tightens: false,
    });
    expect(plan.projected.polls).toBeGreaterThan(96);
  });

  it('keeps its projection within the budget with the tightening paid for', () => {
    const many = Array.from({ length: 200 }, (_, i) =>
      app(`app-${i}`, 0.02 * 1.05 ** i, { role: i % 10 === 0 ? 'own' : 'competitor' }),
    );
    for (const budget of [3_000, 10_000, 30_000]) {
      const plan = planSchedule(many, { ...SETTINGS, reservedPerDay: 400, dailyRequestBudget: budget }, NOW);
      expect(plan.warnings).toEqual([]);
      expect(plan.projected.tightening).toBeGreaterThan(0);
      expect(plan.projected.total / (budget * (1 - BUDGET_MARGIN))).toBeCloseTo(1, 2);
    }
  });

  it('warns when the budget cannot keep every own app within maxEvery, stretching competitors first', () => {
    const apps = [
      ...Array.from({ length: 20 }, (_, i) => app(`own-${i}`, 1)),
      ...Array.from({ length: 200 }, (_, i) => app(`rival-${i}`, 1, { role: 'competitor' })),
    ];
    // Every app at maxEvery (12h) would take 440 polls a day.
    const plan = planSchedule(apps, { ...SETTINGS, dailyRequestBudget: 300 }, NOW);
    const own = entry(plan, 'own-0');
    const rival = entry(plan, 'rival-0');
    expect(own.plannedMs).toBeGreaterThan(12 * HOUR);
    // Past maxEvery, a competitor stretches √(1 / 0.0005) = 45 times as far as an own app.
    const beyond = (e: PlanEntry) => e.plannedMs / (12 * HOUR) - 1;
    expect(beyond(rival) / beyond(own)).toBeCloseTo(Math.sqrt(2_000), -1);
    expect(own.reason).toBe('over budget');
    expect(own.tightens).toBe(false);
    expect(plan.warnings).toHaveLength(1);
    expect(plan.warnings[0]).toMatch(/cannot keep every own app within poll\.maxEvery \(12h\): 20 own apps/);
    expect(plan.warnings[0]).toMatch(/needs about 449 requests a day/);
    expect(plan.projected.total).toBeLessThanOrEqual(300);
  });

  it('stays quiet when every app fits within maxEvery', () => {
    const apps = [
      app('own', 1),
      ...Array.from({ length: 100 }, (_, i) => app(`r${i}`, 1, { role: 'competitor' })),
    ];
    // Enough for every app at maxEvery: no stretch, no warning.
    const plan = planSchedule(apps, { ...SETTINGS, dailyRequestBudget: 300, relaxRatio: 0 }, NOW);
    expect(plan.warnings).toEqual([]);
    expect(Math.max(...plan.entries.map((e) => e.plannedMs))).toBeLessThanOrEqual(12 * HOUR);
  });

  it('says so when not even a poll a week fits the budget', () => {
    const apps = Array.from({ length: 100 }, (_, i) => app(`a${i}`, 1));
    const plan = planSchedule(apps, { ...SETTINGS, dailyRequestBudget: 100, reservedPerDay: 95 }, NOW);
    expect(Math.max(...plan.entries.map((e) => e.plannedMs))).toBe(LONGEST_INTERVAL_MS);
    expect(plan.warnings.some((w) => /cannot be kept/.test(w))).toBe(true);
  });

  it('drops the tightening, and says so, when the budget pays for the polls but not for it', () => {
    // Quiet own apps, where every low review is an incident: 100 polls a day at maxEvery, and the
    // tightening would add several more than the 3 left over.
    const apps = Array.from({ length: 50 }, (_, i) => app(`a${i}`, 0.05));
    const plan = planSchedule(apps, { ...SETTINGS, dailyRequestBudget: 105 }, NOW);
    expect(plan.entries.every((e) => !e.tightens)).toBe(true);
    expect(plan.warnings).toHaveLength(1);
    expect(plan.warnings[0]).toMatch(/leaves nothing for polling own apps sooner after an incident/);
  });
});

describe('the adaptive policy', () => {
  const settings = { ...SETTINGS, policy: 'adaptive' as const, dailyRequestBudget: null };

  it('keeps the weighted mean delay of fixed (poll.every / 2) with busy apps polled more, quiet ones less', () => {
    const apps = [app('a', 0.2), app('b', 2), app('c', 20), app('d', 5, { role: 'competitor' })];
    const plan = planSchedule(apps, settings, NOW);
    const intervals = apps.map((a) => entry(plan, a.handle).plannedMs);
    const totalWeight = apps.reduce((s, a) => s + a.weight * a.rate.ratePerDay, 0);
    expect(weightedDelay(apps, intervals) / totalWeight).toBeCloseTo((15 * MINUTE) / 2, -3);
    expect(entry(plan, 'c').plannedMs).toBeLessThan(15 * MINUTE);
    expect(entry(plan, 'a').plannedMs).toBeGreaterThan(15 * MINUTE);
    expect(plan.warnings).toEqual([]);
    expect(plan.projected.total).toBeLessThan(4 * 96);
  });

  it('warns when it would spend more than a budget given anyway', () => {
    const plan = planSchedule([app('a', 30), app('b', 30)], { ...settings, dailyRequestBudget: 100 }, NOW);
    expect(plan.warnings[0]).toMatch(
      /adaptive schedule is projected to spend .* over catalog\.dailyRequestBudget/,
    );
  });
});

describe('the fixed policy', () => {
  it('polls every app every poll.every, whatever its pace, and never tightens', () => {
    const settings = { ...SETTINGS, policy: 'fixed' as const, dailyRequestBudget: null };
    const plan = planSchedule(
      [app('a', 0.01, { lastIncidentAt: NOW }), app('b', 50), app('c', 0, { cold: true })],
      settings,
      NOW,
    );
    for (const e of plan.entries) {
      expect(e).toMatchObject({
        plannedMs: 15 * MINUTE,
        intervalMs: 15 * MINUTE,
        reason: 'fixed',
        tightens: false,
      });
    }
    expect(plan.projected.polls).toBe(3 * 96);
    expect(plan.level).toBeNull();
  });
});

describe('tightening after an incident', () => {
  const quiet = { plannedMs: 6 * HOUR, tightens: true, ratePerDay: 0.1 };
  const busy = { plannedMs: 5 * MINUTE, tightens: true, ratePerDay: 48 };

  it('calls one low review an incident on a quiet app, and needs several on a busy one', () => {
    const poll = (n: number, previousAt = NOW - 6 * HOUR) => ({ at: NOW, previousAt, newLowReviews: n });
    expect(isIncident(quiet, poll(1), SETTINGS)).toBe(true);
    expect(isIncident(quiet, poll(0), SETTINGS)).toBe(false);
    expect(isIncident(busy, poll(1, NOW - 5 * MINUTE), SETTINGS)).toBe(false);
    expect(isIncident(busy, poll(3, NOW - 5 * MINUTE), SETTINGS)).toBe(true);
    expect(isIncident({ ...quiet, tightens: false }, poll(5), SETTINGS)).toBe(false);
    // The threshold: the fewest low reviews that chance alone reaches in under 1 poll of 100.
    expect(incidentThreshold(0.001)).toBe(1);
    expect(incidentThreshold(0.05)).toBe(2);
    expect(incidentThreshold(1)).toBe(5);
  });

  it('tightens at once to minEvery, then relaxes 1.5× a poll back to the plan', () => {
    let at = NOW;
    let state = afterPoll(quiet, null, { at, previousAt: at - 6 * HOUR, newLowReviews: 1 }, SETTINGS);
    const intervals = [state.intervalMs];
    while (state.intervalMs < quiet.plannedMs && intervals.length < 100) {
      const previousAt = at;
      at += state.intervalMs;
      state = afterPoll(quiet, state.lastIncidentAt, { at, previousAt, newLowReviews: 0 }, SETTINGS);
      intervals.push(state.intervalMs);
    }
    expect(intervals[0]).toBe(2 * MINUTE);
    expect(intervals.at(-1)).toBe(6 * HOUR);
    expect(Math.min(...intervals)).toBe(2 * MINUTE);
    for (let k = 1; k < intervals.length; k++) {
      const growth = (intervals[k] as number) / (intervals[k - 1] as number);
      expect(growth).toBeGreaterThanOrEqual(1);
      // 1.5, give or take the rounding to whole seconds.
      expect(growth).toBeLessThanOrEqual(1.51);
    }
    // Back at the plan from 12 hours (T / relaxRatio) after the incident, in about log(180)/log(1.5) polls.
    expect(at - NOW).toBeGreaterThanOrEqual(12 * HOUR);
    expect(at - NOW).toBeLessThan(18 * HOUR);
    expect(intervals.length).toBeGreaterThan(12);
    expect(intervals.length).toBeLessThan(18);
  });

  it('shows in the plan while it lasts', () => {
    const apps = [
      app('hit', 0.5, { lastIncidentAt: NOW - 10 * MINUTE }),
      app('rival', 0.5, { role: 'competitor', lastIncidentAt: NOW - 10 * MINUTE }),
      app('calm', 0.5, { lastIncidentAt: NOW - 30 * DAY_MS }),
    ];
    const plan = planSchedule(apps, { ...SETTINGS, dailyRequestBudget: 50 }, NOW);
    expect(entry(plan, 'hit').plannedMs).toBeGreaterThan(HOUR);
    expect(entry(plan, 'hit')).toMatchObject({
      intervalMs: 5 * MINUTE,
      reason: 'tightened',
      tightens: true,
      lastIncidentAt: NOW - 10 * MINUTE,
    });
    expect(entry(plan, 'rival').tightens).toBe(false);
    expect(entry(plan, 'rival').intervalMs).toBe(entry(plan, 'rival').plannedMs);
    expect(entry(plan, 'calm').intervalMs).toBe(entry(plan, 'calm').plannedMs);
  });

  it('costs about what tighteningPerDay projects, on a simulated own app', () => {
    const rng = new Rng(7);
    const ratePerDay = 5;
    const e = { plannedMs: 3 * HOUR, tightens: true, ratePerDay };
    // Long enough for a couple of hundred chance incidents: the comparison is within their noise.
    const days = 3_000;
    // Poisson reviews, a fifth of them low.
    const reviews: Array<{ at: number; low: boolean }> = [];
    for (let t = NOW; t < NOW + days * DAY_MS; ) {
      t += (-Math.log(1 - rng.next()) / ratePerDay) * DAY_MS;
      reviews.push({ at: t, low: rng.next() < SETTINGS.lowShare });
    }
    let polls = 0;
    let at = NOW;
    let previousAt = NOW - e.plannedMs;
    let lastIncidentAt: number | null = null;
    let k = 0;
    while (at < NOW + days * DAY_MS) {
      let lows = 0;
      while (k < reviews.length && (reviews[k] as { at: number }).at <= at) {
        if ((reviews[k] as { low: boolean }).low) lows++;
        k++;
      }
      const next = afterPoll(e, lastIncidentAt, { at, previousAt, newLowReviews: lows }, SETTINGS);
      lastIncidentAt = next.lastIncidentAt;
      previousAt = at;
      at += next.intervalMs;
      polls++;
    }
    const extra = polls / days - DAY_MS / e.plannedMs;
    const projected = tighteningPerDay(true, ratePerDay, e.plannedMs, SETTINGS);
    expect(extra).toBeGreaterThan(0);
    expect(extra / projected).toBeGreaterThan(0.8);
    expect(extra / projected).toBeLessThan(1.2);
  });
});

describe('helpers', () => {
  it('rewrites an interval only when it moved by more than the tolerance', () => {
    expect(intervalChanged(undefined, 1_000)).toBe(true);
    expect(intervalChanged(100_000, 115_000)).toBe(false);
    expect(intervalChanged(115_000, 100_000)).toBe(false);
    expect(intervalChanged(100_000, 130_000)).toBe(true);
    expect(intervalChanged(100_000, 105_000, 0.01)).toBe(true);
  });

  it('reserves reconciliations and pending baselines', () => {
    const reserved = reservedPerDay({
      apps: 2_020,
      pendingBaselines: 3,
      baselinePages: 20,
      reconcileEveryMs: DAY_MS,
      reconcilePages: 5,
    });
    expect(reserved).toBe(2_020 * 5 + 60);
  });

  it('projects extra pages only when more than a page arrives between polls', () => {
    expect(pagingPerDay(10, HOUR)).toBe(0);
    // 100 a day polled every 6 hours: 25 a poll, about two extra pages each, four polls a day.
    expect(pagingPerDay(100, 6 * HOUR)).toBeCloseTo(8.2, 1);
  });

  it('refuses settings that cannot be planned', () => {
    expect(() => planSchedule([], { ...SETTINGS, dailyRequestBudget: null }, NOW)).toThrow(
      /dailyRequestBudget/,
    );
    expect(() => planSchedule([], { ...SETTINGS, minEveryMs: DAY_MS }, NOW)).toThrow(/minEvery/);
    expect(() => planSchedule([], { ...SETTINGS, everyMs: DAY_MS }, NOW)).toThrow(/poll\.every/);
    expect(planSchedule([], SETTINGS, NOW).entries).toEqual([]);
  });
});

describe('own apps and the market under a budget', () => {
  const cap = { maxEveryMs: 15 * MINUTE };
  const own = (h: string, rate: number) => ({ ...app(h, rate), ...cap });

  it('never polls an own app less often than its own cap, under adaptive or budget', () => {
    const apps = [own('quiet', 0.01), own('busy', 200), app('rival', 0.01, { role: 'competitor' })];
    for (const policy of ['adaptive', 'budget'] as const) {
      const plan = planSchedule(apps, { ...SETTINGS, policy, dailyRequestBudget: 400, relaxRatio: 0 }, NOW);
      expect(entry(plan, 'quiet').plannedMs).toBeLessThanOrEqual(15 * MINUTE);
      expect(entry(plan, 'busy').plannedMs).toBeLessThanOrEqual(15 * MINUTE);
    }
    // Even when the budget cannot pay for it: the competitors and the market give way, then it warns.
    const tight = planSchedule(apps, { ...SETTINGS, dailyRequestBudget: 50, relaxRatio: 0 }, NOW);
    expect(entry(tight, 'quiet').plannedMs).toBe(15 * MINUTE);
    expect(tight.warnings.some((w) => /cannot be kept/.test(w))).toBe(true);
  });

  it("stretches the market reads after the competitors' polls and before any own app's", () => {
    const apps = [
      own('mine', 1),
      ...Array.from({ length: 70 }, (_, i) => app(`r${i}`, 0.1, { role: 'competitor' })),
    ];
    const market = { perDay: 100, maxStretch: 7 };
    // Own app at its cap: 96 a day; 70 competitors once a week: 10 a day; market 100 at its periods.
    const roomy = planSchedule(apps, { ...SETTINGS, relaxRatio: 0, market, dailyRequestBudget: 2_000 }, NOW);
    expect(roomy.marketStretch).toBe(1);
    const squeezed = planSchedule(apps, { ...SETTINGS, relaxRatio: 0, market, dailyRequestBudget: 200 }, NOW);
    // The competitors went as far as they may, the market gave the rest, the own app none.
    expect(entry(squeezed, 'r0').plannedMs).toBe(LONGEST_INTERVAL_MS);
    expect(squeezed.marketStretch).toBeGreaterThan(1);
    expect(squeezed.marketStretch).toBeLessThan(7);
    expect(entry(squeezed, 'mine').plannedMs).toBe(15 * MINUTE);
    expect(squeezed.projected.total).toBeLessThanOrEqual(200);
    // Competitors alone can make room: the market keeps its periods.
    const middle = planSchedule(apps, { ...SETTINGS, relaxRatio: 0, market, dailyRequestBudget: 300 }, NOW);
    expect(middle.marketStretch).toBe(1);
    expect(entry(middle, 'r0').plannedMs).toBeGreaterThan(12 * HOUR);
  });
});
