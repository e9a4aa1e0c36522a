ALTER TABLE `apps` ADD `newest_page_hash` text;--> statement-breakpoint
ALTER TABLE `apps` ADD `last_success_at` integer;--> statement-breakpoint
-- Hand-written backfill: until now the last successful poll was read from poll_runs at every poll.
UPDATE `apps` SET `last_success_at` = (SELECT max(`started_at`) FROM `poll_runs` WHERE `poll_runs`.`app_handle` = `apps`.`handle` AND `poll_runs`.`status` IN ('ok', 'baseline'));
