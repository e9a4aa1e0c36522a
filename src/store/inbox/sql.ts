/**
 * The SQL of the inbox's list queries: the FROM and WHERE of a filter (shared with the counts), the
 * cursor's condition and the order, and the page's select. Each query shape is chosen so SQLite walks an
 * index in the order of the list (test/store/inbox.test.ts checks the plans).
 *
 * The date of a review is its own (`created_at`), or when it was first seen when the API's date did not
 * parse: `coalesce(created_at, first_seen_at)`, spelled exactly as in the indexes of drizzle/0008_inbox.sql
 * and 0016_inbox_views.sql.
 */
import { PRIORITIES } from '../../scoring/priority.js';
import { DAY_MS } from '../period-counts.js';
import type { TriageStatus } from '../schema.js';
import type { Cursor, InboxSort } from './cursor.js';
import { ftsQuery, type InboxFilter, onlyTriaged } from './filter.js';
import { type Plan, type SearchPath, topicDaysWhere } from './plan.js';
import { inboxRowSql } from './rows.js';

export const AT = 'coalesce(r.created_at, r.first_seen_at)';
/** The same date of a review in `d_r`, which a topic's app-days look up (`baseOf`). */
const DAY_AT = 'coalesce(d_r.created_at, d_r.first_seen_at)';

/**
 * The full-text index keys each review by the list's order (drizzle/0010_fts_by_date.sql): the hour of its
 * date, clamped to ±2^22 hours, times 2^40, plus its row id. Keys sort like (hour, id): an hour's reviews
 * come out by row id, every earlier hour's after them. The row id is the key's low 40 bits.
 */
export const KEY_BITS = 40;
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
export const PRIORITY_RANK = `(select min(${priorityRankSql('a')})
  from alerts a where a.review_row_id = r.id and a.kind = 'review')`;

/**
 * A review's severity as one number, most urgent first: the priority rank of its most urgent review alert
 * times 1000, less that alert's score (0-100), so ranks sort first and scores within them; 9999 for a review
 * that raised no alert (history, or above the low-rating bar), which then comes last.
 */
const SEVERITY_KEY = `coalesce((select min(${priorityRankSql('a')} * 1000 - coalesce(a.score, 0))
  from alerts a where a.review_row_id = r.id and a.kind = 'review'), 9999)`;

export interface Query {
  sql: string;
  params: unknown[];
}

/** Which way a query reads from its cursor: the page after it, or (for a review's previous one) before. */
export type Direction = 'after' | 'before';

/** The FROM and WHERE of a list query, shared by the list's page and the views' counts. */
export interface Base {
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

export function baseOf(filter: InboxFilter, plan: Plan, sort: InboxSort, cursor: Cursor | undefined): Base {
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
  // Checked review by review on its `topics` column as the walk goes: a topic is common enough (a few per
  // cent of reviews and more) that the page fills within a walk of a few thousand reviews. The column holds
  // what JSON.stringify wrote, so `"name":"billing"` is in it exactly when billing is one of its topics:
  // found by instr before json_each decodes the few rows that have it (bench/README.md, Stored topics).
  if (filter.topic !== undefined) {
    add(
      "instr(r.topics, ?) > 0 and exists (select 1 from json_each(r.topics) x where x.value ->> '$.name' = ?)",
      JSON.stringify({ name: filter.topic }).slice(1, -1),
      filter.topic,
    );
    // A rare custom topic: only the reviews of the app-days its counts hold, looked up by the apps' date
    // index and sorted (plan.ts, `topicPathOf`). Those days hold every review with the topic.
    if (plan.topic === 'from-days') {
      const days = topicDaysWhere(filter.topic, filter, sort);
      add(
        `r.id in (select d_r.id from topic_day_counts d cross join reviews d_r on d_r.app_handle = d.app_handle
          and ${DAY_AT} >= d.day * ${DAY_MS} and ${DAY_AT} < (d.day + 1) * ${DAY_MS} where ${days.sql})`,
        ...days.params,
      );
    }
  }
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
export function sortKeyOf(sort: InboxSort): string {
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

export function buildQuery(
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
  const sql = `${inboxRowSql(PRIORITY_RANK)}
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
