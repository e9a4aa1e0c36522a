/**
 * How many reviews an app has in each of consecutive periods, in all and per topic with their stars:
 * exactly what counting its reviews gives, read mostly from per-day counts. A day no period's edge cuts
 * through lies in one period whole, and its counts come from review_day_counts, whose rows hold the built-in
 * topics' counts too, and topic_day_counts (drizzle/0020_day_counts.sql, 0024_topic_counts_in_day_row.sql).
 * A day an edge cuts through (a page's periods end now, weeks in a time zone at its midnight) is counted from
 * the reviews and their `topics` column themselves. A trend over nine periods of 90 days sums about 900 days
 * of counts per app in SQL and reads the reviews of ten days, instead of two years of reviews
 * (bench/README.md, Stored topics).
 */
import { DAY_ROW_COLUMNS } from './day-row-topics.js';
import type { StoreDb } from './db.js';
import { preparedOnce } from './prepared.js';

/** A day's length: the stored day counts' days are `dayOf`, whole UTC days from 1970-01-01. */
export const DAY_MS = 86_400_000;

/** The inbox's date of a review `r`, spelled as in its indexes (drizzle/0008_inbox.sql). */
const R_AT = 'coalesce(r.created_at, r.first_seen_at)';

export interface TopicCount {
  reviews: number;
  /** The sum of their stars. */
  stars: number;
}

export interface PeriodCounts {
  /** Every review of the app in the period. */
  reviews: number;
  /** The topics with at least one review in the period. */
  topics: Map<string, TopicCount>;
}

/** The day (UTC, counted from 1970-01-01) a moment falls in, as the stored day counts compute it. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** The index of the period [bounds[i], bounds[i + 1]) holding `at`; bounds ascending, `at` within them. */
function periodIndex(bounds: readonly number[], at: number): number {
  let low = 0;
  let high = bounds.length - 2;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((bounds[mid] as number) <= at) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** The day rows' topic columns, summed per period under their own names. */
const TOPIC_SUMS = DAY_ROW_COLUMNS.flatMap((c) => [c.reviews, c.stars])
  .map((c) => `, sum(d.${c}) as ${c}`)
  .join('');

const statements = preparedOnce((db: StoreDb) => {
  const client = db.$client;
  return {
    /**
     * Per period ([index, first day, end day] triples, JSON) its reviews and each built-in topic's reviews
     * and stars, summed over its days: one key range search per period.
     */
    daySums: client.prepare<[string, string], { p: number; reviews: number } & Record<string, number>>(
      `select c.value ->> 0 as p, sum(d.reviews) as reviews${TOPIC_SUMS}
       from json_each(?) c cross join review_day_counts d
       where d.app_handle = ? and d.day >= c.value ->> 1 and d.day < c.value ->> 2 group by p`,
    ),
    /** The same for the topics outside the day rows (custom ones), a row per period and topic. */
    topicSums: client.prepare<[string, string], { p: number; topic: string } & TopicCount>(
      `select c.value ->> 0 as p, d.topic as topic, sum(d.reviews) as reviews, sum(d.stars) as stars
       from json_each(?) c cross join topic_day_counts d
       where d.app_handle = ? and d.day >= c.value ->> 1 and d.day < c.value ->> 2 group by p, d.topic`,
    ),
    /**
     * The reviews within the ranges ([from, to) pairs, JSON), each with its topics: a row per topic, or
     * one with a null topic for a review without any. One index search per range.
     */
    within: client.prepare<
      [string, string],
      { id: number; at: number; rating: number; topic: string | null }
    >(
      `select r.id as id, ${R_AT} as at,
       r.rating as rating, t.value ->> '$.name' as topic
       from json_each(?) c cross join reviews r left join json_each(r.topics) t
       where r.app_handle = ? and ${R_AT} >= c.value ->> 0 and ${R_AT} < c.value ->> 1`,
    ),
  };
});

function add(period: PeriodCounts, topic: string, reviews: number, stars: number): void {
  const count = period.topics.get(topic);
  if (count) {
    count.reviews += reviews;
    count.stars += stars;
  } else period.topics.set(topic, { reviews, stars });
}

/**
 * The parts of [bounds[0], bounds.at(-1)) outside every period's whole days: the days a bound cuts
 * through (or, for periods shorter than a day, everything), as [from, to) ranges in ms.
 */
function cutRanges(
  bounds: readonly number[],
  whole: ReadonlyArray<readonly [number, number]>,
): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  const push = (from: number, to: number) => {
    if (from >= to) return;
    const last = ranges.at(-1);
    if (last && last[1] === from) last[1] = to;
    else ranges.push([from, to]);
  };
  whole.forEach(([first, end], i) => {
    const from = bounds[i] as number;
    const to = bounds[i + 1] as number;
    if (first >= end) {
      push(from, to);
    } else {
      push(from, first * DAY_MS);
      push(end * DAY_MS, to);
    }
  });
  return ranges;
}

/**
 * The app's counts in the periods [bounds[i], bounds[i + 1]), bounds in ms and ascending: one entry per
 * period, oldest first. Reviews dated by `coalesce(created_at, first_seen_at)`, as everywhere. Two
 * statements: the sums of the whole days of every period, and the few reviews of the days the bounds
 * cut through.
 */
export function periodCounts(db: StoreDb, app: string, bounds: readonly number[]): PeriodCounts[] {
  const periods = bounds.slice(1).map((): PeriodCounts => ({ reviews: 0, topics: new Map() }));
  if (bounds.some((b, i) => i > 0 && b <= (bounds[i - 1] as number))) {
    throw new RangeError(`periodCounts: the bounds must ascend, got ${bounds.join(', ')}`);
  }
  const sql = statements(db);
  // Each period's whole days [first, end): no bound falls inside one, so its counts are the period's.
  const whole = periods.map(
    (_, i) => [-Math.floor(-(bounds[i] as number) / DAY_MS), dayOf(bounds[i + 1] as number)] as const,
  );
  const days = JSON.stringify(whole.flatMap(([first, end], i) => (first < end ? [[i, first, end]] : [])));
  for (const row of sql.daySums.all(days, app)) {
    const period = periods[row.p] as PeriodCounts;
    period.reviews += row.reviews;
    for (const { topic, reviews, stars } of DAY_ROW_COLUMNS) {
      const count = row[reviews] ?? 0;
      if (count > 0) add(period, topic, count, row[stars] ?? 0);
    }
  }
  for (const row of sql.topicSums.all(days, app))
    add(periods[row.p] as PeriodCounts, row.topic, row.reviews, row.stars);
  const ranges = cutRanges(bounds, whole);
  if (ranges.length === 0) return periods;
  const seen = new Set<number>();
  for (const row of sql.within.all(JSON.stringify(ranges), app)) {
    const period = periods[periodIndex(bounds, row.at)] as PeriodCounts;
    if (!seen.has(row.id)) {
      seen.add(row.id);
      period.reviews += 1;
    }
    if (row.topic !== null) add(period, row.topic, 1, row.rating);
  }
  return periods;
}
