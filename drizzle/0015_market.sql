CREATE TABLE `categories` (
	`handle` text PRIMARY KEY NOT NULL,
	`baseline_at` integer,
	`last_snapshot_at` integer,
	`unavailable_since` integer,
	`unavailable_reason` text,
	`last_error` text
);
--> statement-breakpoint
CREATE TABLE `category_apps_seen` (
	`category_handle` text NOT NULL,
	`app_handle` text NOT NULL,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	PRIMARY KEY(`category_handle`, `app_handle`)
);
--> statement-breakpoint
CREATE TABLE `category_ranks` (
	`snapshot_id` integer NOT NULL,
	`category_handle` text NOT NULL,
	`app_handle` text NOT NULL,
	`taken_at` integer NOT NULL,
	`rank` integer,
	`sponsored` integer NOT NULL,
	PRIMARY KEY(`snapshot_id`, `app_handle`),
	FOREIGN KEY (`snapshot_id`) REFERENCES `category_snapshots`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `category_ranks_app_taken` ON `category_ranks` (`app_handle`,`taken_at`);--> statement-breakpoint
CREATE INDEX `category_ranks_category_taken` ON `category_ranks` (`category_handle`,`taken_at`);--> statement-breakpoint
CREATE TABLE `category_snapshots` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`category_handle` text NOT NULL,
	`taken_at` integer NOT NULL,
	`status` text NOT NULL,
	`requests` integer NOT NULL,
	`snapshot` text,
	`error` text,
	FOREIGN KEY (`category_handle`) REFERENCES `categories`(`handle`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `category_snapshots_category_taken` ON `category_snapshots` (`category_handle`,`taken_at`);--> statement-breakpoint
CREATE TABLE `developer_apps` (
	`developer_handle` text NOT NULL,
	`app_handle` text NOT NULL,
	`name` text,
	`first_seen_at` integer NOT NULL,
	`removed_at` integer,
	PRIMARY KEY(`developer_handle`, `app_handle`),
	FOREIGN KEY (`developer_handle`) REFERENCES `developers`(`handle`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `developers` (
	`handle` text PRIMARY KEY NOT NULL,
	`name` text,
	`checked_at` integer,
	`unavailable_since` integer,
	`unavailable_reason` text
);
--> statement-breakpoint
CREATE TABLE `listing_changes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_handle` text NOT NULL,
	`version_id` integer NOT NULL,
	`field` text NOT NULL,
	`change` text NOT NULL,
	`alerted` integer NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`version_id`) REFERENCES `listing_versions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `listing_changes_app_at` ON `listing_changes` (`app_handle`,`at`);--> statement-breakpoint
CREATE TABLE `listing_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`app_handle` text NOT NULL,
	`hash` text NOT NULL,
	`listing` text NOT NULL,
	`built_for` integer,
	`rating` real,
	`first_seen_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `listing_versions_app` ON `listing_versions` (`app_handle`,`id`);--> statement-breakpoint
CREATE TABLE `market_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer NOT NULL,
	`status` text NOT NULL,
	`requests` integer NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `market_runs_kind_started` ON `market_runs` (`kind`,`started_at`);