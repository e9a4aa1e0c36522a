CREATE TABLE `digest_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`period_start` text NOT NULL,
	`period_end` text NOT NULL,
	`channel` text NOT NULL,
	`status` text NOT NULL,
	`claimed_at` integer NOT NULL,
	`sent_at` integer,
	`error` text,
	`subject` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `digest_runs_period_channel` ON `digest_runs` (`period_start`,`channel`);