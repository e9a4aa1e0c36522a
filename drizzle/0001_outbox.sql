CREATE TABLE `alerts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_handle` text NOT NULL,
	`kind` text NOT NULL,
	`dedupe_key` text NOT NULL,
	`priority` text NOT NULL,
	`score` integer,
	`review_row_id` integer,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	`poll_run_id` integer,
	FOREIGN KEY (`app_handle`) REFERENCES `apps`(`handle`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`review_row_id`) REFERENCES `reviews`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`poll_run_id`) REFERENCES `poll_runs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alerts_dedupe` ON `alerts` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `alerts_app_created` ON `alerts` (`app_handle`,`created_at`);--> statement-breakpoint
CREATE TABLE `deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`alert_id` integer NOT NULL,
	`channel` text NOT NULL,
	`app_handle` text NOT NULL,
	`status` text NOT NULL,
	`group_key` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	FOREIGN KEY (`alert_id`) REFERENCES `alerts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deliveries_alert_channel` ON `deliveries` (`alert_id`,`channel`);--> statement-breakpoint
CREATE INDEX `deliveries_status` ON `deliveries` (`status`,`channel`);--> statement-breakpoint
CREATE INDEX `deliveries_channel_app_sent` ON `deliveries` (`channel`,`app_handle`,`sent_at`);--> statement-breakpoint
CREATE INDEX `deliveries_group` ON `deliveries` (`group_key`);--> statement-breakpoint
ALTER TABLE `apps` ADD `rating_level_average` real;--> statement-breakpoint
ALTER TABLE `apps` ADD `rating_level_count` integer;--> statement-breakpoint
ALTER TABLE `apps` ADD `rating_level_at` integer;