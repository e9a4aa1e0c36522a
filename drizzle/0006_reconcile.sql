ALTER TABLE `poll_runs` ADD `kind` text DEFAULT 'poll' NOT NULL;--> statement-breakpoint
CREATE INDEX `poll_runs_reconciled` ON `poll_runs` (`app_handle`,`started_at`) WHERE kind = 'reconcile';--> statement-breakpoint
ALTER TABLE `reviews` ADD `removed_at` integer;