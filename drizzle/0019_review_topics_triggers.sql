-- review_topics follows each review's `topics` (a JSON array of {name, words}): one row per topic, with the
-- review's app, date (coalesce(created_at, first_seen_at), as the inbox dates it) and stars, so per-topic
-- queries (the inbox's topic filter, trends, /topics) read an index instead of decoding every review.
-- Triggers rather than code keep it in step with every write of a review: a poll's insert, an edit, a
-- refresh, the topics backfill (src/store/topic-backfill.ts), a prune. A rebuild of `reviews` by
-- drizzle-kit drops these triggers with the table: such a migration must recreate them.
CREATE TRIGGER `reviews_topics_insert` AFTER INSERT ON `reviews` WHEN new.topics <> '[]' BEGIN
  INSERT OR IGNORE INTO review_topics(review_row_id, topic, app_handle, at, rating)
    SELECT new.id, json_extract(value, '$.name'), new.app_handle,
      coalesce(new.created_at, new.first_seen_at), new.rating
    FROM json_each(new.topics);
END;
--> statement-breakpoint
CREATE TRIGGER `reviews_topics_update` AFTER UPDATE OF topics, rating, created_at, first_seen_at, app_handle ON `reviews` BEGIN
  DELETE FROM review_topics WHERE review_row_id = old.id;
  INSERT OR IGNORE INTO review_topics(review_row_id, topic, app_handle, at, rating)
    SELECT new.id, json_extract(value, '$.name'), new.app_handle,
      coalesce(new.created_at, new.first_seen_at), new.rating
    FROM json_each(new.topics);
END;
--> statement-breakpoint
CREATE TRIGGER `reviews_topics_delete` AFTER DELETE ON `reviews` BEGIN
  DELETE FROM review_topics WHERE review_row_id = old.id;
END;
