import { describe, expect, it } from 'vitest';
import {
  type ArrivalHistory,
  createRateEstimator,
  DAY_MS,
  DEFAULT_RATE_MODEL,
  estimateRate,
  historyHorizonMs,
} from '../../src/schedule/rate.js';
import { Rng } from '../../src/simulator/random.js';

const NOW = Date.UTC(2026, 5, 15, 14, 30);
const HOUR = 3_600_000;
const LIMIT = 100;

/** Poisson arrivals at `perDay(t)` (a rate a day, per time) between `from` and `to`, seeded. */
function arrivals(
  seed: number,
  from: number,
  to: number,
  perDay: (t: number) => number,
  peak: number,
): number[] {
  const rng = new Rng(seed);
  const out: number[] = [];
  for (let t = from; ; ) {
    t += (-Math.log(1 - rng.next()) / peak) * DAY_MS;
    if (t >= to) return out;
    if (rng.next() * peak < perDay(t)) out.push(t);
  }
}

/**
 * What the store query gives for these arrival times at `now`: dates by the day, the newest LIMIT of
 * them, none before the horizon (store/arrivals.ts, tested against the real store in test/store).
 */
function historyOf(times: number[], now: number, baselineAt: number): ArrivalHistory {
  const since = now - historyHorizonMs();
  const dates = times
    .filter((t) => t <= now)
    .map((t) => Math.floor(t / DAY_MS) * DAY_MS)
    .sort((a, b) => b - a);
  const read = dates.filter((d) => d >= since).slice(0, LIMIT);
  const days: Array<[number, number]> = [];
  for (const d of read) {
    const last = days[days.length - 1];
    if (last && last[0] === d) last[1]++;
    else days.push([d, 1]);
  }
  return {
    baselineAt,
    oldestCreatedAt: dates.length > 0 ? (dates[dates.length - 1] as number) : null,
    days,
    truncated: read.length >= LIMIT,
    since,
  };
}

const steady = (rate: number) => () => rate;

describe('estimateRate', () => {
  it('calls an app cold until it has been observed for a day, unless its history already shows its pace', () => {
    expect(estimateRate(historyOf([], NOW, NOW), NOW).cold).toBe(true);
    const never: ArrivalHistory = { ...historyOf([], NOW, NOW), baselineAt: null };
    expect(estimateRate(never, NOW)).toMatchObject({ cold: true, ratePerDay: 0 });
    // Baselined an hour ago, no reviews in its history: nothing to judge by yet.
    expect(estimateRate(historyOf([], NOW, NOW - HOUR), NOW).cold).toBe(true);
    // Baselined an hour ago, but the baseline stored a month of reviews: warm, and about right.
    const month = arrivals(1, NOW - 30 * DAY_MS, NOW - HOUR, steady(3), 3);
    const warm = estimateRate(historyOf(month, NOW, NOW - HOUR), NOW);
    expect(warm.cold).toBe(false);
    expect(warm.ratePerDay).toBeGreaterThan(2);
    expect(warm.ratePerDay).toBeLessThan(4.5);
    // An app watched for two days without a review is no longer cold either.
    expect(estimateRate(historyOf([], NOW, NOW - 2 * DAY_MS), NOW).cold).toBe(false);
  });

  it.each([0.05, 0.5, 5, 50])('finds a steady pace of %s reviews a day to within a third', (rate) => {
    const errors: number[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      const times = arrivals(seed, NOW - 400 * DAY_MS, NOW, steady(rate), rate);
      const estimate = estimateRate(historyOf(times, NOW, NOW - 400 * DAY_MS), NOW);
      expect(estimate.cold).toBe(false);
      errors.push(estimate.ratePerDay / rate);
    }
    const mean = errors.reduce((a, b) => a + b, 0) / errors.length;
    // Unbiased on average (the quietest a little high: half a review of prior over two months)...
    expect(mean).toBeGreaterThan(0.85);
    expect(mean).toBeLessThan(rate < 0.1 ? 1.35 : 1.15);
    // ...and no single estimate far off.
    for (const e of errors) {
      expect(e).toBeGreaterThan(rate < 0.1 ? 0.3 : 0.6);
      expect(e).toBeLessThan(rate < 0.1 ? 3 : 1.6);
    }
  });

  it('shows a rise in pace within days', () => {
    const change = NOW - 3 * DAY_MS;
    const perDay = (t: number) => (t < change ? 1 : 10);
    const times = arrivals(7, NOW - 200 * DAY_MS, NOW, perDay, 10);
    const before = estimateRate(historyOf(times, change, NOW - 200 * DAY_MS), change).ratePerDay;
    const after = estimateRate(historyOf(times, NOW, NOW - 200 * DAY_MS), NOW).ratePerDay;
    expect(before).toBeLessThan(1.6);
    expect(after).toBeGreaterThan(6);
  });

  it('shows a fall in pace within days', () => {
    const change = NOW - 4 * DAY_MS;
    const perDay = (t: number) => (t < change ? 20 : 1);
    const times = arrivals(8, NOW - 100 * DAY_MS, NOW, perDay, 20);
    const estimate = estimateRate(historyOf(times, NOW, NOW - 100 * DAY_MS), NOW).ratePerDay;
    expect(estimate).toBeLessThan(4);
  });

  it('takes a quiet app that suddenly gets reviews seriously, and one lone review lightly', () => {
    // About one a month for a year...
    const quiet = arrivals(9, NOW - 365 * DAY_MS, NOW - 3 * DAY_MS, steady(1 / 30), 1 / 30);
    const base = NOW - 365 * DAY_MS;
    const calm = estimateRate(historyOf(quiet, NOW, base), NOW).ratePerDay;
    expect(calm).toBeLessThan(0.1);
    // ...then one review yesterday: still a quiet app.
    const lone = estimateRate(historyOf([...quiet, NOW - DAY_MS], NOW, base), NOW).ratePerDay;
    expect(lone).toBeLessThan(0.25);
    // ...or four in the last two days: a change of pace, several times the old one at once.
    const burst = [NOW - 40 * HOUR, NOW - 30 * HOUR, NOW - 20 * HOUR, NOW - 2 * HOUR];
    const busy = estimateRate(historyOf([...quiet, ...burst], NOW, base), NOW).ratePerDay;
    expect(busy).toBeGreaterThan(0.3);
    expect(busy).toBeGreaterThan(5 * calm);
  });

  it('keeps lowering the rate of an app that gets no reviews', () => {
    const rates = [10, 60, 200].map(
      (days) => estimateRate(historyOf([], NOW, NOW - days * DAY_MS), NOW).ratePerDay,
    );
    expect(rates[0]).toBeGreaterThan(rates[1] as number);
    expect(rates[1]).toBeGreaterThan(rates[2] as number);
    expect(rates[2]).toBeGreaterThan(0);
    expect(rates[2]).toBeLessThan(0.02);
  });

  it('reads only whole days when the query stopped at its limit', () => {
    // 30 a day for 20 days: the newest 100 reach into a day they only partly cover.
    const times = arrivals(11, NOW - 20 * DAY_MS, NOW, steady(30), 30);
    const history = historyOf(times, NOW, NOW - 20 * DAY_MS);
    expect(history.truncated).toBe(true);
    const estimate = estimateRate(history, NOW);
    expect(estimate.arrivals).toBeLessThan(LIMIT);
    expect(estimate.ratePerDay).toBeGreaterThan(22);
    expect(estimate.ratePerDay).toBeLessThan(40);
    // All of the newest 100 dated today: at least that many since midnight.
    const today = Math.floor(NOW / DAY_MS) * DAY_MS;
    const crowded: ArrivalHistory = { ...history, days: [[today, LIMIT]], truncated: true };
    expect(estimateRate(crowded, NOW).ratePerDay).toBeGreaterThan((LIMIT / (NOW - today)) * DAY_MS * 0.9);
  });

  it('counts a review dated ahead of now (a time zone east of ours) as today', () => {
    const history = historyOf([], NOW, NOW - 90 * DAY_MS);
    const ahead: ArrivalHistory = { ...history, days: [[NOW + DAY_MS, 2]] };
    const today: ArrivalHistory = { ...history, days: [[Math.floor(NOW / DAY_MS) * DAY_MS, 2]] };
    const a = estimateRate(ahead, NOW);
    expect(Number.isFinite(a.ratePerDay)).toBe(true);
    expect(a.ratePerDay).toBeGreaterThanOrEqual(estimateRate(today, NOW).ratePerDay);
  });

  it('gives the same answer shared across apps as one at a time', () => {
    const estimator = createRateEstimator(NOW, DEFAULT_RATE_MODEL);
    for (let seed = 1; seed <= 5; seed++) {
      const times = arrivals(seed, NOW - 90 * DAY_MS, NOW, steady(seed), seed);
      const history = historyOf(times, NOW, NOW - 90 * DAY_MS);
      expect(estimator(history)).toEqual(estimateRate(history, NOW));
    }
  });
});
