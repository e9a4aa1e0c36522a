import { and, desc, gte, inArray, isNull, or } from 'drizzle-orm';
import type { Db, StoreDb } from './db.js';
import { type ReviewRow, reviews } from './schema.js';
import { type LowReviewRow, statements } from './statements.js';

/** Reviews per star, one-star first. */
export type StarTally = [number, number, number, number, number];

/** What happened to an app's reviews since a moment: the evidence behind a rating drop. */
export interface ReviewActivity {
  /** New reviews stored (not as history) since, still listed, per star. */
  newByStars: StarTally;
  /** New reviews stored (not as history) since, listed or not. */
  newReviews: number;
  /** Edits since that lowered a stored review's rating. */
  rerated: number;
  /** How the stored reviews moved the listing's counts per star since (statements.ts, storedStarsSince). */
  storedDelta: StarTally;
  /** Stored reviews seen before and marked removed since. */
  removed: number;
  /** Reviews of a burst not read yet. */
  unread: number;
}

export function reviewActivitySince(db: StoreDb, handle: string, since: Date): ReviewActivity {
  const { freshSince, freshStarsSince, reratedSince, storedStarsSince, gap } = statements(db);
  const at = { handle, since };
  const newByStars: StarTally = [0, 0, 0, 0, 0];
  for (const { stars, n } of freshStarsSince.all(at)) add(newByStars, stars, n);
  const storedDelta: StarTally = [0, 0, 0, 0, 0];
  let removed = 0;
  for (const { kind, stars, n } of storedStarsSince.all(at)) {
    const out = kind === 'removed' || kind === 'rerated-from';
    add(storedDelta, stars, out ? -n : n);
    if (kind === 'removed') removed += n;
  }
  const open = gap.get({ handle });
  return {
    newByStars,
    newReviews: freshSince.get(at)?.n ?? 0,
    rerated: reratedSince.get(at)?.n ?? 0,
    storedDelta,
    removed,
    unread: open?.openedAt ? Math.max(0, open.unread ?? 0) : 0,
  };
}

/** Ratings outside 1–5 (none are stored: the schema's parser refuses them) are left out. */
function add(tally: StarTally, stars: number, n: number): void {
  if (Number.isInteger(stars) && stars >= 1 && stars <= 5) tally[stars - 1] = (tally[stars - 1] ?? 0) + n;
}

export type LowReview = LowReviewRow;

/** Low reviews first seen since a moment, newest first (not history from a baseline). */
export function lowReviewsSince(
  db: StoreDb,
  handle: string,
  since: Date,
  maxRating: number,
  limit = 50,
): LowReview[] {
  return statements(db).lowReviewsSince.all({ handle, maxRating, since, limit });
}

/** How many low reviews `lowReviewsSince` would give, counted up to `limit`: no row is read. */
export function countLowReviewsSince(
  db: StoreDb,
  handle: string,
  since: Date,
  maxRating: number,
  limit: number,
): number {
  return statements(db).lowReviewIdsSince.all({ handle, maxRating, since, limit }).length;
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
