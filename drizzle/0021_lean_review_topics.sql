-- review_topics is written for every stored review (drizzle/0019_review_topics_triggers.sql) and, since the
-- per-day counts (0020), read only by its key: the inbox's topic filter and a trend's edge days look up
-- (review_row_id, topic). Its two other indexes cost each poll's insert and served no query, and as a rowid
-- table its key was a second b-tree: rebuilt WITHOUT ROWID (which drizzle-kit cannot say), one b-tree a row.
-- Its rows are copied aside and back rather than renamed, because a rename would rewrite the triggers on
-- `reviews` that name review_topics; dropping it drops its own triggers, recreated below as in 0020.
DROP INDEX `review_topics_app_topic_at`;--> statement-breakpoint
DROP INDEX `review_topics_topic_at`;--> statement-breakpoint
CREATE TABLE `review_topics_copy` AS SELECT `review_row_id`, `topic`, `app_handle`, `at`, `rating` FROM `review_topics`;
--> statement-breakpoint
DROP TABLE `review_topics`;
--> statement-breakpoint
CREATE TABLE `review_topics` (
	`review_row_id` integer NOT NULL,
	`topic` text NOT NULL,
	`app_handle` text NOT NULL,
	`at` integer NOT NULL,
	`rating` integer NOT NULL,
	PRIMARY KEY(`review_row_id`, `topic`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `review_topics` SELECT * FROM `review_topics_copy`;
--> statement-breakpoint
DROP TABLE `review_topics_copy`;
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
