-- Per app and day, how many reviews and their stars, in all and per topic: a trend over nine periods of 90
-- days adds up a few rows a day instead of reading two years of reviews (src/store/period-counts.ts). A day
-- is the UTC day of the review's date as the inbox dates it, coalesce(created_at, first_seen_at), counted
-- from 1970-01-01: (at / 86400000) - (at % 86400000 < 0) floors for dates before it too. WITHOUT ROWID,
-- which drizzle-kit cannot say: the key is the table, one b-tree to write and to read.
CREATE TABLE `review_day_counts` (
	`app_handle` text NOT NULL,
	`day` integer NOT NULL,
	`reviews` integer NOT NULL,
	`stars` integer NOT NULL,
	PRIMARY KEY(`app_handle`, `day`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `topic_day_counts` (
	`app_handle` text NOT NULL,
	`day` integer NOT NULL,
	`topic` text NOT NULL,
	`reviews` integer NOT NULL,
	`stars` integer NOT NULL,
	PRIMARY KEY(`app_handle`, `day`, `topic`)
) WITHOUT ROWID;
--> statement-breakpoint
-- Filled from the rows already stored; from here on the triggers below keep both in step with every write:
-- a poll's insert, an edit or refresh (rating, date, text and so topics), the topics backfill, a
-- reconciliation folding a duplicate away. review_topics' own triggers (drizzle/0019_review_topics_triggers.sql)
-- delete and insert its rows, so topic_day_counts follows review_topics row for row. One UPSERT per review
-- and per topic row at ingest; a count that reaches 0 loses its row, so the table is what a fill from the
-- rows would give. A rebuild of `reviews` or `review_topics` by drizzle-kit drops these triggers with the
-- table: such a migration must recreate them (test/store/day-counts.test.ts compares the table with a fill).
INSERT INTO review_day_counts(app_handle, day, reviews, stars)
  SELECT app_handle, (at / 86400000) - (at % 86400000 < 0) AS d, count(*), sum(rating)
  FROM (SELECT app_handle, coalesce(created_at, first_seen_at) AS at, rating FROM reviews)
  GROUP BY app_handle, d;
--> statement-breakpoint
INSERT INTO topic_day_counts(app_handle, day, topic, reviews, stars)
  SELECT app_handle, (at / 86400000) - (at % 86400000 < 0) AS d, topic, count(*), sum(rating)
  FROM review_topics
  GROUP BY app_handle, d, topic;
--> statement-breakpoint
CREATE TRIGGER `reviews_day_counts_insert` AFTER INSERT ON `reviews` BEGIN
  INSERT INTO review_day_counts(app_handle, day, reviews, stars)
    VALUES (new.app_handle,
      (coalesce(new.created_at, new.first_seen_at) / 86400000) - (coalesce(new.created_at, new.first_seen_at) % 86400000 < 0),
      1, new.rating)
    ON CONFLICT(app_handle, day) DO UPDATE SET reviews = reviews + 1, stars = stars + excluded.stars;
END;
--> statement-breakpoint
CREATE TRIGGER `reviews_day_counts_update` AFTER UPDATE OF rating, created_at, first_seen_at, app_handle ON `reviews`
WHEN old.rating IS NOT new.rating OR old.app_handle IS NOT new.app_handle
  OR coalesce(old.created_at, old.first_seen_at) IS NOT coalesce(new.created_at, new.first_seen_at) BEGIN
  UPDATE review_day_counts SET reviews = reviews - 1, stars = stars - old.rating
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0);
  DELETE FROM review_day_counts
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0)
      AND reviews = 0;
  INSERT INTO review_day_counts(app_handle, day, reviews, stars)
    VALUES (new.app_handle,
      (coalesce(new.created_at, new.first_seen_at) / 86400000) - (coalesce(new.created_at, new.first_seen_at) % 86400000 < 0),
      1, new.rating)
    ON CONFLICT(app_handle, day) DO UPDATE SET reviews = reviews + 1, stars = stars + excluded.stars;
END;
--> statement-breakpoint
CREATE TRIGGER `reviews_day_counts_delete` AFTER DELETE ON `reviews` BEGIN
  UPDATE review_day_counts SET reviews = reviews - 1, stars = stars - old.rating
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0);
  DELETE FROM review_day_counts
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0)
      AND reviews = 0;
END;
--> statement-breakpoint
CREATE TRIGGER `review_topics_day_counts_insert` AFTER INSERT ON `review_topics` BEGIN
  INSERT INTO topic_day_counts(app_handle, day, topic, reviews, stars)
    VALUES (new.app_handle, (new.at / 86400000) - (new.at % 86400000 < 0), new.topic, 1, new.rating)
    ON CONFLICT(app_handle, day, topic) DO UPDATE SET reviews = reviews + 1, stars = stars + excluded.stars;
END;
--> statement-breakpoint
CREATE TRIGGER `review_topics_day_counts_delete` AFTER DELETE ON `review_topics` BEGIN
  UPDATE topic_day_counts SET reviews = reviews - 1, stars = stars - old.rating
    WHERE app_handle = old.app_handle AND day = (old.at / 86400000) - (old.at % 86400000 < 0) AND topic = old.topic;
  DELETE FROM topic_day_counts
    WHERE app_handle = old.app_handle AND day = (old.at / 86400000) - (old.at % 86400000 < 0) AND topic = old.topic
      AND reviews = 0;
END;
