/**
 * What a newly inserted review adds beside its row: its day in review_day_counts and, per topic of its
 * `topics` column, in topic_day_counts (drizzle/0020_day_counts.sql, 0023_topic_counts_from_column.sql).
 * Written once per insert, by two set-based statements over the new rows, not by a trigger per row,
 * which cost more (drizzle/0022_ingest_topic_rows.sql, bench/README.md "Stored topics"). Edits,
 * refreshes, the backfill and deletes keep both tables in step through the triggers on `reviews`.
 */
import type { StoreDb } from './db.js';
import { preparedOnce } from './prepared.js';

/** A review's date as the inbox dates it, as its UTC day from 1970-01-01, floored for earlier dates too. */
const DAY = (at: string) => `((${at}) / 86400000) - ((${at}) % 86400000 < 0)`;
const AT = 'coalesce(r.created_at, r.first_seen_at)';

const statements = preparedOnce((db) => {
  const client = db.$client;
  return {
    // Row by row, with no GROUP BY: a row of a day already counted, in this statement too, is a conflict that
    // adds to it, and a poll's few rows cost less that way than the temporary b-tree a GROUP BY sorts in.
    days: client.prepare<[number, number]>(
      `insert into review_day_counts(app_handle, day, reviews, stars)
       select r.app_handle, ${DAY(AT)}, 1, r.rating from reviews r where r.id between ? and ?
       on conflict(app_handle, day) do update
         set reviews = reviews + excluded.reviews, stars = stars + excluded.stars`,
    ),
    // Each name once per review: topicsOf gives each topic once (compile.ts refuses a name defined twice),
    // and making sure here would decode each review's JSON a second time.
    topicDays: client.prepare<[number, number]>(
      `insert into topic_day_counts(app_handle, day, topic, reviews, stars)
       select r.app_handle, ${DAY(AT)}, t.value ->> '$.name', 1, r.rating
       from reviews r, json_each(r.topics) t
       where r.id between ? and ? and r.topics <> '[]' and t.value ->> '$.name' is not null
       on conflict(app_handle, day, topic) do update
         set reviews = reviews + excluded.reviews, stars = stars + excluded.stars`,
    ),
  };
});

/**
 * Adds the reviews with row ids from `firstId` to `lastId` to the per-day counts, in the
 * caller's transaction. Exactly once for each: every row in the range must be one this transaction
 * inserted, and not yet added (a row added twice is counted twice). `insertNewReviews` calls it; so must
 * anything else that inserts reviews (a bulk load in a bench or a test), with the ids it inserted.
 * `withTopics: false` says none of them has a topic: only their days are counted.
 */
export function indexNewReviews(db: StoreDb, firstId: number, lastId: number, withTopics = true): void {
  if (lastId < firstId) return;
  statements(db).days.run(firstId, lastId);
  if (withTopics) indexTopics(db, firstId, lastId);
}

/** The reviews' topic day counts: a function of its own, which a profile can name. */
function indexTopics(db: StoreDb, firstId: number, lastId: number): void {
  statements(db).topicDays.run(firstId, lastId);
}
