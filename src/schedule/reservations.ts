/**
 * What a day of polling spends beyond one request a poll, for a budget to hold back: baselines,
 * reconciliations and digests (reservedPerDay), and the extra pages of busy polls (pagingPerDay).
 */
import { DAY_MS as DAY_IMPORTED } from './rate.js';

/** A local copy: an imported binding is slower to read in the solver's inner loops under some loaders. */
const DAY_MS = DAY_IMPORTED;

/** Reviews on one page of the API: a poll reads one more page per this many new reviews. */
const PAGE_SIZE = 10;

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
