/**
 * Each app's review arrival rate, from the dates of its stored reviews.
 *
 * Arrivals are treated as a Poisson process whose rate drifts. A decayed estimate is a decayed count
 * over a decayed exposure: with weights e^(-age/τ), n = Σ e^(-age_i/τ) over the arrivals and
 * E = ∫ e^(-age/τ) over the time the app was observed; n / E is the maximum-likelihood rate of a
 * Poisson process seen through that window, and (n + α) / (E + β) its posterior mean under a Gamma(α, β)
 * prior. Three of them, combined:
 *
 * - long (τ = `longDecayMs`, two months), with Jeffreys' prior (α = ½, β = 0): the pace over months, which
 *   is all there is to judge a quiet app by. An app with no review at all gets half a review over the
 *   window: a small rate that keeps falling the longer nothing arrives, never zero;
 * - short (τ = `shortDecayMs`, two days), with the long one as its prior, worth `priorArrivals` reviews
 *   (α = k, β = k / λ_long): a busy app's recent reviews outweigh the prior within hours, so a change of
 *   its pace shows within days; a quiet app's lone review barely moves it;
 * - and, so that a quiet app that suddenly gets busy shows it too, never less than the lower end of a
 *   one-sided 90% interval of the short count, (√n − 0.64)² / E (the square root stabilises a Poisson
 *   count's variance): three reviews in a day make an app that had one a month a 0.4-a-day app.
 *
 * Review dates come from the API by the day (`review_created_date` is a date, see docs/catalog-api.md),
 * so an arrival dated d is taken as spread evenly over [d, d + 1 day] (up to now), and its weight is the
 * exact average of e^(-age/τ) over that span.
 *
 * Pure: no clock, no store. store/arrivals.ts reads the history; the callers say what time it is.
 */
import type { AppArrivals } from '../store/arrivals.js';

export const DAY_MS = 86_400_000;

export interface RateModel {
  /** Time constant of the fast estimate: how soon a change of pace shows. */
  shortDecayMs: number;
  /** Time constant of the slow estimate, the fast one's prior: how much history a quiet app is judged on. */
  longDecayMs: number;
  /** How many reviews' worth the slow estimate counts as the fast one's prior. */
  priorArrivals: number;
  /** An app observed for less than this, with few reviews, is cold: it keeps the configured interval. */
  coldStartMs: number;
}

export const DEFAULT_RATE_MODEL: RateModel = {
  shortDecayMs: 2 * DAY_MS,
  longDecayMs: 60 * DAY_MS,
  priorArrivals: 2,
  coldStartMs: DAY_MS,
};

/** How far back the store is read: reviews older than six time constants weigh less than 0.25% each. */
export function historyHorizonMs(model: RateModel = DEFAULT_RATE_MODEL): number {
  return 6 * model.longDecayMs;
}

/** Jeffreys' prior for a Poisson rate: half an arrival over no exposure. */
const JEFFREYS = 0.5;

/** Half the one-sided 90% normal quantile: √n − this bounds √λE from below (Anscombe-style). */
const HALF_Z90 = 0.64;

/** What the model reads of an app's history (store/arrivals.ts gives it); `days` may come in any order. */
export type ArrivalHistory = Pick<
  AppArrivals,
  'baselineAt' | 'oldestCreatedAt' | 'days' | 'truncated' | 'since'
>;

export interface RateEstimate {
  /** Expected new reviews a day: the fast estimate. */
  ratePerDay: number;
  /** The slow estimate, for display and for judging how far the pace moved. */
  longRatePerDay: number;
  /** Too little history to judge: the app keeps the configured interval. */
  cold: boolean;
  /** How long the estimate's window is, in days. */
  observedDays: number;
  /** Reviews counted in the window. */
  arrivals: number;
}

/**
 * Estimates rates for many apps at one moment. The weight of a review date depends only on the date and
 * `now`, so one estimator shares them between apps: with 10,000 apps most dates repeat.
 */
export function createRateEstimator(now: number, model: RateModel = DEFAULT_RATE_MODEL) {
  const slots = new Map<number, number>();
  const shortWeights: number[] = [];
  const longWeights: number[] = [];
  // Most dates are whole days before today's midnight (UTC): those find their slot without hashing.
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const byAge = new Int32Array(1024).fill(-1);
  /** Index into shortWeights/longWeights of a review date's weights, computed once per date. */
  const slotOf = (day: number): number => {
    const age = (today - day) / DAY_MS;
    const aligned = Number.isInteger(age) && age >= 0 && age < byAge.length;
    if (aligned && (byAge[age] as number) >= 0) return byAge[age] as number;
    let slot = slots.get(day);
    if (slot === undefined) {
      slot = shortWeights.length;
      const b = Math.min(day + DAY_MS, now);
      const a = Math.min(day, b);
      shortWeights.push(meanDecay(a, b, now, model.shortDecayMs));
      longWeights.push(meanDecay(a, b, now, model.longDecayMs));
      slots.set(day, slot);
    }
    if (aligned) byAge[age] = slot;
    return slot;
  };

  return (history: ArrivalHistory): RateEstimate => {
    if (history.baselineAt === null) {
      return { ratePerDay: 0, longRatePerDay: 0, cold: true, observedDays: 0, arrivals: 0 };
    }
    const days = history.days;
    const firstKnown = Math.min(history.baselineAt, history.oldestCreatedAt ?? history.baselineAt);
    let start = Math.max(history.since, firstKnown);
    // When truncated, the oldest date is only partly read (the query stopped at its limit): that day is
    // left out, and the window starts where the fully read days do.
    let skip = -1;
    if (history.truncated && days.length > 0) {
      let oldest = Number.POSITIVE_INFINITY;
      let oldestKept = Number.POSITIVE_INFINITY;
      days.forEach(([day], i) => {
        if (day < oldest) {
          oldestKept = oldest;
          oldest = day;
          skip = i;
        } else if (day < oldestKept) oldestKept = day;
      });
      if (days.length > 1) start = Math.max(start, Math.min(oldest + DAY_MS, oldestKept, now));
      else {
        // Every review read shares one date: at least that many since that day began.
        skip = -1;
        start = Math.max(start, Math.min(oldest, now));
      }
    }
    start = Math.min(start, now);
    const observed = now - start;
    let arrivals = 0;
    let nShort = 0;
    let nLong = 0;
    for (let i = 0; i < days.length; i++) {
      if (i === skip) continue;
      const entry = days[i] as readonly [number, number];
      const count = entry[1];
      // Dates ahead of now (a listing dated in a time zone east of ours) count as today. The window never
      // starts after a counted date's day began, so a date's weight does not depend on the app.
      const slot = slotOf(Math.min(entry[0], now));
      arrivals += count;
      nShort += count * (shortWeights[slot] as number);
      nLong += count * (longWeights[slot] as number);
    }
    const cold = !history.truncated && observed < model.coldStartMs;
    // A cold app's window can be minutes long; its rate is shown, not used, so keep it sane.
    const span = Math.max(observed, cold ? model.coldStartMs : 0, 1);
    const exposureShort = exposure(span, model.shortDecayMs);
    const exposureLong = exposure(span, model.longDecayMs);
    const longRate = (nLong + JEFFREYS) / exposureLong;
    const k = model.priorArrivals;
    const blended = (nShort + k) / (exposureShort + k / longRate);
    const surge = Math.max(0, Math.sqrt(nShort) - HALF_Z90) ** 2 / exposureShort;
    const rate = Math.max(blended, surge);
    return {
      ratePerDay: rate * DAY_MS,
      longRatePerDay: longRate * DAY_MS,
      cold,
      observedDays: observed / DAY_MS,
      arrivals,
    };
  };
}

/** One app's rate; use createRateEstimator for many. */
export function estimateRate(
  history: ArrivalHistory,
  now: number,
  model: RateModel = DEFAULT_RATE_MODEL,
): RateEstimate {
  return createRateEstimator(now, model)(history);
}

/** ∫ e^(-age/τ) over the last `span` ms. */
function exposure(span: number, tau: number): number {
  return tau * -Math.expm1(-span / tau);
}

/** The mean of e^(-age/τ) for an arrival spread evenly over [a, b] (age = now − time). */
function meanDecay(a: number, b: number, now: number, tau: number): number {
  const width = b - a;
  const newest = Math.exp(-(now - b) / tau);
  if (width < 1) return newest;
  // τ/w · (e^(-(now-b)/τ) - e^(-(now-a)/τ)), written so that short spans keep their precision.
  return (tau / width) * newest * -Math.expm1(-width / tau);
}
