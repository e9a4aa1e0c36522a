-- The built-in topics are counted in their day's review_day_counts row, two columns each, instead of in
-- topic_day_counts rows: a poll's insert then writes one row per review and day rather than one more per
-- review and topic, which was most of what the counts cost at ingest (bench/README.md, Stored topics;
-- src/store/day-row-topics.ts). Custom topics keep their topic_day_counts rows. Whether a review holds a
-- built-in topic is read from its `topics` column as JSON.stringify wrote it: `"name":"billing"` is in it
-- exactly when billing is one of its topics. The counts move over as they are, and the triggers of 0020 and
-- 0023 follow: an edit, a refresh, the topics backfill, a reconciliation and a prune keep the columns in
-- step, and topic_day_counts gets no built-in topic's row. A rebuild of `reviews` by drizzle-kit drops these
-- triggers with the table: such a migration must recreate them.
ALTER TABLE `review_day_counts` ADD `billing_reviews` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `billing_stars` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `bugs_reviews` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `bugs_stars` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `performance_reviews` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `performance_stars` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `support_reviews` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `support_stars` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `setup_reviews` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `setup_stars` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `integrations_reviews` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `integrations_stars` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `features_reviews` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `features_stars` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `data_loss_reviews` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `data_loss_stars` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `uninstall_reviews` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `uninstall_stars` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `usability_reviews` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `review_day_counts` ADD `usability_stars` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE review_day_counts SET
      billing_reviews = t.billing_reviews,
      billing_stars = t.billing_stars,
      bugs_reviews = t.bugs_reviews,
      bugs_stars = t.bugs_stars,
      performance_reviews = t.performance_reviews,
      performance_stars = t.performance_stars,
      support_reviews = t.support_reviews,
      support_stars = t.support_stars,
      setup_reviews = t.setup_reviews,
      setup_stars = t.setup_stars,
      integrations_reviews = t.integrations_reviews,
      integrations_stars = t.integrations_stars,
      features_reviews = t.features_reviews,
      features_stars = t.features_stars,
      data_loss_reviews = t.data_loss_reviews,
      data_loss_stars = t.data_loss_stars,
      uninstall_reviews = t.uninstall_reviews,
      uninstall_stars = t.uninstall_stars,
      usability_reviews = t.usability_reviews,
      usability_stars = t.usability_stars
  FROM (SELECT app_handle, day,
        sum(iif(topic = 'billing', reviews, 0)) AS billing_reviews,
        sum(iif(topic = 'billing', stars, 0)) AS billing_stars,
        sum(iif(topic = 'bugs', reviews, 0)) AS bugs_reviews,
        sum(iif(topic = 'bugs', stars, 0)) AS bugs_stars,
        sum(iif(topic = 'performance', reviews, 0)) AS performance_reviews,
        sum(iif(topic = 'performance', stars, 0)) AS performance_stars,
        sum(iif(topic = 'support', reviews, 0)) AS support_reviews,
        sum(iif(topic = 'support', stars, 0)) AS support_stars,
        sum(iif(topic = 'setup', reviews, 0)) AS setup_reviews,
        sum(iif(topic = 'setup', stars, 0)) AS setup_stars,
        sum(iif(topic = 'integrations', reviews, 0)) AS integrations_reviews,
        sum(iif(topic = 'integrations', stars, 0)) AS integrations_stars,
        sum(iif(topic = 'features', reviews, 0)) AS features_reviews,
        sum(iif(topic = 'features', stars, 0)) AS features_stars,
        sum(iif(topic = 'data-loss', reviews, 0)) AS data_loss_reviews,
        sum(iif(topic = 'data-loss', stars, 0)) AS data_loss_stars,
        sum(iif(topic = 'uninstall', reviews, 0)) AS uninstall_reviews,
        sum(iif(topic = 'uninstall', stars, 0)) AS uninstall_stars,
        sum(iif(topic = 'usability', reviews, 0)) AS usability_reviews,
        sum(iif(topic = 'usability', stars, 0)) AS usability_stars
      FROM topic_day_counts WHERE topic IN ('billing', 'bugs', 'performance', 'support', 'setup', 'integrations', 'features', 'data-loss', 'uninstall', 'usability')
      GROUP BY app_handle, day) t
  WHERE t.app_handle = review_day_counts.app_handle AND t.day = review_day_counts.day;
--> statement-breakpoint
DELETE FROM topic_day_counts WHERE topic IN ('billing', 'bugs', 'performance', 'support', 'setup', 'integrations', 'features', 'data-loss', 'uninstall', 'usability');
--> statement-breakpoint
DROP TRIGGER `reviews_day_counts_update`;
--> statement-breakpoint
CREATE TRIGGER `reviews_day_counts_update` AFTER UPDATE OF rating, created_at, first_seen_at, app_handle, topics ON `reviews`
WHEN old.rating IS NOT new.rating OR old.app_handle IS NOT new.app_handle OR old.topics IS NOT new.topics
  OR coalesce(old.created_at, old.first_seen_at) IS NOT coalesce(new.created_at, new.first_seen_at) BEGIN
  UPDATE review_day_counts SET reviews = reviews - 1, stars = stars - old.rating,
      billing_reviews = billing_reviews - (instr(old.topics, '"name":"billing"') > 0),
      billing_stars = billing_stars - old.rating * (instr(old.topics, '"name":"billing"') > 0),
      bugs_reviews = bugs_reviews - (instr(old.topics, '"name":"bugs"') > 0),
      bugs_stars = bugs_stars - old.rating * (instr(old.topics, '"name":"bugs"') > 0),
      performance_reviews = performance_reviews - (instr(old.topics, '"name":"performance"') > 0),
      performance_stars = performance_stars - old.rating * (instr(old.topics, '"name":"performance"') > 0),
      support_reviews = support_reviews - (instr(old.topics, '"name":"support"') > 0),
      support_stars = support_stars - old.rating * (instr(old.topics, '"name":"support"') > 0),
      setup_reviews = setup_reviews - (instr(old.topics, '"name":"setup"') > 0),
      setup_stars = setup_stars - old.rating * (instr(old.topics, '"name":"setup"') > 0),
      integrations_reviews = integrations_reviews - (instr(old.topics, '"name":"integrations"') > 0),
      integrations_stars = integrations_stars - old.rating * (instr(old.topics, '"name":"integrations"') > 0),
      features_reviews = features_reviews - (instr(old.topics, '"name":"features"') > 0),
      features_stars = features_stars - old.rating * (instr(old.topics, '"name":"features"') > 0),
      data_loss_reviews = data_loss_reviews - (instr(old.topics, '"name":"data-loss"') > 0),
      data_loss_stars = data_loss_stars - old.rating * (instr(old.topics, '"name":"data-loss"') > 0),
      uninstall_reviews = uninstall_reviews - (instr(old.topics, '"name":"uninstall"') > 0),
      uninstall_stars = uninstall_stars - old.rating * (instr(old.topics, '"name":"uninstall"') > 0),
      usability_reviews = usability_reviews - (instr(old.topics, '"name":"usability"') > 0),
      usability_stars = usability_stars - old.rating * (instr(old.topics, '"name":"usability"') > 0)
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0);
  DELETE FROM review_day_counts
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0)
      AND reviews = 0;
  INSERT INTO review_day_counts(app_handle, day, reviews, stars,
      billing_reviews, billing_stars,
      bugs_reviews, bugs_stars,
      performance_reviews, performance_stars,
      support_reviews, support_stars,
      setup_reviews, setup_stars,
      integrations_reviews, integrations_stars,
      features_reviews, features_stars,
      data_loss_reviews, data_loss_stars,
      uninstall_reviews, uninstall_stars,
      usability_reviews, usability_stars)
    VALUES (new.app_handle,
      (coalesce(new.created_at, new.first_seen_at) / 86400000) - (coalesce(new.created_at, new.first_seen_at) % 86400000 < 0),
      1, new.rating,
      (instr(new.topics, '"name":"billing"') > 0),
      new.rating * (instr(new.topics, '"name":"billing"') > 0),
      (instr(new.topics, '"name":"bugs"') > 0),
      new.rating * (instr(new.topics, '"name":"bugs"') > 0),
      (instr(new.topics, '"name":"performance"') > 0),
      new.rating * (instr(new.topics, '"name":"performance"') > 0),
      (instr(new.topics, '"name":"support"') > 0),
      new.rating * (instr(new.topics, '"name":"support"') > 0),
      (instr(new.topics, '"name":"setup"') > 0),
      new.rating * (instr(new.topics, '"name":"setup"') > 0),
      (instr(new.topics, '"name":"integrations"') > 0),
      new.rating * (instr(new.topics, '"name":"integrations"') > 0),
      (instr(new.topics, '"name":"features"') > 0),
      new.rating * (instr(new.topics, '"name":"features"') > 0),
      (instr(new.topics, '"name":"data-loss"') > 0),
      new.rating * (instr(new.topics, '"name":"data-loss"') > 0),
      (instr(new.topics, '"name":"uninstall"') > 0),
      new.rating * (instr(new.topics, '"name":"uninstall"') > 0),
      (instr(new.topics, '"name":"usability"') > 0),
      new.rating * (instr(new.topics, '"name":"usability"') > 0))
    ON CONFLICT(app_handle, day) DO UPDATE SET reviews = reviews + 1, stars = stars + excluded.stars,
      billing_reviews = billing_reviews + excluded.billing_reviews,
      billing_stars = billing_stars + excluded.billing_stars,
      bugs_reviews = bugs_reviews + excluded.bugs_reviews,
      bugs_stars = bugs_stars + excluded.bugs_stars,
      performance_reviews = performance_reviews + excluded.performance_reviews,
      performance_stars = performance_stars + excluded.performance_stars,
      support_reviews = support_reviews + excluded.support_reviews,
      support_stars = support_stars + excluded.support_stars,
      setup_reviews = setup_reviews + excluded.setup_reviews,
      setup_stars = setup_stars + excluded.setup_stars,
      integrations_reviews = integrations_reviews + excluded.integrations_reviews,
      integrations_stars = integrations_stars + excluded.integrations_stars,
      features_reviews = features_reviews + excluded.features_reviews,
      features_stars = features_stars + excluded.features_stars,
      data_loss_reviews = data_loss_reviews + excluded.data_loss_reviews,
      data_loss_stars = data_loss_stars + excluded.data_loss_stars,
      uninstall_reviews = uninstall_reviews + excluded.uninstall_reviews,
      uninstall_stars = uninstall_stars + excluded.uninstall_stars,
      usability_reviews = usability_reviews + excluded.usability_reviews,
      usability_stars = usability_stars + excluded.usability_stars;
END;
--> statement-breakpoint
DROP TRIGGER `reviews_day_counts_delete`;
--> statement-breakpoint
CREATE TRIGGER `reviews_day_counts_delete` AFTER DELETE ON `reviews` BEGIN
  UPDATE review_day_counts SET reviews = reviews - 1, stars = stars - old.rating,
      billing_reviews = billing_reviews - (instr(old.topics, '"name":"billing"') > 0),
      billing_stars = billing_stars - old.rating * (instr(old.topics, '"name":"billing"') > 0),
      bugs_reviews = bugs_reviews - (instr(old.topics, '"name":"bugs"') > 0),
      bugs_stars = bugs_stars - old.rating * (instr(old.topics, '"name":"bugs"') > 0),
      performance_reviews = performance_reviews - (instr(old.topics, '"name":"performance"') > 0),
      performance_stars = performance_stars - old.rating * (instr(old.topics, '"name":"performance"') > 0),
      support_reviews = support_reviews - (instr(old.topics, '"name":"support"') > 0),
      support_stars = support_stars - old.rating * (instr(old.topics, '"name":"support"') > 0),
      setup_reviews = setup_reviews - (instr(old.topics, '"name":"setup"') > 0),
      setup_stars = setup_stars - old.rating * (instr(old.topics, '"name":"setup"') > 0),
      integrations_reviews = integrations_reviews - (instr(old.topics, '"name":"integrations"') > 0),
      integrations_stars = integrations_stars - old.rating * (instr(old.topics, '"name":"integrations"') > 0),
      features_reviews = features_reviews - (instr(old.topics, '"name":"features"') > 0),
      features_stars = features_stars - old.rating * (instr(old.topics, '"name":"features"') > 0),
      data_loss_reviews = data_loss_reviews - (instr(old.topics, '"name":"data-loss"') > 0),
      data_loss_stars = data_loss_stars - old.rating * (instr(old.topics, '"name":"data-loss"') > 0),
      uninstall_reviews = uninstall_reviews - (instr(old.topics, '"name":"uninstall"') > 0),
      uninstall_stars = uninstall_stars - old.rating * (instr(old.topics, '"name":"uninstall"') > 0),
      usability_reviews = usability_reviews - (instr(old.topics, '"name":"usability"') > 0),
      usability_stars = usability_stars - old.rating * (instr(old.topics, '"name":"usability"') > 0)
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0);
  DELETE FROM review_day_counts
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0)
      AND reviews = 0;
END;
--> statement-breakpoint
DROP TRIGGER `reviews_topic_counts_update`;
--> statement-breakpoint
CREATE TRIGGER `reviews_topic_counts_update` AFTER UPDATE OF topics, rating, created_at, first_seen_at, app_handle ON `reviews`
WHEN (old.topics <> '[]' OR new.topics <> '[]')
  AND (old.topics IS NOT new.topics OR old.rating IS NOT new.rating OR old.app_handle IS NOT new.app_handle
    OR coalesce(old.created_at, old.first_seen_at) IS NOT coalesce(new.created_at, new.first_seen_at)) BEGIN
  UPDATE topic_day_counts SET reviews = reviews - 1, stars = stars - old.rating
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0)
      AND topic IN (SELECT value ->> '$.name' FROM json_each(old.topics));
  DELETE FROM topic_day_counts
    WHERE app_handle = old.app_handle
      AND day = (coalesce(old.created_at, old.first_seen_at) / 86400000) - (coalesce(old.created_at, old.first_seen_at) % 86400000 < 0)
      AND reviews = 0;
  INSERT INTO topic_day_counts(app_handle, day, topic, reviews, stars)
    SELECT DISTINCT new.app_handle,
      (coalesce(new.created_at, new.first_seen_at) / 86400000) - (coalesce(new.created_at, new.first_seen_at) % 86400000 < 0),
      value ->> '$.name', 1, new.rating
    FROM json_each(new.topics)
    WHERE value ->> '$.name' IS NOT NULL AND value ->> '$.name' NOT IN ('billing', 'bugs', 'performance', 'support', 'setup', 'integrations', 'features', 'data-loss', 'uninstall', 'usability')
    ON CONFLICT(app_handle, day, topic) DO UPDATE SET reviews = reviews + 1, stars = stars + excluded.stars;
END;
