ALTER TABLE `deliveries` ADD `held_at` integer;--> statement-breakpoint
-- Alerts already held when this runs have waited since at least their creation: their clock starts there.
UPDATE `deliveries` SET `held_at` = `created_at` WHERE `status` = 'held';
