CREATE TABLE `review_notes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_row_id` integer NOT NULL,
	`author` text NOT NULL,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`review_row_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `review_notes_review` ON `review_notes` (`review_row_id`);--> statement-breakpoint
CREATE TABLE `review_tags` (
	`review_row_id` integer NOT NULL,
	`tag` text NOT NULL,
	`added_at` integer NOT NULL,
	`added_by` text NOT NULL,
	PRIMARY KEY(`review_row_id`, `tag`),
	FOREIGN KEY (`review_row_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `review_tags_tag` ON `review_tags` (`tag`);--> statement-breakpoint
CREATE TABLE `review_triage` (
	`review_row_id` integer PRIMARY KEY NOT NULL,
	`status` text DEFAULT 'new' NOT NULL,
	`assignee` text,
	`updated_at` integer NOT NULL,
	`updated_by` text NOT NULL,
	FOREIGN KEY (`review_row_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `review_triage_status` ON `review_triage` (`status`);--> statement-breakpoint
CREATE INDEX `review_triage_assignee` ON `review_triage` (`assignee`);--> statement-breakpoint
CREATE TABLE `triage_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`review_row_id` integer NOT NULL,
	`actor` text NOT NULL,
	`at` integer NOT NULL,
	`field` text NOT NULL,
	`old_value` text,
	`new_value` text,
	`reason` text,
	FOREIGN KEY (`review_row_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `triage_events_review` ON `triage_events` (`review_row_id`,`at`);--> statement-breakpoint
CREATE INDEX `triage_events_field_at` ON `triage_events` (`field`,`at`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`password_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_name_unique` ON `users` (`name`);--> statement-breakpoint
CREATE TABLE `web_sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_hash` text NOT NULL,
	`user_id` integer NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `web_sessions_token_hash_unique` ON `web_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `web_sessions_user` ON `web_sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `web_sessions_expires` ON `web_sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `alerts_review` ON `alerts` (`review_row_id`);