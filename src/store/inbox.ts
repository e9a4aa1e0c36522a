/**
 * The triage inbox's list of reviews: filtered, newest first, a page at a time. Pages are keyed by a
 * cursor on (date, row id), so page 500 costs what page 1 does, and each query shape is chosen so SQLite
 * walks an index in the order of the list (test/store/inbox.test.ts checks the plans).
 *
 * The date of a review is its own (`created_at`), or when it was first seen when the API's date did not
 * parse: `coalesce(created_at, first_seen_at)`, spelled exactly as in the indexes of drizzle/0008_inbox.sql.
 */
import type Database from 'better-sqlite3';
import { PRIORITIES, type Priority } from '../scoring/priority.js';
import type { StoreDb } from './db.js';
import type { TriageStatus } from './schema.js';

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

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

/** Every field narrows the list; an absent one does not filter. */
export interface InboxFilter {
  /** These apps only (an app filter, a role's apps, or both intersected); an empty list matches nothing. */
  apps?: readonly string[];
  stars?: readonly number[];
  priorities?: readonly Priority[];
  statuses?: readonly TriageStatus[];
  assignee?: string;
  tag?: string;
  /** From this moment, inclusive. */
  from?: Date;
  /** Until this moment, exclusive. */
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
  /** The date the list is ordered by (see the module comment). */
  at: Date;
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
}

/** A cursor the caller made up or mangled: the list answers with its first page instead. */
export function parseCursor(cursor: string | undefined): { at: number; id: number } | undefined {
  const match = cursor ? /^(-?\d{1,16})_(\d{1,16})$/.exec(cursor) : null;
  if (!match) return undefined;
  return { at: Number(match[1]), id: Number(match[2]) };
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

function buildQuery(
  filter: InboxFilter,
  limit: number,
  cursor: { at: number; id: number } | undefined,
  plan: Plan,
): Query {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]) => {
    where.push(clause);
    params.push(...values);
  };

  // A filter only triaged reviews can match (none of them "new", an assignee, a tag) may start from those
  // rows and sort them (`planOf` says when). Otherwise the query walks the reviews in date order and stops
  // once the page is full.
  const statuses = filter.statuses ? [...new Set(filter.statuses)] : undefined;
  const match = filter.text === undefined ? undefined : ftsQuery(filter.text);
  const keyed = plan.text === 'keyed' && match !== undefined;
  let from: string;
  if (keyed) {
    // The search's matches in key order, newest hour first, each joined to its review (see below).
    from = `reviews_fts f cross join reviews r on r.id = (f.rowid ${ROW_ID})
      ${filter.tag !== undefined ? 'cross join review_tags g on g.review_row_id = r.id' : ''}
      ${onlyTriaged(filter) ? 'cross' : 'left'} join review_triage t on t.review_row_id = r.id`;
    if (filter.tag !== undefined) add('g.tag = ?', filter.tag);
  } else if (filter.tag !== undefined) {
    from = `review_tags g cross join reviews r on r.id = g.review_row_id
      left join review_triage t on t.review_row_id = r.id`;
    add('g.tag = ?', filter.tag);
  } else if (onlyTriaged(filter)) {
    // Many triaged rows match: walk the dates and join each review's triage row instead.
    from =
      plan.triage === 'from-triage'
        ? 'review_triage t cross join reviews r on r.id = t.review_row_id'
        : 'reviews r cross join review_triage t on t.review_row_id = r.id';
  } else {
    from = 'reviews r left join review_triage t on t.review_row_id = r.id';
  }

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
  if (filter.stars) add('r.rating in (select value from json_each(?))', JSON.stringify(filter.stars));
  if (filter.priorities) {
    const ranks = filter.priorities.map((p) => PRIORITIES.indexOf(p));
    add(`${PRIORITY_RANK} in (select value from json_each(?))`, JSON.stringify(ranks));
  }
  if (statuses) {
    const named = statuses.filter((s) => s !== 'new');
    const clauses = [
      ...(statuses.includes('new') ? ["t.status is null or t.status = 'new'"] : []),
      ...(named.length > 0 ? ['t.status in (select value from json_each(?))'] : []),
    ];
    add(`(${clauses.join(' or ')})`, ...(named.length > 0 ? [JSON.stringify(named)] : []));
  }
  if (filter.assignee !== undefined) add('t.assignee = ?', filter.assignee);
  // Checked on the review's row, which every path reads anyway; no index has it. `only` therefore walks
  // until it finds a page of removed reviews: bounded by the period, as any rare filter without an index.
  if (filter.removed === 'hide') add('r.removed_at is null');
  else if (filter.removed === 'only') add('r.removed_at is not null');
  if (filter.from) add(`${AT} >= ?`, filter.from.getTime());
  if (filter.to) add(`${AT} < ?`, filter.to.getTime());
  if (filter.text !== undefined) {
    // Words with nothing searchable in them find nothing, rather than everything.
    if (match === undefined) add('0');
    else if (keyed) {
      add('f.reviews_fts match ?', match);
      // The dates and the cursor bound the keys too: FTS5 starts its walk at the first hour they allow.
      let hours = LAST_HOUR + 1;
      if (filter.to) hours = Math.min(hours, keyHour(filter.to.getTime() - 1) + 1);
      if (cursor) hours = Math.min(hours, keyHour(cursor.at) + 1);
      add(`f.rowid < (? << ${KEY_BITS})`, hours);
    }
    // Few matches: start from them and sort them. Many: walk the dates (or an app's reviews) and check
    // each row against the matches, gathered once (`+` keeps SQLite from starting from them). Most of the
    // store: walk them and ask the index about each review, as the page fills within a few times its size.
    else if (plan.text === 'from-matches') {
      add(`r.id in (select rowid ${ROW_ID} from reviews_fts where reviews_fts match ?)`, match);
    } else if (plan.text === 'gathered') {
      add(`+r.id in (select rowid ${ROW_ID} from reviews_fts where reviews_fts match ?)`, match);
    } else {
      add(
        `exists (select 1 from reviews_fts f where f.reviews_fts match ? and f.rowid = ${KEY_OF_R})`,
        match,
      );
    }
  }
  if (cursor) {
    // Written so the first term bounds the index range; the second only breaks ties within one date.
    add(`${AT} <= ? and (${AT} < ? or r.id < ?)`, cursor.at, cursor.at, cursor.id);
  }
  const filtered = where.length > 0 ? `where ${where.map((w) => `(${w})`).join(' and ')}` : '';
  let rows = `select r.id as id, ${AT} as at from ${from} ${filtered}`;
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

  // The page's rows are found and ordered first, by id and date alone; only those get their columns, tags
  // and priority. A search matching half the store sorts two integers per match, not whole rows.
  const sql = `select r.id as id, r.app_handle as appHandle, r.app_name as appName, r.reviewer as reviewer,
      r.location as location, r.rating as rating, r.content as content, r.created_date as createdDate, p.at as at,
      r.time_using_app as timeUsingApp, r.removed_at as removedAt, coalesce(t.status, 'new') as status,
      t.assignee as assignee,
      (select json_group_array(tag) from (select tag from review_tags where review_row_id = r.id order by tag))
        as tags,
      ${PRIORITY_RANK} as priorityRank
    from (
      ${rows}
      order by ${AT} desc, r.id desc
      limit ${limit + 1}
    ) p
    cross join reviews r on r.id = p.id
    left join review_triage t on t.review_row_id = r.id
    order by p.at desc, p.id desc`;
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
  at: number;
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
function planOf(db: StoreDb, filter: InboxFilter, options: PlanOptions): Plan {
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
  const walksDates =
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

export function listInbox(
  db: StoreDb,
  filter: InboxFilter,
  options: PageOptions & PlanOptions = {},
): InboxPage {
  if (filter.apps?.length === 0) return { rows: [] };
  const limit = pageSize(options.limit);
  const { sql, params } = buildQuery(filter, limit, parseCursor(options.cursor), planOf(db, filter, options));
  const raw = statement(db, sql).all(...params);
  const rows = raw.slice(0, limit).map(
    (r): InboxRow => ({
      id: r.id,
      appHandle: r.appHandle,
      appName: r.appName,
      reviewer: r.reviewer,
      location: r.location,
      rating: r.rating,
      content: r.content,
      createdDate: r.createdDate,
      at: new Date(r.at),
      timeUsingApp: r.timeUsingApp,
      removedAt: r.removedAt === null ? null : new Date(r.removedAt),
      status: r.status,
      assignee: r.assignee,
      tags: JSON.parse(r.tags) as string[],
      priority: r.priorityRank === null ? null : (PRIORITIES[r.priorityRank] ?? null),
    }),
  );
  const last = rows.at(-1);
  return raw.length > limit && last ? { rows, next: `${last.at.getTime()}_${last.id}` } : { rows };
}

/** SQLite's plan for a list query, one line per step: for tests, and for whoever tunes the indexes. */
export function explainInbox(
  db: StoreDb,
  filter: InboxFilter,
  options: PageOptions & PlanOptions = {},
): string[] {
  const { sql, params } = buildQuery(
    filter,
    pageSize(options.limit),
    parseCursor(options.cursor),
    planOf(db, filter, options),
  );
  return db.$client
    .prepare<unknown[], { detail: string }>(`explain query plan ${sql}`)
    .all(...params)
    .map((r) => r.detail);
}
