-- The app-days that hold a custom topic, found by the topic: the inbox's filter on a topic few reviews have
-- starts from those days' reviews rather than walking every review's date (src/store/inbox/plan.ts). Only
-- custom topics have topic_day_counts rows (0024), so a poll writes to this index only for them.
CREATE INDEX `topic_day_counts_topic` ON `topic_day_counts` (`topic`,`day`,`app_handle`);
