/**
 * What a reconciliation (watch/reconcile.ts) reads and writes beyond what a poll does: the stored reviews
 * a deep check compares with, removal marks, duplicates folded into the row they duplicate, and its runs.
 * Reconciliations are a few a day per app; their statements are prepared once all the same (prepared.ts).
 */
import { and, count, eq, gt, gte, inArray, isNotNull, isNull, max, sql, sum } from 'drizzle-orm';
import type { StoreDb } from './db.js';
import { insertPollRun, setPollRunCounts } from './polls.js';
import { bound, jsonEach, preparedOnce } from './prepared.js';
import { reviewColumns, WRITTEN_FIELDS } from './review-fields.js';
import { alerts, apps, pollRuns, type ReviewRow, reviewEdits, reviews } from './schema.js';
import { moveTriage } from './triage.js';

const STORED_FIELDS = [
  'identity',
  'fingerprint',
  'reviewId',
  ...WRITTEN_FIELDS,
  'createdAt',
  'firstSeenAt',
  'updatedAt',
  'removedAt',
] as const;

/** A stored review as a reconciliation compares it. */
export type StoredReview = { rowId: ReviewRow['id'] } & Pick<ReviewRow, (typeof STORED_FIELDS)[number]>;

const COLUMNS = { rowId: reviews.id, ...reviewColumns(STORED_FIELDS) };

const statements = preparedOnce((db: StoreDb) => {
  const ofApp = eq(reviews.appHandle, bound(reviews.appHandle, 'handle'));
  /** Rows whose `column` is one of a JSON array of values. */
  const reviewsAmong = (
    column: typeof reviews.identity | typeof reviews.fingerprint | typeof reviews.reviewer,
  ) =>
    db
      .select(COLUMNS)
      .from(reviews)
      .where(and(ofApp, inArray(column, jsonEach('values'))))
      .prepare();
  // A literal, not a parameter: SQLite uses the partial index poll_runs_reconciled only then.
  const reconciles = sql`${pollRuns.kind} = 'reconcile'`;
  const byId = <C extends typeof alerts.reviewRowId | typeof reviewEdits.reviewRowId>(column: C) =>
    eq(column, bound(column, 'drop'));
  return {
    byIdentity: reviewsAmong(reviews.identity),
    byFingerprint: reviewsAmong(reviews.fingerprint),
    byReviewer: reviewsAmong(reviews.reviewer),
    createdAfter: db
      .select(COLUMNS)
      .from(reviews)
      .where(and(ofApp, gt(reviews.createdAt, bound(reviews.createdAt, 'after'))))
      .prepare(),
    all: db.select(COLUMNS).from(reviews).where(ofApp).prepare(),
    markRemoved: db
      .update(reviews)
      .set({ removedAt: bound(reviews.removedAt, 'at') })
      .where(and(isNull(reviews.removedAt), inArray(reviews.id, jsonEach('ids'))))
      .prepare(),
    restore: db
      .update(reviews)
      .set({ removedAt: null })
      .where(and(isNotNull(reviews.removedAt), inArray(reviews.id, jsonEach('ids'))))
      .prepare(),
    repointAlerts: db
      .update(alerts)
      .set({ reviewRowId: bound(alerts.reviewRowId, 'keep') })
      .where(byId(alerts.reviewRowId))
      .prepare(),
    repointEdits: db
      .update(reviewEdits)
      .set({ reviewRowId: bound(reviewEdits.reviewRowId, 'keep') })
      .where(byId(reviewEdits.reviewRowId))
      .prepare(),
    deleteReview: db
      .delete(reviews)
      .where(eq(reviews.id, bound(reviews.id, 'id')))
      .prepare(),
    clearPageHash: db
      .update(apps)
      .set({ newestPageHash: null })
      .where(eq(apps.handle, bound(apps.handle, 'handle')))
      .prepare(),
    lastReconciled: db
      .select({ handle: pollRuns.appHandle, at: max(pollRuns.startedAt) })
      .from(pollRuns)
      .where(reconciles)
      .groupBy(pollRuns.appHandle)
      .prepare(),
    reconcilable: db
      .select({ handle: apps.handle })
      .from(apps)
      .where(and(isNotNull(apps.baselineAt), isNull(apps.unavailableSince)))
      .prepare(),
    cost: db
      .select({ runs: count(), requests: sum(pollRuns.requests).mapWith(Number) })
      .from(pollRuns)
      .where(and(reconciles, gte(pollRuns.startedAt, bound(pollRuns.startedAt, 'since'))))
      .prepare(),
  };
});

/** Which stored reviews of one app a reconciliation compares with; each row once. */
export interface StoredQuery {
  /** Rows with these identities or fingerprints: what the fetched reviews may be. */
  identities: readonly string[];
  fingerprints: readonly string[];
  /** Rows by these reviewers: what an edited review without an id may have been. */
  reviewers: readonly string[];
  /** Rows dated after this (epoch ms), or every row: the span the read pages cover; none with null. */
  span: number | 'all' | null;
}

export function storedReviews(db: StoreDb, handle: string, query: StoredQuery): StoredReview[] {
  const st = statements(db);
  const rows = new Map<number, StoredReview>();
  const add = (found: StoredReview[]) => {
    for (const row of found) rows.set(row.rowId, row);
  };
  const among = (values: readonly string[]) => ({ handle, values: JSON.stringify(values) });
  if (query.span === 'all') add(st.all.all({ handle }));
  else if (query.span !== null) add(st.createdAfter.all({ handle, after: new Date(query.span) }));
  if (query.identities.length > 0) add(st.byIdentity.all(among(query.identities)));
  if (query.fingerprints.length > 0) add(st.byFingerprint.all(among(query.fingerprints)));
  if (query.reviewers.length > 0) add(st.byReviewer.all(among([...new Set(query.reviewers)])));
  return [...rows.values()];
}

/** Marks these reviews removed from the listing (those not marked already); returns how many it marked. */
export function markRemoved(db: StoreDb, rowIds: readonly number[], at: Date): number {
  if (rowIds.length === 0) return 0;
  return statements(db).markRemoved.run({ at, ids: JSON.stringify(rowIds) }).changes;
}

/** Clears the removal mark of these reviews; returns how many had one. */
export function restoreReviews(db: StoreDb, rowIds: readonly number[]): number {
  if (rowIds.length === 0) return 0;
  return statements(db).restore.run({ ids: JSON.stringify(rowIds) }).changes;
}

/**
 * Deletes a row that duplicates another (one review stored twice), after pointing its alerts, edits and
 * triage (notes, audit trail, tags, status) at the row that stays: nothing that referred to it is lost.
 */
export function foldDuplicate(db: StoreDb, keepRowId: number, dropRowId: number): void {
  const st = statements(db);
  const ids = { keep: keepRowId, drop: dropRowId };
  st.repointAlerts.run(ids);
  st.repointEdits.run(ids);
  moveTriage(db, keepRowId, dropRowId);
  st.deleteReview.run({ id: dropRowId });
}

/**
 * Forgets the hash of an app's page 1 (watch/page-hash.ts): the next poll reads that page's reviews
 * again instead of trusting that the store holds them exactly as they were.
 */
export function forgetPageHash(db: StoreDb, handle: string): void {
  statements(db).clearPageHash.run({ handle });
}

export interface ReconcileRun {
  appHandle: string;
  startedAt: Date;
  finishedAt: Date;
  status: 'ok' | 'unavailable' | 'failed';
  requests: number;
  pages: number;
  error?: string;
}

/** Records a reconciliation as a poll run of kind `reconcile`; returns its id. */
export function insertReconcileRun(db: StoreDb, run: ReconcileRun): number {
  return insertPollRun(db, { ...run, kind: 'reconcile', newReviews: 0, editedReviews: 0 });
}

export function setReconcileRunCounts(db: StoreDb, id: number, found: number, edited: number): void {
  setPollRunCounts(db, id, found, edited);
}

/** When each app's last reconciliation started (whatever its outcome), in epoch ms. */
export function lastReconciledAt(db: StoreDb): Map<string, number> {
  return new Map(
    statements(db)
      .lastReconciled.all()
      .flatMap((row) => (row.at ? [[row.handle, row.at.getTime()] as const] : [])),
  );
}

/** Apps a reconciliation has something to compare with: a baseline stored, and not marked unavailable. */
export function reconcilableApps(db: StoreDb): Set<string> {
  return new Set(
    statements(db)
      .reconcilable.all()
      .map((row) => row.handle),
  );
}

/** Reconciliations started since a moment, and the API requests they spent (failed ones included). */
export function reconcileCost(db: StoreDb, since: Date): { runs: number; requests: number } {
  const row = statements(db).cost.get({ since });
  return { runs: row?.runs ?? 0, requests: row?.requests ?? 0 };
}
