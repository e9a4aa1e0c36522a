/**
 * The digest's arithmetic, as pure functions of what the store returned: statistics, rating changes,
 * which reviews are the worst and the best, the comparison and the headline totals.
 */
import { isLowRated, type ScoringRules, scoreReview } from '../scoring/index.js';
import type {
  ComparisonRow,
  DigestApp,
  DigestReview,
  DigestTotals,
  Distribution,
  RatingHistory,
  RatingPoint,
  ReviewStats,
  StarRating,
  WorstCandidate,
  WorstReview,
} from './types.js';
import { MAX_BEST, MAX_WORST, STAR_RATINGS } from './types.js';

/**
 * Ratings are shown with two decimals: a change smaller than what two decimals show is no change, so a
 * rating that "fell" by 0.001 neither counts in the headline nor shows as "▼0.00".
 */
export const RATING_EPSILON = 0.005;

export type Direction = 'up' | 'down' | 'same';

export function direction(delta: number): Direction {
  if (delta <= -RATING_EPSILON) return 'down';
  if (delta >= RATING_EPSILON) return 'up';
  return 'same';
}

export function emptyDistribution(): Distribution {
  return { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 };
}

export function isStarRating(n: number): n is StarRating {
  return n === 1 || n === 2 || n === 3 || n === 4 || n === 5;
}

/** Count, average and low count from the reviews per star rating. */
export function reviewStats(distribution: Distribution, maxRating: number): ReviewStats {
  let count = 0;
  let sum = 0;
  let low = 0;
  for (const stars of STAR_RATINGS) {
    const n = distribution[stars];
    count += n;
    sum += n * stars;
    if (isLowRated(stars, maxRating)) low += n;
  }
  return { count, average: count === 0 ? null : sum / count, distribution: { ...distribution }, low };
}

export function ratingHistory(
  current: RatingPoint | null,
  lastWeek: RatingPoint | null,
  fourWeeksAgo: RatingPoint | null,
): RatingHistory {
  const change = (then: RatingPoint | null) =>
    current === null || then === null ? null : current.average - then.average;
  return {
    current,
    lastWeek,
    fourWeeksAgo,
    changeVsLastWeek: change(lastWeek),
    changeVsFourWeeksAgo: change(fourWeeksAgo),
  };
}

/** Characters as a reader counts them (an emoji is one), of the text without surrounding space. */
export function contentLength(content: string): number {
  return [...content.trim()].length;
}

/** Newest first, then by review id: a fixed order for reviews that tie on everything else. */
function newestFirst(a: DigestReview, b: DigestReview): number {
  return b.at.getTime() - a.at.getTime() || a.reviewId.localeCompare(b.reviewId);
}

/**
 * The reviews that need attention: the lowest rating first, then the most severe (the same scoring the
 * alerts use, re-ratings included), then the newest. At most `max`.
 */
export function rankWorst(
  candidates: readonly WorstCandidate[],
  rules: ScoringRules,
  max: number = MAX_WORST,
): WorstReview[] {
  return candidates
    .map(({ topics, topicsVersion, ...review }) => ({
      ...review,
      severity: scoreReview(
        {
          rating: review.rating,
          content: review.content,
          timeUsingApp: review.timeUsingApp,
          ...(review.previousRating === undefined ? {} : { previousRating: review.previousRating }),
          topics,
          topicsVersion,
        },
        rules,
      ),
    }))
    .sort((a, b) => a.rating - b.rating || b.severity.score - a.severity.score || newestFirst(a, b))
    .slice(0, max);
}

/** 5-star reviews with the most to say: the longest first, then the newest. At most `max`. */
export function pickBest(candidates: readonly DigestReview[], max: number = MAX_BEST): DigestReview[] {
  return candidates
    .filter((r) => r.rating === 5 && contentLength(r.content) > 0)
    .sort((a, b) => contentLength(b.content) - contentLength(a.content) || newestFirst(a, b))
    .slice(0, max);
}

/** Own apps first, then competitors, each in the order given (the config's). */
export function ownFirst<T extends { role: DigestApp['role'] }>(apps: readonly T[]): T[] {
  return [...apps.filter((a) => a.role === 'own'), ...apps.filter((a) => a.role !== 'own')];
}

/** Every app, own apps first; `weeks` is the period's length in weeks (1 for a weekly digest). */
export function comparisonRows(apps: readonly DigestApp[], weeks: number): ComparisonRow[] {
  return ownFirst(apps).map((app) => ({
    handle: app.handle,
    title: app.title,
    role: app.role,
    rating: app.rating.current?.average ?? null,
    ratingCount: app.rating.current?.count ?? null,
    changeVsLastWeek: app.rating.changeVsLastWeek,
    reviewsPerWeek: weeks > 0 ? app.reviews.count / weeks : app.reviews.count,
    lowShare: app.reviews.count === 0 ? null : app.reviews.low / app.reviews.count,
  }));
}

/** The apps a headline speaks of: the own ones, or all of them when none is marked own. */
export function headlineApps<T extends { role: DigestApp['role'] }>(apps: readonly T[]): T[] {
  const own = apps.filter((a) => a.role === 'own');
  return own.length > 0 ? own : [...apps];
}

export function digestTotals(apps: readonly DigestApp[]): DigestTotals {
  const counted = headlineApps(apps);
  return {
    newReviews: counted.reduce((n, a) => n + a.reviews.count, 0),
    lowReviews: counted.reduce((n, a) => n + a.reviews.low, 0),
    ratingsFell: counted.filter(
      (a) => a.rating.changeVsLastWeek !== null && direction(a.rating.changeVsLastWeek) === 'down',
    ).length,
    failedAlerts: apps.reduce((n, a) => n + a.failedAlertsTotal, 0),
  };
}
