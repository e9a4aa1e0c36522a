ALTER TABLE `apps` ADD `rating_level_stars` text;--> statement-breakpoint
ALTER TABLE `apps` ADD `rating_level_alerted` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `apps` ADD `rating_level_displayed` real;