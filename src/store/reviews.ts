import { and, eq } from 'drizzle-orm';
import type { KnownLookup, KnownReview } from '../watch/diff.js';
import type { Db, StoreDb } from './db.js';
import { type NewReviewRow, type ReviewRow, reviewEdits, reviews } from './schema.js';
import { statements } from './statements.js';

/** Stored reviews of one app matching any of these identities or fingerprints: one indexed query. */
export function findKnown(
  db: StoreDb,
  handle: string,
  identities: string[],
  fingerprints: string[],
): KnownLookup {
  const byIdentity = new Map<string, KnownReview>();
  const byFingerprint = new Map<string, KnownReview>();
  if (identities.length === 0) return { byIdentity, byFingerprint };
  const rows = statements(db).known.all(handle, JSON.stringify(identities), JSON.stringify(fingerprints));
  for (const row of rows) {
    byIdentity.set(row.identity, row);
    byFingerprint.set(row.fingerprint, row);
  }
  return { byIdentity, byFingerprint };
}

/** Inserts what is not stored yet and returns only those rows: a concurrent poll cannot double them. */
export function insertNewReviews(db: StoreDb, rows: NewReviewRow[]): ReviewRow[] {
  const { insertReview } = statements(db);
  const inserted: ReviewRow[] = [];
  for (const row of rows) {
    const stored = insertReview.get({ ...row, createdAtMs: row.createdAt?.getTime() ?? null });
    if (stored) inserted.push(stored);
  }
  return inserted;
}

export interface ReviewChange {
  appHandle: string;
  identity: string;
  reviewId: string;
  fingerprint: string;
  rating: number;
  content: string;
  createdDate: string;
  createdAt: Date | null;
}

/**
 * Records an edit (rating or content) if the stored row still holds the old values; a concurrent poll
 * that recorded it first makes this a no-op. Returns the edit's id when this call recorded it.
 */
export function recordEdit(
  db: Db,
  known: KnownReview,
  change: ReviewChange,
  at: Date,
  pollRunId: number,
): number | undefined {
  const updated = db
    .update(reviews)
    .set(changedColumns(change, at))
    .where(
      and(eq(reviews.id, known.rowId), eq(reviews.rating, known.rating), eq(reviews.content, known.content)),
    )
    .run();
  if (updated.changes === 0) return undefined;
  return db
    .insert(reviewEdits)
    .values({
      reviewRowId: known.rowId,
      appHandle: change.appHandle,
      oldRating: known.rating,
      newRating: change.rating,
      oldContent: known.content,
      newContent: change.content,
      oldCreatedDate: known.createdDate,
      newCreatedDate: change.createdDate,
      detectedAt: at,
      pollRunId,
    })
    .returning({ id: reviewEdits.id })
    .get().id;
}

/** Brings a stored review's date, fingerprint or id up to date without calling it an edit. */
export function refreshReview(db: Db, known: KnownReview, change: ReviewChange, at: Date): void {
  db.update(reviews).set(changedColumns(change, at)).where(eq(reviews.id, known.rowId)).run();
}

function changedColumns(change: ReviewChange, at: Date): Partial<NewReviewRow> {
  // Never trade a real review_id for a fingerprint identity: an id that went missing once stays known.
  const identity = change.reviewId === '' ? {} : { identity: change.identity, reviewId: change.reviewId };
  return {
    ...identity,
    fingerprint: change.fingerprint,
    rating: change.rating,
    content: change.content,
    createdDate: change.createdDate,
    createdAt: change.createdAt,
    updatedAt: at,
  };
}

export function reviewsOf(db: Db, handle: string): ReviewRow[] {
  return db.select().from(reviews).where(eq(reviews.appHandle, handle)).orderBy(reviews.id).all();
}
