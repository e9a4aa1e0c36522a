/**
 * When a review counts for a digest. The marketplace dates reviews by day ("March 31, 2025", sent as
 * `2025-03-31T00:00:00+00:00`): that day is the review's day in every zone, so such a review counts from
 * midnight of its day in the digest's zone. Read as an instant, midnight UTC is Sunday evening in New
 * York, and every Monday review would land in the week before. A date with a time of day is an instant;
 * an unparseable one ("Invalid Date") counts from when the review was first seen.
 */
import { localMidnight } from './period.js';

/** Mirrored by the GLOB patterns in queries.ts: the two must agree. */
const DAY_DATE = /^\d{4}-\d{2}-\d{2}(?:T00:00:00.*)?$/s;

export const DAY_DATE_GLOBS = [
  '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]',
  '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T00:00:00*',
] as const;

export interface DatedReview {
  /** As the API sent it. */
  createdDate: string;
  /** The same, parsed; null when it could not be. */
  createdAt: Date | null;
  firstSeenAt: Date;
}

/** The day (`yyyy-MM-dd`) a review is dated by, when it is dated by day alone. */
export function writtenDay(review: DatedReview): string | undefined {
  if (review.createdAt === null || !DAY_DATE.test(review.createdDate)) return undefined;
  return review.createdDate.slice(0, 10);
}

/** The instant a review counts from in `timezone`. */
export function countingTime(review: DatedReview, timezone: string): Date {
  const day = writtenDay(review);
  if (day !== undefined) return localMidnight(day, timezone);
  return review.createdAt ?? review.firstSeenAt;
}
