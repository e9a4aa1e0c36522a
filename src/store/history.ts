import { and, count, desc, eq, gt, gte, inArray, isNull, lt, lte, or } from 'drizzle-orm';
import type { Db } from './db.js';
import { type ReviewRow, reviewEdits, reviews } from './schema.js';

/** What happened to an app's reviews since a moment: the evidence behind a rating drop. */
export function reviewActivitySince(
  db: Db,
  handle: string,
  since: Date,
  maxRating: number,
): { newReviews: number; newLowRatings: number[]; rerated: number } {
  const fresh = and(
    eq(reviews.appHandle, handle),
    eq(reviews.fromBaseline, false),
    gt(reviews.firstSeenAt, since),
  );
  const newReviews = db.select({ n: count() }).from(reviews).where(fresh).get()?.n ?? 0;
  const newLowRatings = db
    .select({ rating: reviews.rating })
    .from(reviews)
    .where(and(fresh, lte(reviews.rating, maxRating)))
    .all()
    .map((r) => r.rating);
  const rerated =
    db
      .select({ n: count() })
      .from(reviewEdits)
      .where(
        and(
          eq(reviewEdits.appHandle, handle),
          gt(reviewEdits.detectedAt, since),
          lt(reviewEdits.newRating, reviewEdits.oldRating),
        ),
      )
      .get()?.n ?? 0;
  return { newReviews, newLowRatings, rerated };
}

/** Low reviews first seen since a moment, newest first (not history from a baseline). */
export function lowReviewsSince(
  db: Db,
  handle: string,
  since: Date,
  maxRating: number,
  limit = 50,
): ReviewRow[] {
  return db
    .select()
    .from(reviews)
    .where(
      and(
        eq(reviews.appHandle, handle),
        eq(reviews.fromBaseline, false),
        lte(reviews.rating, maxRating),
        gte(reviews.firstSeenAt, since),
      ),
    )
    .orderBy(desc(reviews.firstSeenAt), desc(reviews.id))
    .limit(limit)
    .all();
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
