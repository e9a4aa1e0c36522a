import { and, eq } from 'drizzle-orm';
import type { FetchedReview } from '../catalog/index.js';
import type { Db, StoreDb } from './db.js';
import { changedColumns, type NewReview, type ReviewChange } from './review-fields.js';
import { countNewReviews } from './review-index.js';
import { type ReviewRow, reviewEdits, reviews } from './schema.js';
import { type KnownReview, statements } from './statements.js';
import { reopenIfRerated } from './triage.js';

export type { NewReview, ReviewChange } from './review-fields.js';
export type { KnownReview } from './statements.js';

/** The stored reviews a page's reviews matched, by identity and by fingerprint. */
export interface KnownLookup {
  byIdentity: ReadonlyMap<string, KnownReview>;
  byFingerprint: ReadonlyMap<string, KnownReview>;
}

/**
 * Stored reviews of one app matching these fetched reviews: by identity, then by fingerprint for those
 * the identities did not find (only those need a fingerprint computed, see catalog/review.ts).
 */
export function findKnown(
  db: StoreDb,
  handle: string,
  fetched: ReadonlyArray<Pick<FetchedReview, 'identity' | 'fingerprint'>>,
): KnownLookup {
  const byIdentity = new Map<string, KnownReview>();
  const byFingerprint = new Map<string, KnownReview>();
  if (fetched.length === 0) return { byIdentity, byFingerprint };
  const { knownByIdentity, knownByFingerprint } = statements(db);
  for (const row of knownByIdentity.all({
    handle,
    identities: JSON.stringify(fetched.map((r) => r.identity)),
  })) {
    byIdentity.set(row.identity, row);
  }
  const unmatched = fetched.filter((r) => !byIdentity.has(r.identity));
  if (unmatched.length > 0) {
    const fingerprints = JSON.stringify(unmatched.map((r) => r.fingerprint));
    for (const row of knownByFingerprint.all({ handle, fingerprints }))
      byFingerprint.set(row.fingerprint, row);
  }
  return { byIdentity, byFingerprint };
}

/** Whether every one of these fetched reviews is stored under its identity with its rating, content and date. */
export function pageIsStored(
  db: StoreDb,
  handle: string,
  fetched: ReadonlyArray<Pick<FetchedReview, 'identity' | 'rating' | 'content' | 'createdDate'>>,
): boolean {
  if (fetched.length === 0) return true;
  const rows = statements(db).knownByIdentity.all({
    handle,
    identities: JSON.stringify(fetched.map((r) => r.identity)),
  });
  const stored = new Map(rows.map((row) => [row.identity, row]));
  return fetched.every((review) => {
    const row = stored.get(review.identity);
    return (
      row !== undefined &&
      row.rating === review.rating &&
      row.content === review.content &&
      row.createdDate === review.createdDate
    );
  });
}

/** Inserts what is not stored yet and returns only those rows: a concurrent poll cannot double them. */
export function insertNewReviews(db: StoreDb, rows: readonly NewReview[]): ReviewRow[] {
  // In one transaction, so no other writer's row falls between ours (a poll's writes run in one already).
  if (!db.$client.inTransaction) return db.$client.transaction(() => insertNewReviews(db, rows))();
  const { insertReview } = statements(db);
  const inserted: ReviewRow[] = [];
  for (const row of rows) {
    // Every column has its placeholder (statements.ts): the row binds as it is.
    const stored = insertReview.get(row);
    if (stored) inserted.push({ ...row, id: stored.id, removedAt: null });
  }
  countNewReviews(db, inserted);
  return inserted;
}

/**
 * A poll saw these stored reviews listed: those a reconciliation marked removed before the poll started
 * are published again. Returns how many it restored. No alert: the review was alerted on (or was history)
 * when first stored, as a reconciliation's restore.
 */
export function restoreListed(db: StoreDb, rowIds: readonly number[], pollStartedAt: Date): number {
  if (rowIds.length === 0) return 0;
  return statements(db).restoreListed.run({ pollStartedAt, ids: JSON.stringify([...new Set(rowIds)]) })
    .changes;
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
  // A resolved review re-rated down needs someone to look at it again.
  reopenIfRerated(db, known.rowId, { from: known.rating, to: change.rating }, at);
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

export function reviewsOf(db: Db, handle: string): ReviewRow[] {
  return db.select().from(reviews).where(eq(reviews.appHandle, handle)).orderBy(reviews.id).all();
}
