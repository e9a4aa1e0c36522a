import { and, desc, gte, inArray, isNull, or } from 'drizzle-orm';
import type { Db, StoreDb } from './db.js';
import { type ReviewRow, reviews } from './schema.js';
import { type LowReviewRow, statements } from './statements.js';

/** What happened to an app's reviews since a moment: the evidence behind a rating drop. */
export function reviewActivitySince(
  db: StoreDb,
  handle: string,
  since: Date,
  maxRating: number,
): { newReviews: number; newLowRatings: number[]; rerated: number } {
  const { freshSince, freshLowSince, reratedSince } = statements(db);
  const at = since.getTime();
  return {
    newReviews: freshSince.get(handle, at)?.n ?? 0,
    newLowRatings: freshLowSince.all(handle, at, maxRating).map((r) => r.rating),
    rerated: reratedSince.get(handle, at)?.n ?? 0,
  };
}

export type LowReview = Omit<LowReviewRow, 'firstSeenAt'> & { firstSeenAt: Date };

/** Low reviews first seen since a moment, newest first (not history from a baseline). */
export function lowReviewsSince(
  db: StoreDb,
  handle: string,
  since: Date,
  maxRating: number,
  limit = 50,
): LowReview[] {
  return statements(db)
    .lowReviewsSince.all(handle, maxRating, since.getTime(), limit)
    .map((row) => ({ ...row, firstSeenAt: new Date(row.firstSeenAt) }));
}

/** Reviews of these apps written since a moment (by their date, else when first seen). */
export function reviewsSince(db: Db, handles: string[], since: Date): ReviewRow[] {
  if (handles.length === 0) return [];
  return db
    .select()
    .from(reviews)
    .where(
      and(
        inArray(reviews.appHandle, handles),
        or(gte(reviews.createdAt, since), and(isNull(reviews.createdAt), gte(reviews.firstSeenAt, since))),
      ),
    )
    .orderBy(desc(reviews.id))
    .all();
}
