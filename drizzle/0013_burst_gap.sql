ALTER TABLE `apps` ADD `gap_opened_at` integer;--> statement-breakpoint
ALTER TABLE `apps` ADD `gap_offset` integer;--> statement-breakpoint
ALTER TABLE `apps` ADD `gap_floor_row_id` integer;--> statement-breakpoint
ALTER TABLE `apps` ADD `gap_since` integer;--> statement-breakpoint
ALTER TABLE `apps` ADD `gap_unread` integer;--> statement-breakpoint
ALTER TABLE `apps` ADD `last_poll_by` text;