/** How many reviews each of the inbox's views holds, under the list's filter, in one walk. */

import type { StoreDb } from '../db.js';
import { TRIAGE_STATUSES, type TriageStatus } from '../schema.js';
import type { InboxSort } from './cursor.js';
import type { InboxFilter } from './filter.js';
import { type PlanOptions, planOf } from './plan.js';
import { baseOf, KEY_BITS, keyHour } from './sql.js';

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
