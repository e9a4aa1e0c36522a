/**
 * What a digest says, independent of how it is delivered: collected from the store (collect.ts) and
 * rendered for email and Slack. Strings from the marketplace (titles, reviewers, review text, reasons
 * quoting it) and from delivery errors are untrusted: renderers escape them.
 */
import type { Alert, Priority, ReviewRef, Severity } from '../alerts/types.js';
import type { ReviewTopic } from '../topics/index.js';
import type { DigestMarket } from './market.js';
import type { DigestPeriod } from './period.js';
import type { DigestTopics } from './topics.js';

export type AppRole = 'own' | 'competitor';

export type StarRating = 1 | 2 | 3 | 4 | 5;

export const STAR_RATINGS: readonly StarRating[] = [5, 4, 3, 2, 1];

/** Reviews per star rating. */
export type Distribution = Record<StarRating, number>;

/** The listing's rating as one snapshot showed it. */
export interface RatingPoint {
  average: number;
  /** Null when the summary gave an average without a count. */
  count: number | null;
  at: Date;
}

export interface ReviewStats {
  count: number;
  /** Null when there were no reviews. */
  average: number | null;
  distribution: Distribution;
  /** At or below the low-rating threshold (alerts.lowRating.maxRating). */
  low: number;
}

export interface RatingHistory {
  /** The latest snapshot before the period's end; null when the app was never rated by then. */
  current: RatingPoint | null;
  /** The latest snapshot before the end of the week before (period end − 1 week). */
  lastWeek: RatingPoint | null;
  /** The latest snapshot before period end − 4 weeks. */
  fourWeeksAgo: RatingPoint | null;
  /** current − lastWeek; null when either is unknown. */
  changeVsLastWeek: number | null;
  changeVsFourWeeksAgo: number | null;
}

/** One week of the trend. */
export interface TrendWeek {
  start: Date;
  end: Date;
  /** The listing's rating at the end of that week; null where no snapshot says. */
  rating: number | null;
  /** Reviews dated in that week. */
  reviews: number;
}

/** A review as the marketplace showed it, plus when it counts for the digest. */
export interface DigestReview extends ReviewRef {
  /** The review's own date, or when it was first seen when its date could not be parsed. */
  at: Date;
}

/**
 * A review the worst are ranked from, with its stored topics and their taxonomy version when read from the
 * store: its severity reads them instead of matching its text (topics/review-topics.ts). Not listed.
 */
export interface WorstCandidate extends DigestReview {
  topics?: readonly ReviewTopic[];
  topicsVersion?: string | null;
}

export interface WorstReview extends DigestReview {
  severity: Severity;
}

/** A delivery that failed for good (until `notify retry`), with what it was about. */
export interface FailedAlert {
  kind: Alert['kind'];
  priority: Priority;
  channel: string;
  /** The delivery's last error ("404 no_service"); untrusted. */
  reason: string;
  /**
   * The alert as it was raised (an `Alert` of alerts/types.ts), frozen in the outbox, possibly by an
   * earlier version of the program: nothing in it is taken for granted. Untrusted.
   */
  payload: unknown;
  alertAt: Date;
  /** Raised in this period; otherwise raised earlier and still failed. */
  inPeriod: boolean;
}

export interface DigestApp {
  handle: string;
  /** The config's name, else the listing's title, else the handle. */
  title: string;
  role: AppRole;
  reviews: ReviewStats;
  rating: RatingHistory;
  /** Eight weeks, oldest first; the last one ends at the period's end. */
  trend: TrendWeek[];
  /** Reviews of the period below 5 stars, lowest rating first, then most severe: at most MAX_WORST. */
  worst: WorstReview[];
  /** 5-star reviews of the period, longest first: at most MAX_BEST. */
  best: DigestReview[];
  /** Most recent first, at most MAX_FAILED_LISTED; failedAlertsTotal counts them all. */
  failedAlerts: FailedAlert[];
  failedAlertsTotal: number;
  /** The rating drops of the period, oldest first: a competitor's go only here by default. */
  drops: RatingDropNote[];
}

/** A rating drop raised in the period: the averages it fell between, and when. */
export interface RatingDropNote {
  from: number;
  to: number;
  at: Date;
}

/** A row of the own-versus-competitors table. */
export interface ComparisonRow {
  handle: string;
  title: string;
  role: AppRole;
  rating: number | null;
  ratingCount: number | null;
  changeVsLastWeek: number | null;
  /** Reviews in the period, per week of it (for a weekly digest: the week's count). */
  reviewsPerWeek: number;
  /** Share (0..1) of the period's reviews at or below maxRating; null when there were none. */
  lowShare: number | null;
}

/** The headline: the apps it counts are the own apps (every app when none is marked own). */
export interface DigestTotals {
  newReviews: number;
  lowReviews: number;
  /** Apps whose rating fell against last week (by at least what two decimals show). */
  ratingsFell: number;
  /** Failed deliveries across every app. */
  failedAlerts: number;
}

/**
 * How much of the period reviewwatch watched, counted from its first successful poll of any of the
 * digest's apps: all of it; the days since it started (`days` calendar days in the digest's zone, the
 * first one counted whole); or none of it, when it started after the period ended or has not yet.
 */
export type Coverage =
  | { kind: 'full' }
  | { kind: 'partial'; watchedSince: Date; days: number }
  | { kind: 'none'; watchedSince: Date | null };

/**
 * Where the support team is with the reviews that alerted (store/triage.ts), for the apps the headline
 * counts (the own apps, or all when none is own).
 */
export interface DigestTriage {
  /**
   * Reviews with a review alert that are still `new` or `acknowledged` when the digest is made, per the
   * highest priority of their alerts (the inbox's priority).
   */
  open: Record<Priority, number>;
  openTotal: number;
  /** Reviews a person first took off `new` during the period, with an alert about them before that. */
  acknowledged: number;
  /** Median time from the alert (its first delivery, else when it was raised) to that; null when none. */
  medianAckMs: number | null;
}

export interface DigestData {
  period: DigestPeriod;
  /** A digest of a period reviewwatch watched only in part says so; one it did not watch is not sent. */
  coverage: Coverage;
  generatedAt: Date;
  /** alerts.lowRating.maxRating: what "low" means throughout. */
  maxRating: number;
  /** Own apps first, then competitors; config order within each. */
  apps: DigestApp[];
  /** Present when any app is a competitor. */
  comparison: ComparisonRow[] | null;
  totals: DigestTotals;
  triage: DigestTriage;
  /** Ranks, entrants and competitors' listing changes (digest/market.ts); null when nothing is tracked. */
  market: DigestMarket | null;
  /** What reviewers talk about (digest/topics.ts); null when no app had a review in the period. */
  topics: DigestTopics | null;
  /** No app had a review in the period. */
  quiet: boolean;
}

export const TREND_WEEKS = 8;
export const MAX_WORST = 5;
export const MAX_BEST = 3;
export const MAX_FAILED_LISTED = 10;
