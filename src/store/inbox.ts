/**
 * The triage inbox's list of reviews: filtered, newest first (or by first seen, severity or app), a page
 * at a time, and how many reviews each of the inbox's views holds. Pages are keyed by a cursor on the
 * list's order (date, row id), so page 500 costs what page 1 does, and each query shape is chosen so
 * SQLite walks an index in the order of the list (test/store/inbox.test.ts checks the plans).
 *
 * Its parts, in store/inbox/: the orders and their cursors (`cursor.ts`), what a filter means
 * (`filter.ts`), the choices made from counts (`plan.ts`), the SQL (`sql.ts`), the rows (`rows.ts`, over
 * the review's fields in store/review-fields.ts) and the views' counts (`counts.ts`).
 */
import type { StoreDb } from './db.js';
import { cursorAfter, type InboxSort, parseCursor } from './inbox/cursor.js';
import type { InboxFilter } from './inbox/filter.js';
import { type PlanOptions, planOf } from './inbox/plan.js';
import { type InboxRow, rowOf, statement } from './inbox/rows.js';
import { AT, buildQuery, type Direction, sortKeyOf } from './inbox/sql.js';

export { COUNT_CAP, countInbox, type InboxBucket, type InboxCounts } from './inbox/counts.js';
export { type Cursor, cursorAfter, INBOX_SORTS, type InboxSort, parseCursor } from './inbox/cursor.js';
export { ftsQuery, type InboxFilter } from './inbox/filter.js';
export {
  APP_SHARE_FOR_APP_INDEX,
  type PlanOptions,
  SEARCH_MATCHES_TO_SORT,
  type SearchPath,
  TRIAGED_ROWS_TO_SORT,
} from './inbox/plan.js';
export type { InboxRow } from './inbox/rows.js';
export { keyHour, priorityRankSql } from './inbox/sql.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export interface InboxPage {
  rows: InboxRow[];
  /** Pass back as `cursor` for the next page; absent on the last one. */
  next?: string;
}

export interface PageOptions {
  limit?: number;
  cursor?: string;
  /** `newest` when absent. */
  sort?: InboxSort;
}

function pageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(limit)));
}

export function listInbox(
  db: StoreDb,
  filter: InboxFilter,
  options: PageOptions & PlanOptions = {},
): InboxPage {
  if (filter.apps?.length === 0) return { rows: [] };
  const limit = pageSize(options.limit);
  const sort = options.sort ?? 'newest';
  const { sql, params } = buildQuery(
    filter,
    limit,
    parseCursor(options.cursor),
    planOf(db, filter, options, sort),
    sort,
  );
  const raw = statement(db, sql).all(...params);
  const rows = raw.slice(0, limit).map(rowOf);
  const last = raw[limit - 1];
  return raw.length > limit && last
    ? { rows, next: cursorAfter(sort, { ...last, key: last.sortKey }) }
    : { rows };
}

/** The reviews next to one in a list: the one before it and the one after it, in the list's order. */
export interface Neighbours {
  previous?: InboxRow;
  next?: InboxRow;
}

/**
 * The reviews right before and after a review in a list (its filters and order), whether or not the
 * review itself is still in it: a review just resolved has left the Open view, and "next" is still the
 * one that followed it. Each is one short query from the review's place in the order, as a page's cursor.
 */
export function neighboursInList(
  db: StoreDb,
  filter: InboxFilter,
  reviewRowId: number,
  options: { sort?: InboxSort } & PlanOptions = {},
): Neighbours {
  const sort = options.sort ?? 'newest';
  const place = db.$client
    .prepare<[number], { id: number; at: number; key: number | string }>(
      `select r.id as id, ${AT} as at, ${sortKeyOf(sort)} as key from reviews r where r.id = ?`,
    )
    .get(reviewRowId);
  if (!place || filter.apps?.length === 0) return {};
  const cursor = parseCursor(cursorAfter(sort, place));
  const one = (direction: Direction): InboxRow | undefined => {
    const { sql, params } = buildQuery(
      filter,
      1,
      cursor,
      planOf(db, filter, options, sort, direction),
      sort,
      direction,
    );
    const row = statement(db, sql).all(...params)[0];
    return row ? rowOf(row) : undefined;
  };
  const previous = one('before');
  const next = one('after');
  return { ...(previous ? { previous } : {}), ...(next ? { next } : {}) };
}

/** SQLite's plan for a list query, one line per step: for tests, and for whoever tunes the indexes. */
export function explainInbox(
  db: StoreDb,
  filter: InboxFilter,
  options: PageOptions & PlanOptions = {},
): string[] {
  const sort = options.sort ?? 'newest';
  const { sql, params } = buildQuery(
    filter,
    pageSize(options.limit),
    parseCursor(options.cursor),
    planOf(db, filter, options, sort),
    sort,
  );
  return db.$client
    .prepare<unknown[], { detail: string }>(`explain query plan ${sql}`)
    .all(...params)
    .map((r) => r.detail);
}
