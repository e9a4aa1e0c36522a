/**
 * What a reconciliation (watch/reconcile.ts) reads and writes beyond what a poll does: the stored reviews
 * a deep check compares with, removal marks, duplicates folded into the row they duplicate, and its runs.
 * Reconciliations are a few a day per app, so these are plain statements prepared when first used.
 */
import type Database from 'better-sqlite3';
import type { StoreDb } from './db.js';
import { moveTriage } from './triage.js';

/** A stored review as a reconciliation compares it; times in epoch ms. */
export interface StoredReview {
  rowId: number;
  identity: string;
  fingerprint: string;
  reviewId: string;
  reviewer: string;
  location: string;
  rating: number;
  content: string;
  createdDate: string;
  createdAt: number | null;
  firstSeenAt: number;
  updatedAt: number;
  removedAt: number | null;
}

const COLUMNS = `id as rowId, identity, fingerprint, review_id as reviewId, reviewer, location, rating, content,
  created_date as createdDate, created_at as createdAt, first_seen_at as firstSeenAt, updated_at as updatedAt,
  removed_at as removedAt`;

function build(client: Database.Database) {
  const json = 'select value from json_each(?)';
  return {
    byIdentity: client.prepare<[string, string], StoredReview>(
      `select ${COLUMNS} from reviews where app_handle = ? and identity in (${json})`,
    ),
    byFingerprint: client.prepare<[string, string], StoredReview>(
      `select ${COLUMNS} from reviews where app_handle = ? and fingerprint in (${json})`,
    ),
    byReviewer: client.prepare<[string, string], StoredReview>(
      `select ${COLUMNS} from reviews where app_handle = ? and reviewer in (${json})`,
    ),
    createdAfter: client.prepare<[string, number], StoredReview>(
      `select ${COLUMNS} from reviews where app_handle = ? and created_at > ?`,
    ),
    all: client.prepare<[string], StoredReview>(`select ${COLUMNS} from reviews where app_handle = ?`),
    markRemoved: client.prepare<[number, string]>(
      `update reviews set removed_at = ? where removed_at is null and id in (${json})`,
    ),
    restore: client.prepare<[string]>(
      `update reviews set removed_at = null where removed_at is not null and id in (${json})`,
    ),
    repointAlerts: client.prepare<[number, number]>(
      'update alerts set review_row_id = ? where review_row_id = ?',
    ),
    repointEdits: client.prepare<[number, number]>(
      'update review_edits set review_row_id = ? where review_row_id = ?',
    ),
    deleteReview: client.prepare<[number]>('delete from reviews where id = ?'),
    clearPageHash: client.prepare<[string]>('update apps set newest_page_hash = null where handle = ?'),
    insertRun: client.prepare<
      {
        appHandle: string;
        startedAt: number;
        finishedAt: number;
        status: string;
        requests: number;
        pages: number;
        newReviews: number;
        editedReviews: number;
        error: string | null;
      },
      { id: number }
    >(
      `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews,
       edited_reviews, error, kind)
       values (@appHandle, @startedAt, @finishedAt, @status, @requests, @pages, @newReviews, @editedReviews,
       @error, 'reconcile') returning id`,
    ),
    setRunCounts: client.prepare<[number, number, number]>(
      'update poll_runs set new_reviews = ?, edited_reviews = ? where id = ?',
    ),
    lastReconciled: client.prepare<[], { handle: string; at: number }>(
      `select app_handle as handle, max(started_at) as at from poll_runs where kind = 'reconcile'
       group by app_handle`,
    ),
    reconcilable: client.prepare<[], { handle: string }>(
      'select handle from apps where baseline_at is not null and unavailable_since is null',
    ),
    cost: client.prepare<[number], { runs: number; requests: number | null }>(
      `select count(*) as runs, sum(requests) as requests from poll_runs
       where kind = 'reconcile' and started_at >= ?`,
    ),
  };
}

const cache = new WeakMap<Database.Database, ReturnType<typeof build>>();

function statements(db: StoreDb): ReturnType<typeof build> {
  const client = db.$client;
  let prepared = cache.get(client);
  if (!prepared) {
    prepared = build(client);
    cache.set(client, prepared);
  }
  return prepared;
}

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
  if (query.span === 'all') add(st.all.all(handle));
  else if (query.span !== null) add(st.createdAfter.all(handle, query.span));
  if (query.identities.length > 0) add(st.byIdentity.all(handle, JSON.stringify(query.identities)));
  if (query.fingerprints.length > 0) add(st.byFingerprint.all(handle, JSON.stringify(query.fingerprints)));
  if (query.reviewers.length > 0)
    add(st.byReviewer.all(handle, JSON.stringify([...new Set(query.reviewers)])));
  return [...rows.values()];
}

/** Marks these reviews removed from the listing (those not marked already); returns how many it marked. */
export function markRemoved(db: StoreDb, rowIds: readonly number[], at: Date): number {
  if (rowIds.length === 0) return 0;
  return statements(db).markRemoved.run(at.getTime(), JSON.stringify(rowIds)).changes;
}

/** Clears the removal mark of these reviews; returns how many had one. */
export function restoreReviews(db: StoreDb, rowIds: readonly number[]): number {
  if (rowIds.length === 0) return 0;
  return statements(db).restore.run(JSON.stringify(rowIds)).changes;
}

/**
 * Deletes a row that duplicates another (one review stored twice), after pointing its alerts, edits and
 * triage (notes, audit trail, tags, status) at the row that stays: nothing that referred to it is lost.
 */
export function foldDuplicate(db: StoreDb, keepRowId: number, dropRowId: number): void {
  const st = statements(db);
  st.repointAlerts.run(keepRowId, dropRowId);
  st.repointEdits.run(keepRowId, dropRowId);
  moveTriage(db, keepRowId, dropRowId);
  st.deleteReview.run(dropRowId);
}

/**
 * Forgets the hash of an app's page 1 (watch/page-hash.ts): the next poll reads that page's reviews
 * again instead of trusting that the store holds them exactly as they were.
 */
export function forgetPageHash(db: StoreDb, handle: string): void {
  statements(db).clearPageHash.run(handle);
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
  const row = statements(db).insertRun.get({
    appHandle: run.appHandle,
    startedAt: run.startedAt.getTime(),
    finishedAt: run.finishedAt.getTime(),
    status: run.status,
    requests: run.requests,
    pages: run.pages,
    newReviews: 0,
    editedReviews: 0,
    error: run.error ?? null,
  });
  if (!row) throw new Error('inserting a reconcile run returned nothing');
  return row.id;
}

export function setReconcileRunCounts(db: StoreDb, id: number, found: number, edited: number): void {
  statements(db).setRunCounts.run(found, edited, id);
}

/** When each app's last reconciliation started (whatever its outcome), in epoch ms. */
export function lastReconciledAt(db: StoreDb): Map<string, number> {
  return new Map(
    statements(db)
      .lastReconciled.all()
      .map((row) => [row.handle, row.at]),
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
  const row = statements(db).cost.get(since.getTime());
  return { runs: row?.runs ?? 0, requests: row?.requests ?? 0 };
}
