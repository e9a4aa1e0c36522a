/**
 * What the topic-spike check of a poll reads (alerts/topic-spike.ts): an app's low reviews of the window
 * and its baseline, the spikes that fired, and what changed around them (rating drops, listing changes).
 */
import { and, desc, eq, gte, inArray, isNull, lte, or } from 'drizzle-orm';
import type { AlertKind } from '../kinds.js';
import type { Db } from './db.js';
import { alerts, type ListingChangeRow, listingChanges, reviews } from './schema.js';

export interface SpikeSourceReview {
  id: number;
  reviewId: string;
  reviewer: string;
  rating: number;
  content: string;
  /** Its stored topics, and the taxonomy version that computed them (null until computed). */
  topics: Array<{ name: string }>;
  topicsVersion: string | null;
  /**
   * When it happened as far as a day-long window can tell: when a poll first saw it (minutes after it
   * was written; the API dates a review by its day only), or, for history stored by the baseline, its
   * date.
   */
  at: Date;
  fromBaseline: boolean;
}

/** Enough for four weeks of an app's low reviews; more is an app whose every day is a spike. */
const MAX_REVIEWS = 5_000;

/** An app's listed low reviews seen or written since `since`, newest first. */
export function lowReviewsAround(
  db: Db,
  handle: string,
  since: Date,
  maxRating: number,
): SpikeSourceReview[] {
  return db
    .select({
      id: reviews.id,
      reviewId: reviews.reviewId,
      reviewer: reviews.reviewer,
      rating: reviews.rating,
      content: reviews.content,
      topics: reviews.topics,
      topicsVersion: reviews.topicsVersion,
      createdAt: reviews.createdAt,
      firstSeenAt: reviews.firstSeenAt,
      fromBaseline: reviews.fromBaseline,
    })
    .from(reviews)
    .where(
      and(
        eq(reviews.appHandle, handle),
        lte(reviews.rating, maxRating),
        isNull(reviews.removedAt),
        or(gte(reviews.firstSeenAt, since), gte(reviews.createdAt, since)),
      ),
    )
    .orderBy(desc(reviews.id))
    .limit(MAX_REVIEWS)
    .all()
    .map(({ createdAt, firstSeenAt, ...row }) => ({
      ...row,
      at: row.fromBaseline ? (createdAt ?? firstSeenAt) : firstSeenAt,
    }))
    .filter((row) => row.at.getTime() >= since.getTime());
}

export interface RaisedAlertRow {
  appHandle: string;
  kind: AlertKind;
  payload: unknown;
  createdAt: Date;
}

/** These apps' alerts of these kinds raised since `since`, newest first. */
export function alertsOfKindsSince(
  db: Db,
  handles: readonly string[],
  kinds: readonly AlertKind[],
  since: Date,
): RaisedAlertRow[] {
  if (handles.length === 0 || kinds.length === 0) return [];
  return db
    .select({
      appHandle: alerts.appHandle,
      kind: alerts.kind,
      payload: alerts.payload,
      createdAt: alerts.createdAt,
    })
    .from(alerts)
    .where(
      and(
        inArray(alerts.appHandle, [...handles]),
        inArray(alerts.kind, [...kinds]),
        gte(alerts.createdAt, since),
      ),
    )
    .orderBy(desc(alerts.createdAt), desc(alerts.id))
    .all();
}

/** The listing changes of these apps since `since` that alerted (a price, a plan, a badge), newest first. */
export function alertedListingChangesSince(
  db: Db,
  handles: readonly string[],
  since: Date,
): ListingChangeRow[] {
  if (handles.length === 0) return [];
  return db
    .select()
    .from(listingChanges)
    .where(
      and(
        inArray(listingChanges.appHandle, [...handles]),
        gte(listingChanges.at, since),
        eq(listingChanges.alerted, true),
      ),
    )
    .orderBy(desc(listingChanges.at), desc(listingChanges.id))
    .all();
}
