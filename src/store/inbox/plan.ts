/**
 * The choices a list query makes that SQLite cannot make well without statistics (`planOf`): which index
 * to walk, and how a search or a topic reaches its matches, from cheap counts.
 */
import { DAY_ROW_TOPICS } from '../day-row-topics.js';
import type { StoreDb } from '../db.js';
import { dayOf } from '../period-counts.js';
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
  /**
   * For a topic filter: each walked review's topics checked (`along-dates`), or, for a custom topic few
   * reviews have, only the reviews of the app-days its counts hold looked up and sorted (`from-days`).
   */
  topic: 'along-dates' | 'from-days';
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
  return Math.max(SEARCH_MATCHES_TO_SORT, Math.round(Math.sqrt(800 * storedReviews(db))));
}

/** About how many reviews are stored: the highest row id, which a count would take far longer to give. */
function storedReviews(db: StoreDb): number {
  return db.$client.prepare<[], { n: number | null }>('select max(id) as n from reviews').get()?.n ?? 0;
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
  /** Takes this path for a custom topic whatever the counts say (tests: both give the same pages). */
  topicPath?: Plan['topic'];
  /** Overrides TOPIC_DAYS_TO_SORT (tests). */
  topicDaysToSort?: number;
}

/** A topic on more of the filter's app-days than this is walked along the dates, without counting further. */
export const TOPIC_DAYS_TO_SORT = 2_000;

/**
 * The condition on a topic's day-count rows, `d`, that the filter leaves possible: its apps, and its
 * period's days when the period is of the review's own date (under `seen` it is of when it was first seen,
 * which the counts do not know).
 */
export function topicDaysWhere(
  topic: string,
  filter: InboxFilter,
  sort: InboxSort,
): { sql: string; params: unknown[] } {
  const where = ['d.topic = ?'];
  const params: unknown[] = [topic];
  if (filter.apps) {
    where.push('d.app_handle in (select value from json_each(?))');
    params.push(JSON.stringify([...new Set(filter.apps)]));
  }
  if (sort !== 'seen' && filter.from) {
    where.push('d.day >= ?');
    params.push(dayOf(filter.from.getTime()));
  }
  // `to` is exclusive: the last day is that of the moment before it.
  if (sort !== 'seen' && filter.to) {
    where.push('d.day <= ?');
    params.push(dayOf(filter.to.getTime() - 1));
  }
  return { sql: where.join(' and '), params };
}

/**
 * What a review costs each path, in µs, measured at 1,000,000 reviews (bench/topics-store.ts): walking the
 * dates reads each review's `topics` (about 1 µs a review walked); starting from the app-days looks up
 * every review of those days, checks its topics and sorts those it keeps (about 3 µs a review).
 */
const WALK_COST = 1;
const DAY_REVIEW_COST = 3;

/** The page a walk fills, for its length: a page and the row that says whether another follows. */
const PAGE_ROWS = 51;

/**
 * How a topic filter reaches its reviews. A built-in topic is common (a few per cent of reviews and more):
 * a walk along the dates fills a page soon. A custom topic may be rare ("Klaviyo" in a few hundred of a
 * million reviews), and a walk for it would read every review of the period: its day counts
 * (topic_day_counts, drizzle/0025_topic_day_counts_by_topic.sql) say which app-days hold it and how many
 * reviews those days hold in all, which are then all a list needs to look at. Starting from them costs
 * those reviews; the walk costs about a page divided by the topic's share of the store, at most the store.
 */
function topicPathOf(
  db: StoreDb,
  topic: string,
  filter: InboxFilter,
  sort: InboxSort,
  daysToSort: number,
): Plan['topic'] {
  const days = topicDaysWhere(topic, filter, sort);
  const counted = db.$client
    .prepare<unknown[], { days: number; topical: number | null; reviews: number | null }>(
      `select count(*) as days, sum(d.reviews) as topical, sum(c.reviews) as reviews
       from (select app_handle, day, reviews from topic_day_counts d where ${days.sql} limit ?) d
       join review_day_counts c on c.app_handle = d.app_handle and c.day = d.day`,
    )
    .get(...days.params, daysToSort + 1);
  if (counted === undefined || counted.days > daysToSort) return 'along-dates';
  const stored = storedReviews(db);
  const walked = Math.min(stored, (PAGE_ROWS * stored) / Math.max(1, counted.topical ?? 0));
  return (counted.reviews ?? 0) * DAY_REVIEW_COST < walked * WALK_COST ? 'from-days' : 'along-dates';
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
  // A built-in topic has no app-days of its own to start from: its counts are columns of every day's row.
  let topic: Plan['topic'] = 'along-dates';
  if (filter.topic !== undefined && !(DAY_ROW_TOPICS as readonly string[]).includes(filter.topic))
    topic =
      options.topicPath ??
      topicPathOf(db, filter.topic, filter, sort, options.topicDaysToSort ?? TOPIC_DAYS_TO_SORT);
  return { apps, text, triage, topic };
}
