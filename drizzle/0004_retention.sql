CREATE INDEX `alerts_poll_run` ON `alerts` (`poll_run_id`);--> statement-breakpoint
CREATE INDEX `alerts_unpruned_created` ON `alerts` (`created_at`) WHERE payload <> '{}';--> statement-breakpoint
CREATE INDEX `rating_snapshots_poll_run` ON `rating_snapshots` (`poll_run_id`);--> statement-breakpoint
CREATE INDEX `review_edits_poll_run` ON `review_edits` (`poll_run_id`);--> statement-breakpoint
CREATE INDEX `reviews_poll_run` ON `reviews` (`poll_run_id`);