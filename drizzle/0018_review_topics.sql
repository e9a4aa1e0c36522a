CREATE TABLE `review_topics` (
	`review_row_id` integer NOT NULL,
	`topic` text NOT NULL,
	`app_handle` text NOT NULL,
	`at` integer NOT NULL,
	`rating` integer NOT NULL,
	PRIMARY KEY(`review_row_id`, `topic`)
);
--> statement-breakpoint
CREATE INDEX `review_topics_app_topic_at` ON `review_topics` (`app_handle`,`topic`,`at`,`rating`);--> statement-breakpoint
CREATE INDEX `review_topics_topic_at` ON `review_topics` (`topic`,`at`);--> statement-breakpoint
ALTER TABLE `reviews` ADD `topics` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `reviews` ADD `topics_version` text;--> statement-breakpoint
CREATE INDEX `reviews_topics_version` ON `reviews` (`topics_version`);