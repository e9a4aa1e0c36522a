/**
 * The best any schedule could do on a world's own rates, to hold the policies against. Written apart from
 * src/schedule/solvers.ts on purpose: a bound computed with the code it judges would prove nothing.
 *
 * Setting: app i gets Poisson arrivals at rate λ_i (its mean rate in the simulated world)
 * and is polled every T_i ∈ [min, max]; polls/day = Σ 1 / T_i. A review waits uniformly on [0, T_i], so
 * the mean delay is Σ λ_i T_i / 2 / Σ λ_i, and the share of reviews waiting longer than D is
 * Σ λ_i (1 − D / T_i)⁺ / Σ λ_i. (Periodic polling is optimal for one app: for a fixed number of polls,
 * both the mean wait, Σ g_j² / 2Σ g_j over the gaps g_j, and the time spent more than D after a poll,
 * Σ (g_j − D)⁺, are convex in the gaps and so least when the gaps are equal.)
 *
 * - Best mean delay for P polls a day: minimise Σ λ_i T_i subject to Σ 1/T_i = P. Lagrange gives
 *   T_i = c / √λ_i, clamped to [min, max] (water-filling), c set by the budget.
 * - Fewest polls for a p95 of D: minimise Σ x_i (x_i = 1/T_i) subject to Σ λ_i (1 − D x_i)⁺ ≤ 5% Σ λ_i.
 *   For x_i ≤ 1/D both the cost and the late share are linear in x_i, and x_i > 1/D buys nothing, so each
 *   app sits at an end: x_i = 1/D (never late) or x_i = 1/max (late with share 1 − D/max). Moving app i
 *   up costs the same 1/D − 1/max for every app and removes λ_i (1 − D/max) of lateness: a fractional
 *   knapsack, filled busiest first. The optimum polls the busiest apps every D and leaves the quietest,
 *   holding 5% of the reviews, at max: it makes the p95 and the mean pull apart (see bench/README.md).
 *
 * Both bounds ignore the daily cycle (a schedule that knew it could do a few percent better; reported
 * separately) and the bursts (no schedule can know when they come).
 */
import { DAY } from './schedule-world.js';

export interface Bounds {
  /** Least mean delay (minutes) for this many polls a day. */
  meanDelayFor(pollsPerDay: number): number;
  /** The p95 delay (minutes) of that mean-optimal plan. */
  p95OfMeanPlan(pollsPerDay: number): number;
  /** Polls a day the mean-optimal plan needs to reach a p95 of `minutes`. */
  meanPlanPollsForP95(minutes: number): number;
  /** Polls a day the mean-optimal plan needs for a mean delay of `minutes`. */
  pollsForMean(minutes: number): number;
  /** Fewest polls a day for a p95 delay of `minutes`. */
  pollsForP95(minutes: number): number;
  /** The mean delay (minutes) of the plan pollsForP95 makes: what that optimum does to the mean. */
  meanOfP95Plan(minutes: number): number;
}

export function bounds(rates: Float64Array, minMs: number, maxMs: number): Bounds {
  const lam = Array.from(rates).filter((r) => r > 0);
  const total = lam.reduce((a, b) => a + b, 0);
  const quietApps = rates.length - lam.length;
  const sqrtPlan = (pollsPerDay: number): number[] => {
    // Quiet apps (no review at all) still cost a poll every max.
    const budget = pollsPerDay - (quietApps * DAY) / maxMs;
    const intervals = (c: number) => lam.map((l) => Math.min(maxMs, Math.max(minMs, c / Math.sqrt(l))));
    const polls = (c: number) => intervals(c).reduce((s, t) => s + DAY / t, 0);
    let lo = Math.log(minMs * Math.sqrt(Math.min(...lam)));
    let hi = Math.log(maxMs * Math.sqrt(Math.max(...lam)));
    for (let i = 0; i < 100; i++) {
      const mid = (lo + hi) / 2;
      if (polls(Math.exp(mid)) > budget) lo = mid;
      else hi = mid;
    }
    return intervals(Math.exp(hi));
  };
  const p95Plan = (minutes: number): { polls: number; mean: number } => {
    const d = minutes * 60_000;
    const target = 0.05 * total;
    const late = (l: number) => l * Math.max(0, 1 - d / maxMs);
    const order = lam.map((l, i) => [l, i] as const).sort((a, b) => b[0] - a[0]);
    const x = lam.map(() => 1 / maxMs);
    let lateness = lam.reduce((s, l) => s + late(l), 0);
    const top = 1 / Math.max(d, minMs);
    const lateAtTop = (l: number) => l * Math.max(0, 1 - d * top);
    for (const [l, i] of order) {
      if (lateness <= target) break;
      const gain = late(l) - lateAtTop(l);
      if (gain <= 0) continue;
      if (lateness - gain >= target) {
        x[i] = top;
        lateness -= gain;
      } else {
        // Part of the way: lateness is linear in x between the two ends.
        const need = lateness - target;
        x[i] = 1 / maxMs + (top - 1 / maxMs) * (need / gain);
        lateness = target;
      }
    }
    const polls = x.reduce((s, v) => s + v * DAY, 0) + (quietApps * DAY) / maxMs;
    const mean = lam.reduce((s, l, i) => s + l / (x[i] as number) / 2, 0) / total / 60_000;
    return { polls, mean };
  };
  const meanOf = (t: number[]) => lam.reduce((s, l, i) => s + (l * (t[i] as number)) / 2, 0) / total / 60_000;
  const p95Of = (t: number[]) => {
    // The D at which the share of reviews waiting longer, Σ λ (1 − D/T)⁺ / Σ λ, falls to 5%.
    let lo = 0;
    let hi = maxMs;
    for (let k = 0; k < 60; k++) {
      const d = (lo + hi) / 2;
      const late = lam.reduce((s, l, i) => s + l * Math.max(0, 1 - d / (t[i] as number)), 0);
      if (late > 0.05 * total) lo = d;
      else hi = d;
    }
    return hi / 60_000;
  };
  /** Polls a day at which a measure of the mean-optimal plan, falling with more polls, meets `target`. */
  const invert = (measure: (t: number[]) => number, target: number) => {
    let lo = Math.log((rates.length * DAY) / maxMs);
    let hi = Math.log((rates.length * DAY) / minMs);
    for (let k = 0; k < 50; k++) {
      const mid = (lo + hi) / 2;
      if (measure(sqrtPlan(Math.exp(mid))) > target) lo = mid;
      else hi = mid;
    }
    return Math.exp(hi);
  };
  return {
    meanDelayFor: (pollsPerDay) => meanOf(sqrtPlan(pollsPerDay)),
    p95OfMeanPlan: (pollsPerDay) => p95Of(sqrtPlan(pollsPerDay)),
    meanPlanPollsForP95: (minutes) => invert(p95Of, minutes),
    pollsForMean: (minutes) => invert(meanOf, minutes),
    pollsForP95: (minutes) => p95Plan(minutes).polls,
    meanOfP95Plan: (minutes) => p95Plan(minutes).mean,
  };
}

/**
 * What knowing the daily cycle would gain on the mean: with rate λ(1 + a sin θ), polling in proportion to
 * √λ(t) instead of evenly scales the least mean delay by (E√(1 + a sin θ))².
 */
export function cycleGain(amplitude: number): number {
  const steps = 10_000;
  let sum = 0;
  for (let k = 0; k < steps; k++) sum += Math.sqrt(1 + amplitude * Math.sin((2 * Math.PI * k) / steps));
  return (sum / steps) ** 2;
}
