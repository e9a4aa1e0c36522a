/**
 * Stored reviews' topics brought up to the config's taxonomy: those stored before topics existed, and
 * all of them after a change of `topics:` or the keyword groups (their `topics_version` is another). The
 * worker runs it at start in the background (root/topic-backfill.ts): batch by batch, each batch's writes
 * one short transaction through the group commit, so polls wait at most one batch. Idempotent: a review
 * already computed under this version is not read again, and a run cut short resumes where it stopped.
 */
import { sql } from 'drizzle-orm';
import type { Config } from '../config/index.js';
import { DEFAULT_SCORING_RULES, mergeScoringRules } from '../scoring/index.js';
import { type Taxonomy, topicsOf } from '../topics/index.js';
import type { Store, StoreDb } from './db.js';

/** Reviews read, computed and written together: about 10-20 ms of matching (bench/README.md, Topics). */
export const BACKFILL_BATCH = 500;

export interface BackfillProgress {
  /** Reviews given their topics so far by this run. */
  done: number;
  /** Reviews that needed them when the run began. */
  total: number;
}

/**
 * The config's taxonomy: the built-in topics, changed and added to by `topics:` and by the keyword groups
 * of `alerts.scoring` (the same the alert policy scores with, so a poll stores the topics it weighs).
 */
export function configTaxonomy(config: Config): Taxonomy {
  return mergeScoringRules(DEFAULT_SCORING_RULES, config.alerts.scoring, config.topics).topics;
}

/** How many stored reviews have no topics computed under `version` (`status` shows it). */
export function reviewsWithoutTopics(db: StoreDb, version: string): number {
  const row = db.get<{ n: number }>(
    sql`select count(*) as n from reviews where topics_version is null or topics_version <> ${version}`,
  );
  return row?.n ?? 0;
}

interface Pending {
  id: number;
  content: string;
}

function pendingAfter(db: StoreDb, version: string, afterId: number, limit: number): Pending[] {
  return db.$client
    .prepare<[number, string, number], Pending>(
      `select id, content from reviews
       where id > ? and (topics_version is null or topics_version <> ?) order by id limit ?`,
    )
    .all(afterId, version, limit);
}

/**
 * Writes the batch's topics. `content = ?` skips a review an edit changed since it was read: the edit
 * wrote its own topics, under the same taxonomy.
 */
function writeBatch(db: StoreDb, taxonomy: Taxonomy, batch: readonly Pending[]): number {
  const update = db.$client.prepare<[string, string, number, string]>(
    'update reviews set topics = ?, topics_version = ? where id = ? and content = ?',
  );
  let written = 0;
  for (const review of batch) {
    const topics = JSON.stringify(topicsOf(review.content, taxonomy));
    written += update.run(topics, taxonomy.version, review.id, review.content).changes;
  }
  return written;
}

export interface BackfillOptions {
  batch?: number;
  /** Called after each batch. */
  onProgress?: (progress: BackfillProgress) => void;
  /** Checked between batches: true stops the run (the worker is stopping). */
  stopped?: () => boolean;
}

/**
 * Computes the topics of every stored review not computed under `taxonomy`, in id order, batch by batch;
 * between batches it yields to the event loop, so a poll's work interleaves. Returns what it did.
 */
export async function backfillTopics(
  store: Store,
  taxonomy: Taxonomy,
  options: BackfillOptions = {},
): Promise<BackfillProgress> {
  const size = options.batch ?? BACKFILL_BATCH;
  const progress = { done: 0, total: reviewsWithoutTopics(store.db, taxonomy.version) };
  let afterId = 0;
  while (progress.done < progress.total && !options.stopped?.()) {
    const batch = pendingAfter(store.db, taxonomy.version, afterId, size);
    const last = batch.at(-1);
    if (last === undefined) break;
    afterId = last.id;
    progress.done += await store.writes.run(() => writeBatch(store.db, taxonomy, batch));
    options.onProgress?.({ ...progress });
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return progress;
}
