-- topic_day_counts is kept from each review's `topics` column (a JSON array of {name, words}) directly, and
-- review_topics, one row per review and topic, is gone. Writing those rows at every poll's insert was most of
-- what storing topics cost (bench/README.md, Stored topics), and since the per-day counts (0020) only the
-- inbox's topic filter and a trend's edge days read them, review by review: both now read the review's own
-- column, which those paths read anyway. A poll's insert fills the counts with one set-based statement
-- (src/store/review-index.ts); the triggers below follow an edit, a refresh, the topics backfill, a
-- reconciliation folding a duplicate away and a prune. The counts already equal a fill from the column (the
-- rows were written from it), so they are kept as they are. A name counts once per review, as the rows'
-- key made it: the edit trigger takes distinct names, and the insert relies on topicsOf giving each once. A rebuild of `reviews` by drizzle-kit drops these
-- triggers with the table: such a migration must recreate them.
DROP TRIGGER `reviews_topics_update`;
--> statement-breakpoint
DROP TRIGGER `reviews_topics_delete`;
--> statement-breakpoint
DROP TABLE `review_topics`;
--> statement-breakpoint
CREATE TRIGGER `reviews_topic_counts_update` AFTER UPDATE OF topics, rating, created_at, first_seen_at, app_handle ON `reviews`
WHEN (old.topics <> '[]' OR new.topics <> '[]')
  AND (old.topics IS NOT new.topics OR old.rating IS NOT new.rating OR old.app_handle IS NOT new.app_handle
    OR coalesce(old.created_at, old.first_seen_at) IS NOT coalesce(new.created_at, new.first_seen_at)) BEGIN
  UPDATE topic_day_counts SET reviews = reviews - 1, stars = stars - old.rating
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0)
      AND topic IN (SELECT value ->> '$.name' FROM json_each(old.topics));
  DELETE FROM topic_day_counts
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0)
      AND reviews = 0;
  INSERT INTO topic_day_counts(app_handle, day, topic, reviews, stars)
    SELECT DISTINCT new.app_handle,
      (coalesce(new.created_at, new.first_seen_at) / 86400000) - (coalesce(new.created_at, new.first_seen_at) % 86400000 < 0),
      value ->> '$.name', 1, new.rating
    FROM json_each(new.topics) WHERE value ->> '$.name' IS NOT NULL
    ON CONFLICT(app_handle, day, topic) DO UPDATE SET reviews = reviews + 1, stars = stars + excluded.stars;
END;
--> statement-breakpoint
CREATE TRIGGER `reviews_topic_counts_delete` AFTER DELETE ON `reviews` WHEN old.topics <> '[]' BEGIN
  UPDATE topic_day_counts SET reviews = reviews - 1, stars = stars - old.rating
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0)
      AND topic IN (SELECT value ->> '$.name' FROM json_each(old.topics));
  DELETE FROM topic_day_counts
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0)
      AND reviews = 0;
END;
