/**
 * The topics counted in the review_day_counts row of their day itself, as two columns each (`billing_reviews`,
 * `billing_stars`), rather than as rows of topic_day_counts (drizzle/0024_topic_counts_in_day_row.sql): the
 * built-in ones, which most reviews' topics are. A poll's insert then writes one row per app and day, not one
 * more per topic (bench/README.md, "Stored topics"). Other names, custom topics', keep their topic_day_counts
 * rows. The list is the migration's: a topic added to it needs a migration adding its columns and triggers.
 */
export const DAY_ROW_TOPICS = [
  'billing',
  'bugs',
  'performance',
  'support',
  'setup',
  'integrations',
  'features',
  'data-loss',
  'uninstall',
  'usability',
] as const;

/** Each day-row topic with its two columns: `data-loss` counts in `data_loss_reviews` and `data_loss_stars`. */
export const DAY_ROW_COLUMNS: ReadonlyArray<{ topic: string; reviews: string; stars: string }> =
  DAY_ROW_TOPICS.map((topic) => {
    const stem = topic.replaceAll('-', '_');
    return { topic, reviews: `${stem}_reviews`, stars: `${stem}_stars` };
  });
