export { type CollectInput, collectDigest, type DigestAppInput, digestInputOf } from './collect.js';
export { coverageOf, watchedSince } from './coverage.js';
export type { CompetitorChanges, DigestMarket, MarketCategory, MarketChange, MarketRank } from './market.js';
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
  Coverage,
  DigestApp,
  DigestData,
  DigestReview,
  DigestTotals,
  Distribution,
  FailedAlert,
  RatingDropNote,
  RatingHistory,
  RatingPoint,
  ReviewStats,
  StarRating,
  TrendWeek,
  WorstReview,
} from './types.js';
