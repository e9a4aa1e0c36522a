/**
 * What newly inserted reviews add beside their rows: their days in review_day_counts, with the built-in
 * topics in that row's columns, and their other topics in topic_day_counts (drizzle/0020_day_counts.sql,
 * 0023_topic_counts_from_column.sql, 0024_topic_counts_in_day_row.sql). Counted in JS from the rows the
 * insert has in hand, one upsert per app and day (and per custom topic): a poll's new reviews are mostly of
 * one day, and the set-based statements over the new rows this replaces decoded each review's topics JSON in
 * SQL, which cost more than the rest of the count (bench/README.md, "Stored topics"). Not a trigger per row,
 * which cost more still (drizzle/0022_ingest_topic_rows.sql). Edits, refreshes, the backfill and deletes
 * keep both tables in step through the triggers on `reviews`.
 */
import { DAY_ROW_COLUMNS, DAY_ROW_TOPICS } from './day-row-topics.js';
import type { StoreDb } from './db.js';
import { dayOf } from './period-counts.js';
import { preparedOnce } from './prepared.js';

/** A day-row topic's place: its counters at 2 * bit, and its bit in a review's mask of those it holds. */
const TOPIC_BIT: ReadonlyMap<string, number> = new Map(DAY_ROW_TOPICS.map((topic, i) => [topic, i]));

/** A review as the counts see it. */
export interface CountedReview {
  appHandle: string;
  /** Its date as the inbox dates it: created_at, or else first_seen_at. */
  createdAt: Date | null;
  firstSeenAt: Date;
  rating: number;
  topics: ReadonlyArray<{ name: string }>;
}

/**
 * The upsert of a day's counts: with `topics`, the built-in topics' columns too. A day none of whose new
 * reviews has a built-in topic binds four values rather than twenty-four.
 */
function dayUpsertSql(topics: boolean): string {
  const columns = ['reviews', 'stars'];
  if (topics) for (const { reviews, stars } of DAY_ROW_COLUMNS) columns.push(reviews, stars);
  return `insert into review_day_counts(app_handle, day, ${columns.join(', ')})
    values (?, ?${', ?'.repeat(columns.length)})
    on conflict(app_handle, day) do update set ${columns.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`;
}

const statements = preparedOnce((db) => {
  const client = db.$client;
  return {
    day: client.prepare<[string, number, number, number]>(dayUpsertSql(false)),
    dayWithTopics: client.prepare<[string, number, ...number[]]>(dayUpsertSql(true)),
    topicDay: client.prepare<[string, number, string, number, number]>(
      `insert into topic_day_counts(app_handle, day, topic, reviews, stars) values (?, ?, ?, ?, ?)
       on conflict(app_handle, day, topic) do update
         set reviews = reviews + excluded.reviews, stars = stars + excluded.stars`,
    ),
    inserted: client.prepare<
      [number, number],
      { appHandle: string; createdAt: number | null; firstSeenAt: number; rating: number; topics: string }
    >(
      `select app_handle as appHandle, created_at as createdAt, first_seen_at as firstSeenAt, rating, topics
       from reviews where id between ? and ?`,
    ),
  };
});

/** One day's counts of an app. */
interface DayCount {
  appHandle: string;
  day: number;
  reviews: number;
  stars: number;
  /** Reviews and stars of each day-row topic, at 2 * bit and 2 * bit + 1; empty while none is counted. */
  topics: number[];
  /** The other topics' reviews and stars, by name. */
  others: Map<string, [number, number]>;
}

/** One more review, of `rating` stars, in the pair of counters at `at`: its reviews, then their stars. */
function add(counts: number[], at: number, rating: number): void {
  counts[at] = (counts[at] ?? 0) + 1;
  counts[at + 1] = (counts[at + 1] ?? 0) + rating;
}

function dayCountOf(days: Map<string, DayCount>, review: CountedReview): DayCount {
  const day = dayOf((review.createdAt ?? review.firstSeenAt).getTime());
  const key = `${day} ${review.appHandle}`;
  let count = days.get(key);
  if (count === undefined) {
    count = {
      appHandle: review.appHandle,
      day,
      reviews: 0,
      stars: 0,
      topics: [],
      others: new Map(),
    };
    days.set(key, count);
  }
  return count;
}

/**
 * Adds `reviews`, rows the caller's transaction has just inserted, to the per-day counts. Exactly once
 * for each: a review added twice is counted twice. `insertNewReviews` calls it with the rows it stored.
 * A name is counted once per review, however often its topics list it.
 */
export function countNewReviews(db: StoreDb, reviews: readonly CountedReview[]): void {
  const days = new Map<string, DayCount>();
  for (const review of reviews) {
    const count = dayCountOf(days, review);
    count.reviews += 1;
    count.stars += review.rating;
    // The bits of this review's built-in topics, and its other names: each counted once.
    let bits = 0;
    let others: string[] | undefined;
    for (const { name } of review.topics) {
      const bit = TOPIC_BIT.get(name);
      if (bit !== undefined) {
        if (bits & (1 << bit)) continue;
        bits |= 1 << bit;
        add(count.topics, 2 * bit, review.rating);
      } else {
        others ??= [];
        if (others.includes(name)) continue;
        others.push(name);
        const other = count.others.get(name);
        if (other) add(other, 0, review.rating);
        else count.others.set(name, [1, review.rating]);
      }
    }
  }
  const sql = statements(db);
  for (const count of days.values()) {
    if (count.topics.length === 0) sql.day.run(count.appHandle, count.day, count.reviews, count.stars);
    else {
      const topics = Array.from({ length: 2 * DAY_ROW_TOPICS.length }, (_, i) => count.topics[i] ?? 0);
      sql.dayWithTopics.run(count.appHandle, count.day, count.reviews, count.stars, ...topics);
    }
    for (const [name, [n, stars]] of count.others)
      sql.topicDay.run(count.appHandle, count.day, name, n, stars);
  }
}

/**
 * Adds the reviews with row ids from `firstId` to `lastId`, which the caller's transaction has just
 * inserted, to the per-day counts, read back from their rows: for a bulk load (a bench, a test) that
 * writes reviews with SQL of its own. Exactly once for each, as `countNewReviews`.
 */
export function indexNewReviews(db: StoreDb, firstId: number, lastId: number): void {
  if (lastId < firstId) return;
  const rows = statements(db).inserted.all(firstId, lastId);
  countNewReviews(
    db,
    rows.map((row) => ({
      ...row,
      createdAt: row.createdAt === null ? null : new Date(row.createdAt),
      firstSeenAt: new Date(row.firstSeenAt),
      topics: JSON.parse(row.topics) as Array<{ name: string }>,
    })),
  );
}
