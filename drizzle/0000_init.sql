CREATE TABLE `apps` (
	`handle` text PRIMARY KEY NOT NULL,
	`title` text,
	`baseline_at` integer,
	`unavailable_since` integer,
	`unavailable_reason` text,
	`last_poll_at` integer,
	`last_poll_status` text,
	`last_error` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `poll_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_handle` text NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer NOT NULL,
	`status` text NOT NULL,
	`requests` integer NOT NULL,
	`pages` integer NOT NULL,
	`new_reviews` integer NOT NULL,
	`edited_reviews` integer NOT NULL,
	`capped` integer DEFAULT false NOT NULL,
	`error` text,
	FOREIGN KEY (`app_handle`) REFERENCES `apps`(`handle`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `poll_runs_app_started` ON `poll_runs` (`app_handle`,`started_at`);--> statement-breakpoint
CREATE TABLE `rating_snapshots` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_handle` text NOT NULL,
	`taken_at` integer NOT NULL,
	`average` real,
	`count` integer,
	`stars_1` integer,
	`stars_2` integer,
	`stars_3` integer,
	`stars_4` integer,
	`stars_5` integer,
	`poll_run_id` integer NOT NULL,
	FOREIGN KEY (`app_handle`) REFERENCES `apps`(`handle`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`poll_run_id`) REFERENCES `poll_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `rating_snapshots_app_taken` ON `rating_snapshots` (`app_handle`,`taken_at`);--> statement-breakpoint
CREATE TABLE `review_edits` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_row_id` integer NOT NULL,
	`app_handle` text NOT NULL,
	`old_rating` integer NOT NULL,
	`new_rating` integer NOT NULL,
	`old_content` text NOT NULL,
	`new_content` text NOT NULL,
	`old_created_date` text NOT NULL,
	`new_created_date` text NOT NULL,
	`detected_at` integer NOT NULL,
	`poll_run_id` integer NOT NULL,
	FOREIGN KEY (`review_row_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`poll_run_id`) REFERENCES `poll_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `review_edits_app_detected` ON `review_edits` (`app_handle`,`detected_at`);--> statement-breakpoint
CREATE TABLE `reviews` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_handle` text NOT NULL,
	`identity` text NOT NULL,
	`fingerprint` text NOT NULL,
	`review_id` text NOT NULL,
	`reviewer` text NOT NULL,
	`location` text NOT NULL,
	`rating` integer NOT NULL,
	`content` text NOT NULL,
	`created_date` text NOT NULL,
	`created_at` integer,
	`time_using_app` text NOT NULL,
	`app_name` text NOT NULL,
	`app_url` text NOT NULL,
	`from_baseline` integer NOT NULL,
	`first_seen_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`poll_run_id` integer NOT NULL,
	FOREIGN KEY (`app_handle`) REFERENCES `apps`(`handle`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`poll_run_id`) REFERENCES `poll_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reviews_app_identity` ON `reviews` (`app_handle`,`identity`);--> statement-breakpoint
CREATE INDEX `reviews_app_fingerprint` ON `reviews` (`app_handle`,`fingerprint`);--> statement-breakpoint
CREATE INDEX `reviews_app_first_seen` ON `reviews` (`app_handle`,`first_seen_at`);--> statement-breakpoint
CREATE INDEX `reviews_app_created` ON `reviews` (`app_handle`,`created_at`);