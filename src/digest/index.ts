export { type CollectInput, collectDigest, type DigestAppInput, digestInputOf } from './collect.js';
export {
  assertTimezone,
  type DigestPeriod,
  isoInZone,
  periodBetween,
  periodEndKey,
  periodKey,
  previousWeek,
  shortLabel,
  weekContaining,
} from './period.js';
export type {
  AppRole,
  ComparisonRow,
  DigestApp,
  DigestData,
  DigestReview,
  DigestTotals,
  Distribution,
  FailedAlert,
  RatingHistory,
  RatingPoint,
  ReviewStats,
  StarRating,
  TrendWeek,
  WorstReview,
} from './types.js';
