-- A poll's insert writes review_topics and the per-day counts itself, once per poll transaction with one
-- set-based statement each (src/store/review-index.ts), instead of a trigger per inserted row and per topic:
-- in a micro-bench of 5-review inserts the triggers were about a third of the insert's CPU. Every
-- insert of a review therefore goes through src/store/reviews.ts (insertNewReviews) or, for a bulk load,
-- calls indexNewReviews on the ids it inserted. The update and delete triggers stay: an edit, a refresh, the
-- topics backfill, a reconciliation and a prune keep both tables in step as before. The update trigger on
-- reviews that rewrites a review's review_topics rows now counts the rows it inserts itself, since
-- review_topics has no insert trigger left.
DROP TRIGGER `reviews_topics_insert`;
--> statement-breakpoint
DROP TRIGGER `reviews_day_counts_insert`;
--> statement-breakpoint
DROP TRIGGER `review_topics_day_counts_insert`;
--> statement-breakpoint
DROP TRIGGER `reviews_topics_update`;
--> statement-breakpoint
CREATE TRIGGER `reviews_topics_update` AFTER UPDATE OF topics, rating, created_at, first_seen_at, app_handle ON `reviews` BEGIN
  DELETE FROM review_topics WHERE review_row_id = old.id;
  INSERT OR IGNORE INTO review_topics(review_row_id, topic, app_handle, at, rating)
    SELECT new.id, json_extract(value, '$.name'), new.app_handle,
      coalesce(new.created_at, new.first_seen_at), new.rating
    FROM json_each(new.topics);
  INSERT INTO topic_day_counts(app_handle, day, topic, reviews, stars)
    SELECT app_handle, (at / 86400000) - (at % 86400000 < 0), topic, 1, rating
    FROM review_topics WHERE review_row_id = new.id
    ON CONFLICT(app_handle, day, topic) DO UPDATE SET reviews = reviews + 1, stars = stars + excluded.stars;
END;
