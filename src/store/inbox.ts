/**
 * The triage inbox's list of reviews: filtered, newest first (or by first seen, severity or app), a page
 * at a time, and how many reviews each of the inbox's views holds. Pages are keyed by a cursor on the
 * list's order (date, row id), so page 500 costs what page 1 does, and each query shape is chosen so
 * SQLite walks an index in the order of the list (test/store/inbox.test.ts checks the plans).
 *
 * The date of a review is its own (`created_at`), or when it was first seen when the API's date did not
 * parse: `coalesce(created_at, first_seen_at)`, spelled exactly as in the indexes of drizzle/0008_inbox.sql
 * and 0016_inbox_views.sql.
 */
import type Database from 'better-sqlite3';
import { HANDLE_PATTERN } from '../catalog/handle.js';
import { PRIORITIES, type Priority } from '../scoring/priority.js';
import type { StoreDb } from './db.js';
import { TRIAGE_STATUSES, type TriageStatus } from './schema.js';

const AT = 'coalesce(r.created_at, r.first_seen_at)';

/**
 * The full-text index keys each review by the list's order (drizzle/0010_fts_by_date.sql): the hour of its
 * date, clamped to ±2^22 hours, times 2^40, plus its row id. Keys sort like (hour, id): an hour's reviews
 * come out by row id, every earlier hour's after them. The row id is the key's low 40 bits.
 */
const KEY_BITS = 40;
const ROW_ID = `& ${2 ** KEY_BITS - 1}`;
const HOUR_MS = 3_600_000;
const FIRST_HOUR = -(2 ** 22);
const LAST_HOUR = 2 ** 22 - 1;
/** A review's key, from its row in `r`, spelled as in the triggers of drizzle/0010_fts_by_date.sql. */
const KEY_OF_R = `((max(${FIRST_HOUR}, min(${LAST_HOUR}, cast(${AT} / ${HOUR_MS} as integer))) << ${KEY_BITS}) + r.id)`;

/** The hour of a date in the index's keys: what SQLite's integer division gives, clamped. */
export function keyHour(at: number): number {
  return Math.max(FIRST_HOUR, Math.min(LAST_HOUR, Math.trunc(at / HOUR_MS)));
}

/** An alert's priority as a rank, most urgent 0, in SQL on the alerts row `alias`: the inbox's order. */
export function priorityRankSql(alias: string): string {
  return `case ${alias}.priority ${PRIORITIES.map((p, i) => `when '${p}' then ${i}`).join(' ')} end`;
}

/** The priority of a review: the highest of its review alerts (a new low review, a re-rating), if any. */
const PRIORITY_RANK = `(select min(${priorityRankSql('a')})
  from alerts a where a.review_row_id = r.id and a.kind = 'review')`;

/**
 * A review's severity as one number, most urgent first: the priority rank of its most urgent review alert
 * times 1000, less that alert's score (0-100), so ranks sort first and scores within them; 9999 for a review
 * that raised no alert (history, or above the low-rating bar), which then comes last.
 */
const SEVERITY_KEY = `coalesce((select min(${priorityRankSql('a')} * 1000 - coalesce(a.score, 0))
  from alerts a where a.review_row_id = r.id and a.kind = 'review'), 9999)`;

/**
 * The orders of the list: `newest` by the marketplace's date (the default), `seen` by when reviewwatch
 * first saw the review (its period then counts by that too), `severity` most urgent first and `app` by the
 * app's handle; the last two newest first within.
 */
export const INBOX_SORTS = ['newest', 'seen', 'severity', 'app'] as const;
export type InboxSort = (typeof INBOX_SORTS)[number];

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

/** Every field narrows the list; an absent one does not filter. */
export interface InboxFilter {
  /** These apps only (an app filter, a role's apps, or both intersected); an empty list matches nothing. */
  apps?: readonly string[];
  /** Not these apps (the Open view leaves out competitors' reviews). */
  excludeApps?: readonly string[];
  stars?: readonly number[];
  priorities?: readonly Priority[];
  statuses?: readonly TriageStatus[];
  assignee?: string;
  tag?: string;
  /** From this moment, inclusive: of the review's date, or of when it was first seen under `seen`. */
  from?: Date;
  /** Until this moment, exclusive (the same date as `from`). */
  to?: Date;
  /** Words to find in the review's text or reviewer (full-text, each word a prefix, all of them). */
  text?: string;
  /**
   * Reviews the marketplace removed (`removed_at`): left out (`hide`), or the only ones (`only`); absent,
   * they are listed with the others. A review's removal is no answer to its complaint, so the list does not
   * hide them unless asked (web/filters.ts).
   */
  removed?: 'hide' | 'only';
}

export interface InboxRow {
  id: number;
  appHandle: string;
  appName: string;
  reviewer: string;
  location: string;
  rating: number;
  content: string;
  createdDate: string;
  /** The marketplace's date, parsed; null when it did not parse. */
  createdAt: Date | null;
  /** The date the list is ordered by (see the module comment). */
  at: Date;
  /** When reviewwatch first stored it. */
  firstSeenAt: Date;
  timeUsingApp: string;
  removedAt: Date | null;
  status: TriageStatus;
  assignee: string | null;
  tags: string[];
  /** Of its review alerts; null for a review that raised none (history, or above the low-rating bar). */
  priority: Priority | null;
}

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

/**
 * Where a page starts: after the row with these values of the list's order. `key` is the sort's own value
 * (the first-seen time, the severity, the app's handle); `at` the review's date; ties go by row id.
 */
export type Cursor =
  | { sort: 'newest'; at: number; id: number }
  | { sort: 'seen'; key: number; id: number }
  | { sort: 'severity'; key: number; at: number; id: number }
  | { sort: 'app'; key: string; at: number; id: number };

const NUMBER = '(-?\\d{1,16})';
const ROW = '(\\d{1,16})';
const CURSOR_FORMS: { [S in InboxSort]: RegExp } = {
  newest: new RegExp(`^${NUMBER}_${ROW}$`),
  seen: new RegExp(`^seen\\.${NUMBER}_${ROW}$`),
  severity: new RegExp(`^severity\\.${NUMBER}_${NUMBER}_${ROW}$`),
  app: new RegExp(`^app\\.([a-z0-9-]{1,200})\\.${NUMBER}_${ROW}$`),
};

/**
 * A cursor as `next` gave it, for any of the orders; undefined for one the caller made up or mangled (the
 * list then answers with its first page). The newest-first form is `<date>_<id>`, as before there were
 * other orders; the others lead with their name (`seen.…`, `severity.…`, `app.…`).
 */
export function parseCursor(cursor: string | undefined): Cursor | undefined {
  if (!cursor) return undefined;
  for (const sort of INBOX_SORTS) {
    const m = CURSOR_FORMS[sort].exec(cursor);
    if (!m) continue;
    const n = (i: number) => Number(m[i]);
    switch (sort) {
      case 'newest':
        return { sort, at: n(1), id: n(2) };
      case 'seen':
        return { sort, key: n(1), id: n(2) };
      case 'severity':
        return { sort, key: n(1), at: n(2), id: n(3) };
      case 'app':
        return HANDLE_PATTERN.test(m[1] ?? '') ? { sort, key: m[1] ?? '', at: n(2), id: n(3) } : undefined;
    }
  }
  return undefined;
}

/** The cursor that starts a page right after this row of a list in this order. */
export function cursorAfter(sort: InboxSort, row: { id: number; at: number; key: number | string }): string {
  switch (sort) {
    case 'newest':
      return `${row.at}_${row.id}`;
    case 'seen':
      return `seen.${row.key}_${row.id}`;
    case 'severity':
      return `severity.${row.key}_${row.at}_${row.id}`;
    case 'app':
      return `app.${row.key}.${row.at}_${row.id}`;
  }
}

interface Query {
  sql: string;
  params: unknown[];
}

/**
 * The words of a search as an FTS5 query: each a quoted word, all required; undefined when none is left.
 * The index stems (drizzle/0009_fts_stemmed.sql), so "refund" also finds "refunds" and "refunded" without
 * a prefix query, which FTS5 could not check review by review quickly.
 */
export function ftsQuery(text: string): string | undefined {
  const terms = text
    .split(/\s+/)
    .map((word) => word.replace(/"/g, ''))
    // A word of punctuation alone is no token to FTS5, and would match nothing.
    .filter((word) => /[\p{L}\p{N}]/u.test(word))
    .slice(0, 16);
  if (terms.length === 0) return undefined;
  return terms.map((term) => `"${term}"`).join(' ');
}

/**
 * How a search reaches its matches: along the index's keys (`keyed`), or, for the filters with an index of
 * their own to walk (one app, a few apps, a tag, a status few reviews have), by looking its matches up and
 * sorting them (`from-matches`), gathering them once and walking that index against them (`gathered`) or
 * asking the index review by review (`probed`). Every path gives the same rows and cursors.
 */
export type SearchPath = 'keyed' | 'from-matches' | 'gathered' | 'probed';

/**
 * How a list query reaches its rows when it has a choice (see `planOf`): through the apps' own index or
 * the date index, and from the search's matches or along the dates.
 */
interface Plan {
  apps: 'app-index' | 'date-index';
  text: SearchPath;
  /** For a filter only triaged reviews match (a status other than new, an assignee). */
  triage: 'from-triage' | 'along-dates';
}

/** Which way a query reads from its cursor: the page after it, or (for a review's previous one) before. */
type Direction = 'after' | 'before';

/** The FROM and WHERE of a list query, shared by the list's page and the views' counts. */
interface Base {
  from: string;
  where: string[];
  params: unknown[];
  keyed: boolean;
  /** The date the period filters on: the review's, or when it was first seen (`seen`). */
  date: string;
}

/** The date a sort's period counts by: first seen for `seen`, else the review's own date. */
function dateOf(sort: InboxSort): string {
  return sort === 'seen' ? 'r.first_seen_at' : AT;
}

/** Adds a condition to a query's WHERE, with the values of its `?`s in order. */
type AddClause = (clause: string, ...values: unknown[]) => void;

/**
 * The FROM of a list query. A filter only triaged reviews can match (none of them "new", an assignee, a
 * tag) may start from those rows and sort them (`planOf` says when). Otherwise the query walks the
 * reviews in date order and stops once the page is full.
 */
function fromOf(filter: InboxFilter, plan: Plan, keyed: boolean, add: AddClause): string {
  if (keyed) {
    // The search's matches in key order, newest hour first, each joined to its review (see below).
    const from = `reviews_fts f cross join reviews r on r.id = (f.rowid ${ROW_ID})
      ${filter.tag !== undefined ? 'cross join review_tags g on g.review_row_id = r.id' : ''}
      ${onlyTriaged(filter) ? 'cross' : 'left'} join review_triage t on t.review_row_id = r.id`;
    if (filter.tag !== undefined) add('g.tag = ?', filter.tag);
    return from;
  }
  if (filter.tag !== undefined) {
    add('g.tag = ?', filter.tag);
    return `review_tags g cross join reviews r on r.id = g.review_row_id
      left join review_triage t on t.review_row_id = r.id`;
  }
  if (onlyTriaged(filter)) {
    // Many triaged rows match: walk the dates and join each review's triage row instead.
    return plan.triage === 'from-triage'
      ? 'review_triage t cross join reviews r on r.id = t.review_row_id'
      : 'reviews r cross join review_triage t on t.review_row_id = r.id';
  }
  return 'reviews r left join review_triage t on t.review_row_id = r.id';
}

/** The apps a list keeps and those it leaves out. */
function addAppClauses(filter: InboxFilter, plan: Plan, add: AddClause): void {
  if (filter.apps) {
    const apps = [...new Set(filter.apps)];
    // One app: its own index gives the order. A few of many: their index, and the page's rows are sorted.
    // A large share: the date index gives the order and the apps are only checked (`+` keeps SQLite from
    // choosing the app index, which would mean sorting most of the store).
    if (apps.length === 1) add('r.app_handle = ?', apps[0]);
    else if (plan.apps === 'app-index')
      add('r.app_handle in (select value from json_each(?))', JSON.stringify(apps));
    else add('+r.app_handle in (select value from json_each(?))', JSON.stringify(apps));
  }
  // A few apps left out (competitors): checked on the date index, which holds the app (0016_inbox_views.sql).
  if (filter.excludeApps && filter.excludeApps.length > 0) {
    add(
      '+r.app_handle not in (select value from json_each(?))',
      JSON.stringify([...new Set(filter.excludeApps)]),
    );
  }
}

/** The statuses a list keeps: "new" is also a review without a triage row. */
function addStatusClause(statuses: readonly TriageStatus[], add: AddClause): void {
  const named = statuses.filter((s) => s !== 'new');
  const clauses = [
    ...(statuses.includes('new') ? ["t.status is null or t.status = 'new'"] : []),
    ...(named.length > 0 ? ['t.status in (select value from json_each(?))'] : []),
  ];
  add(
    clauses.length > 0 ? `(${clauses.join(' or ')})` : '0',
    ...(named.length > 0 ? [JSON.stringify(named)] : []),
  );
}

/** A search's words, by the path the plan chose; `match` is its FTS5 query, undefined for none. */
function addTextClause(
  search: { match: string | undefined; keyed: boolean; path: SearchPath },
  filter: InboxFilter,
  cursor: Cursor | undefined,
  add: AddClause,
): void {
  const { match, keyed, path } = search;
  // Words with nothing searchable in them find nothing, rather than everything.
  if (match === undefined) add('0');
  else if (keyed) {
    add('f.reviews_fts match ?', match);
    // The dates and the cursor bound the keys too: FTS5 starts its walk at the first hour they allow.
    let hours = LAST_HOUR + 1;
    if (filter.to) hours = Math.min(hours, keyHour(filter.to.getTime() - 1) + 1);
    if (cursor?.sort === 'newest') hours = Math.min(hours, keyHour(cursor.at) + 1);
    add(`f.rowid < (? << ${KEY_BITS})`, hours);
  }
  // Few matches: start from them and sort them. Many: walk the dates (or an app's reviews) and check
  // each row against the matches, gathered once (`+` keeps SQLite from starting from them). Most of the
  // store: walk them and ask the index about each review, as the page fills within a few times its size.
  else if (path === 'from-matches') {
    add(`r.id in (select rowid ${ROW_ID} from reviews_fts where reviews_fts match ?)`, match);
  } else if (path === 'gathered') {
    add(`+r.id in (select rowid ${ROW_ID} from reviews_fts where reviews_fts match ?)`, match);
  } else {
    add(`exists (select 1 from reviews_fts f where f.reviews_fts match ? and f.rowid = ${KEY_OF_R})`, match);
  }
}

function baseOf(filter: InboxFilter, plan: Plan, sort: InboxSort, cursor: Cursor | undefined): Base {
  const where: string[] = [];
  const params: unknown[] = [];
  const add: AddClause = (clause, ...values) => {
    where.push(clause);
    params.push(...values);
  };
  const date = dateOf(sort);
  const match = filter.text === undefined ? undefined : ftsQuery(filter.text);
  const keyed = plan.text === 'keyed' && match !== undefined;
  const from = fromOf(filter, plan, keyed, add);
  addAppClauses(filter, plan, add);
  if (filter.stars) add('r.rating in (select value from json_each(?))', JSON.stringify(filter.stars));
  if (filter.priorities) {
    const ranks = filter.priorities.map((p) => PRIORITIES.indexOf(p));
    add(`${PRIORITY_RANK} in (select value from json_each(?))`, JSON.stringify(ranks));
  }
  if (filter.statuses) addStatusClause([...new Set(filter.statuses)], add);
  if (filter.assignee !== undefined) add('t.assignee = ?', filter.assignee);
  // Checked on the review's row, which every path reads anyway; no index has it. `only` therefore walks
  // until it finds a page of removed reviews: bounded by the period, as any rare filter without an index.
  if (filter.removed === 'hide') add('r.removed_at is null');
  else if (filter.removed === 'only') add('r.removed_at is not null');
  if (filter.from) add(`${date} >= ?`, filter.from.getTime());
  if (filter.to) add(`${date} < ?`, filter.to.getTime());
  if (filter.text !== undefined) addTextClause({ match, keyed, path: plan.text }, filter, cursor, add);
  return { from, where, params, keyed, date };
}

/** The sort's own value of a review in `r`: what a cursor holds besides the date and the row id. */
function sortKeyOf(sort: InboxSort): string {
  switch (sort) {
    case 'newest':
      return AT;
    case 'seen':
      return 'r.first_seen_at';
    case 'severity':
      return SEVERITY_KEY;
    case 'app':
      return 'r.app_handle';
  }
}

/**
 * Where a page starts, as a condition on `r`, and its order. Newest first and first seen are written so
 * the first term bounds the index range and the second only breaks ties within one date; severity and app
 * compare (key, date, id) as a row value, the date and id negated as they go newest first.
 */
function orderOf(sort: InboxSort, direction: Direction): { order: string; outer: string } {
  const down = direction === 'after' ? 'desc' : 'asc';
  const up = direction === 'after' ? 'asc' : 'desc';
  switch (sort) {
    case 'newest':
      return { order: `${AT} ${down}, r.id ${down}`, outer: `p.at ${down}, p.id ${down}` };
    case 'seen':
      return { order: `r.first_seen_at ${down}, r.id ${down}`, outer: `p.k ${down}, p.id ${down}` };
    default:
      return {
        order: `${sortKeyOf(sort)} ${up}, ${AT} ${down}, r.id ${down}`,
        outer: `p.k ${up}, p.at ${down}, p.id ${down}`,
      };
  }
}

function cursorClause(cursor: Cursor, direction: Direction): Query {
  const [lt, le] = direction === 'after' ? ['<', '<='] : ['>', '>='];
  const gt = direction === 'after' ? '>' : '<';
  switch (cursor.sort) {
    case 'newest':
      return {
        sql: `${AT} ${le} ? and (${AT} ${lt} ? or r.id ${lt} ?)`,
        params: [cursor.at, cursor.at, cursor.id],
      };
    case 'seen':
      return {
        sql: `r.first_seen_at ${le} ? and (r.first_seen_at ${lt} ? or r.id ${lt} ?)`,
        params: [cursor.key, cursor.key, cursor.id],
      };
    case 'severity':
    case 'app':
      return {
        sql: `(${sortKeyOf(cursor.sort)}, -${AT}, -r.id) ${gt} (?, ?, ?)`,
        params: [cursor.key, -cursor.at, -cursor.id],
      };
  }
}

function buildQuery(
  filter: InboxFilter,
  limit: number,
  cursor: Cursor | undefined,
  plan: Plan,
  sort: InboxSort = 'newest',
  direction: Direction = 'after',
): Query {
  // A cursor of another order than the one asked for is a made-up one: the first page.
  const at = cursor?.sort === sort ? cursor : undefined;
  const base = baseOf(filter, plan, sort, at);
  const { from, keyed } = base;
  const where = [...base.where];
  const params = [...base.params];
  if (at) {
    const clause = cursorClause(at, direction);
    where.push(clause.sql);
    params.push(...clause.params);
  }
  const filtered = where.length > 0 ? `where ${where.map((w) => `(${w})`).join(' and ')}` : '';
  // Newest first needs no key of its own: a second column with the date would leave SQLite unsure which of
  // the two the inner order gives, and it would sort the page again.
  const key = sort === 'newest' ? '0' : sortKeyOf(sort);
  let rows = `select r.id as id, ${AT} as at, ${key} as k from ${from} ${filtered}`;
  if (keyed) {
    // The first page's worth of matches in key order ends in some hour: every match of a later hour is
    // among them, and no match of an earlier hour can be on the page. So the page is the newest of the
    // matches from the start of that hour on, which are those and the rest of that hour, sorted here.
    // (FTS5 takes one lower bound on the key: this one; the date filter is the inner walk's.)
    rows += ` and f.rowid >= (select (min(k) >> ${KEY_BITS}) << ${KEY_BITS} from (
        select f.rowid as k from ${from} ${filtered} and f.rowid >= (? << ${KEY_BITS})
        order by f.rowid desc limit ${limit + 1}))`;
    params.push(...params, filter.from ? keyHour(filter.from.getTime()) : FIRST_HOUR);
  }
  const { order, outer } = orderOf(sort, direction);

  // The page's rows are found and ordered first, by id and date alone; only those get their columns, tags
  // and priority. A search matching half the store sorts two integers per match, not whole rows.
  const sql = `select r.id as id, r.app_handle as appHandle, r.app_name as appName, r.reviewer as reviewer,
      r.location as location, r.rating as rating, r.content as content, r.created_date as createdDate,
      r.created_at as createdAt, p.at as at, r.first_seen_at as firstSeenAt, p.k as sortKey,
      r.time_using_app as timeUsingApp, r.removed_at as removedAt, coalesce(t.status, 'new') as status,
      t.assignee as assignee,
      (select json_group_array(tag) from (select tag from review_tags where review_row_id = r.id order by tag))
        as tags,
      ${PRIORITY_RANK} as priorityRank
    from (
      ${rows}
      order by ${order}
      limit ${limit + 1}
    ) p
    cross join reviews r on r.id = p.id
    left join review_triage t on t.review_row_id = r.id
    order by ${outer}`;
  return { sql, params };
}

interface RawRow {
  id: number;
  appHandle: string;
  appName: string;
  reviewer: string;
  location: string;
  rating: number;
  content: string;
  createdDate: string;
  createdAt: number | null;
  at: number;
  firstSeenAt: number;
  sortKey: number | string;
  timeUsingApp: string;
  removedAt: number | null;
  status: TriageStatus;
  assignee: string | null;
  tags: string;
  priorityRank: number | null;
}

const prepared = new WeakMap<Database.Database, Map<string, Database.Statement<unknown[], RawRow>>>();

/** Statements by their SQL: a handful of shapes, each prepared once per connection. */
function statement(db: StoreDb, sql: string): Database.Statement<unknown[], RawRow> {
  const client = db.$client;
  let cache = prepared.get(client);
  if (!cache) {
    cache = new Map();
    prepared.set(client, cache);
  }
  let st = cache.get(sql);
  if (!st) {
    st = client.prepare<unknown[], RawRow>(sql);
    cache.set(sql, st);
  }
  return st;
}

function pageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE_SIZE;
  return Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(limit)));
}

/**
 * Searches on one app, a few apps, a tag or a status few reviews have, matching fewer reviews than this,
 * start from the matches; see `planOf`. (Other searches walk the index's keys.)
 */
export const SEARCH_MATCHES_TO_SORT = 10_000;

/**
 * From how many matches a search on one app, a few apps, a tag or a status few reviews have asks the
 * index review by review rather than gathering every match first. Gathering costs about 0.8 µs a match;
 * asking costs 5 to 12 µs a review walked (measured at 1,000,000 reviews; the keys follow the dates, so
 * reviews asked about in date order sit together in the index), and the walk takes about a page (51)
 * divided by the share of reviews that match. At 12 µs they cost the same at √(51 × 0.012 / 0.0008 ×
 * reviews) matches: 28,000 of a million reviews. Counting that far costs about 2 ms (bench/README.md).
 */
function searchMatchesToProbe(db: StoreDb): number {
  const reviews =
    db.$client.prepare<[], { n: number | null }>('select max(id) as n from reviews').get()?.n ?? 0;
  return Math.max(SEARCH_MATCHES_TO_SORT, Math.round(Math.sqrt(800 * reviews)));
}
/** App filters naming at most this share of the stored apps use the apps' index; see `planOf`. */
export const APP_SHARE_FOR_APP_INDEX = 0.05;

/** Status or assignee filters matching fewer triaged reviews than this start from them; see `planOf`. */
export const TRIAGED_ROWS_TO_SORT = 5_000;

export interface PlanOptions {
  /** Overrides SEARCH_MATCHES_TO_SORT (tests). */
  searchMatchesToSort?: number;
  /** Overrides the count from which a search asks the index review by review (tests). */
  searchMatchesToProbe?: number;
  /** Overrides TRIAGED_ROWS_TO_SORT (tests). */
  triagedRowsToSort?: number;
  /** Takes this path for a search whatever the counts say (tests: every path gives the same pages). */
  searchPath?: SearchPath;
}

/** A filter only reviews with a triage row can match: no tag, and a status other than new or an assignee. */
function onlyTriaged(filter: InboxFilter): boolean {
  if (filter.tag !== undefined) return false;
  return filter.assignee !== undefined || (filter.statuses !== undefined && !filter.statuses.includes('new'));
}

/**
 * The choices SQLite cannot make well without statistics, made from cheap counts. A search walks the
 * index's keys unless another filter has an index of its own to walk. Starting from a search's matches
 * (or from the triaged rows a status or assignee filter names) costs one row lookup per match;
 * walking the dates costs about a page divided by the share of reviews that match: a count of the
 * matches, capped, tells which is less. The same holds for a filter on several apps, with the share of
 * the apps as the estimate.
 */
function planOf(
  db: StoreDb,
  filter: InboxFilter,
  options: PlanOptions,
  sort: InboxSort = 'newest',
  direction: Direction = 'after',
): Plan {
  const client = db.$client;
  let apps: Plan['apps'] = 'date-index';
  if (filter.apps && filter.apps.length > 1) {
    const stored = client.prepare<[], { n: number }>('select count(*) as n from apps').get()?.n ?? 0;
    if (stored > 0 && new Set(filter.apps).size / stored <= APP_SHARE_FOR_APP_INDEX) apps = 'app-index';
  }
  let triage: Plan['triage'] = 'from-triage';
  if (onlyTriaged(filter)) {
    const cap = options.triagedRowsToSort ?? TRIAGED_ROWS_TO_SORT;
    const found = client
      .prepare<{ statuses: string; assignee: string | null; cap: number }, { n: number }>(
        `select count(*) as n from (select 1 from review_triage
         where (@statuses = '[]' or status in (select value from json_each(@statuses)))
         and (@assignee is null or assignee = @assignee) limit @cap)`,
      )
      .get({ statuses: JSON.stringify(filter.statuses ?? []), assignee: filter.assignee ?? null, cap })?.n;
    if (found !== undefined && found >= cap) triage = 'along-dates';
  }
  let text: Plan['text'] = 'from-matches';
  const match = filter.text === undefined ? undefined : ftsQuery(filter.text);
  // A search that would otherwise walk the dates walks the index's keys: no counting needed, its matches
  // come newest first whatever their number (a rare word's all of them, as looking them up would).
  // (The index's keys follow the review's date, newest first: other orders and a walk back from a review
  // count the matches instead.)
  const walksDates =
    sort === 'newest' &&
    direction === 'after' &&
    filter.tag === undefined &&
    (filter.apps === undefined || (new Set(filter.apps).size > 1 && apps === 'date-index')) &&
    (!onlyTriaged(filter) || triage === 'along-dates');
  if (options.searchPath !== undefined) text = options.searchPath;
  else if (match !== undefined && walksDates) text = 'keyed';
  else if (match !== undefined) {
    const toSort = options.searchMatchesToSort ?? SEARCH_MATCHES_TO_SORT;
    const toProbe = options.searchMatchesToProbe ?? searchMatchesToProbe(db);
    const found = client
      .prepare<[string, number], { n: number }>(
        'select count(*) as n from (select rowid from reviews_fts where reviews_fts match ? limit ?)',
      )
      .get(match, Math.max(toSort, toProbe))?.n;
    if (found !== undefined && found >= toProbe) text = 'probed';
    else if (found !== undefined && found >= toSort) text = 'gathered';
  }
  return { apps, text, triage };
}

function rowOf(r: RawRow): InboxRow {
  return {
    id: r.id,
    appHandle: r.appHandle,
    appName: r.appName,
    reviewer: r.reviewer,
    location: r.location,
    rating: r.rating,
    content: r.content,
    createdDate: r.createdDate,
    createdAt: r.createdAt === null ? null : new Date(r.createdAt),
    at: new Date(r.at),
    firstSeenAt: new Date(r.firstSeenAt),
    timeUsingApp: r.timeUsingApp,
    removedAt: r.removedAt === null ? null : new Date(r.removedAt),
    status: r.status,
    assignee: r.assignee,
    tags: JSON.parse(r.tags) as string[],
    priority: r.priorityRank === null ? null : (PRIORITIES[r.priorityRank] ?? null),
  };
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

/** What a view adds to the list's filter, for counting it (see `countInbox`). */
export interface InboxBucket {
  statuses?: readonly TriageStatus[];
  /** These apps only; an empty list matches nothing. */
  apps?: readonly string[];
  excludeApps?: readonly string[];
  assignee?: string;
  /** Matches nothing (a "mine" without a user). */
  none?: boolean;
}

/** How many reviews a count reads at most: past it, the counts say "at least". */
export const COUNT_CAP = 10_000;

export interface InboxCounts {
  /** Per bucket, of the reviews counted. */
  counts: Record<string, number>;
  /** More than `COUNT_CAP` reviews matched the filter: the counts are of the first ones, lower bounds. */
  capped: boolean;
}

/**
 * How many reviews of the filter fall in each bucket (the inbox's views: Open, New, Resolved…), in one
 * walk: the filter's reviews, up to `COUNT_CAP` of them, each put in every bucket it matches. At the
 * defaults (30 days) the walk reads the date index alone and the triage rows of the reviews it keeps.
 */
export function countInbox(
  db: StoreDb,
  filter: InboxFilter,
  buckets: Readonly<Record<string, InboxBucket>>,
  options: { sort?: InboxSort; cap?: number } & PlanOptions = {},
): InboxCounts {
  const names = Object.keys(buckets);
  const zero = Object.fromEntries(names.map((n) => [n, 0]));
  if (filter.apps?.length === 0) return { counts: zero, capped: false };
  const sort = options.sort ?? 'newest';
  const cap = options.cap ?? COUNT_CAP;
  const base = baseOf(filter, planOf(db, filter, options, sort), sort, undefined);
  const where = [...base.where];
  const params = [...base.params];
  // A search along the index's keys: from the first hour of the period, as the list's second walk.
  if (base.keyed && filter.from) {
    where.push(`f.rowid >= (? << ${KEY_BITS})`);
    params.push(keyHour(filter.from.getTime()));
  }
  // Each list of apps is checked once per review, as a flag of the inner walk; the statuses are the
  // store's own words, written into the query. A bucket's sum then only compares columns.
  const appLists: string[] = [];
  const flagOf = (apps: readonly string[]) => {
    const list = JSON.stringify([...new Set(apps)].sort());
    if (!appLists.includes(list)) appLists.push(list);
    return `c.a${appLists.indexOf(list)}`;
  };
  const sums: string[] = [];
  const sumParams: unknown[] = [];
  for (const name of names) {
    const bucket = buckets[name] as InboxBucket;
    const terms: string[] = [];
    if (bucket.none || bucket.apps?.length === 0) terms.push('0');
    if (bucket.statuses) {
      const known = bucket.statuses.filter((st) => (TRIAGE_STATUSES as readonly string[]).includes(st));
      terms.push(`c.status in (${known.map((st) => `'${st}'`).join(', ') || 'null'})`);
    }
    if (bucket.apps && bucket.apps.length > 0) terms.push(flagOf(bucket.apps));
    if (bucket.excludeApps && bucket.excludeApps.length > 0) terms.push(`not ${flagOf(bucket.excludeApps)}`);
    if (bucket.assignee !== undefined) {
      terms.push('c.assignee = ?');
      sumParams.push(bucket.assignee);
    }
    sums.push(`coalesce(sum(${terms.length > 0 ? terms.join(' and ') : '1'}), 0) as b${sums.length}`);
  }
  const flags = appLists
    .map((_, i) => `, r.app_handle in (select value from json_each(?)) as a${i}`)
    .join('');
  const filtered = where.length > 0 ? `where ${where.map((w) => `(${w})`).join(' and ')}` : '';
  const sql = `select count(*) as n${sums.map((s) => `, ${s}`).join('')} from (
      select coalesce(t.status, 'new') as status, t.assignee as assignee${flags}
      from ${base.from} ${filtered} limit ${cap + 1}) c`;
  const row = db.$client
    .prepare<unknown[], Record<string, number>>(sql)
    .get(...sumParams, ...appLists, ...params);
  const counts = Object.fromEntries(names.map((n, i) => [n, row?.[`b${i}`] ?? 0]));
  return { counts, capped: (row?.n ?? 0) > cap };
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
