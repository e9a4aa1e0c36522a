/**
 * The choices a list query makes that SQLite cannot make well without statistics (`planOf`): which index
 * to walk, and how a search reaches its matches, from cheap counts.
 */
import type { StoreDb } from '../db.js';
import type { InboxSort } from './cursor.js';
import { ftsQuery, type InboxFilter, onlyTriaged } from './filter.js';
import type { Direction } from './sql.js';

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
export interface Plan {
  apps: 'app-index' | 'date-index';
  text: SearchPath;
  /** For a filter only triaged reviews match (a status other than new, an assignee). */
  triage: 'from-triage' | 'along-dates';
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

/**
 * The choices SQLite cannot make well without statistics, made from cheap counts. A search walks the
 * index's keys unless another filter has an index of its own to walk. Starting from a search's matches
 * (or from the triaged rows a status or assignee filter names) costs one row lookup per match;
 * walking the dates costs about a page divided by the share of reviews that match: a count of the
 * matches, capped, tells which is less. The same holds for a filter on several apps, with the share of
 * the apps as the estimate.
 */
export function planOf(
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
