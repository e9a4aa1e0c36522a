/**
 * The worker's start step that gives stored reviews their topics under the config's taxonomy
 * (store/topic-backfill.ts): in the background, so polls start at once and interleave with its batches,
 * with its progress in the log; stopped, where it stands, when the worker stops (the next start resumes).
 */
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import { type BackfillProgress, backfillTopics } from '../store/topic-backfill.js';
import type { Taxonomy } from '../topics/index.js';
import type { Releasers } from '../util/releasers.js';

/** At most one progress line in this long, however fast the batches go. */
const PROGRESS_EVERY_MS = 5_000;

function percent({ done, total }: BackfillProgress): string {
  return `${total === 0 ? 100 : Math.floor((done / total) * 100)}%`;
}

export function startTopicBackfill(
  store: Store,
  taxonomy: Taxonomy,
  deps: { releasers: Releasers; logger: Logger; progressEveryMs?: number },
): Promise<BackfillProgress> {
  const { logger } = deps;
  let stopping = false;
  const started = Date.now();
  let lastLog = started;
  const every = deps.progressEveryMs ?? PROGRESS_EVERY_MS;
  const run = backfillTopics(store, taxonomy, {
    stopped: () => stopping,
    onProgress: (progress) => {
      if (progress.done === progress.total || Date.now() - lastLog < every) return;
      lastLog = Date.now();
      logger.info(
        { topicsBackfill: progress },
        `topics: ${progress.done} of ${progress.total} stored reviews computed (${percent(progress)})`,
      );
    },
  }).then(
    (progress) => {
      if (progress.total > 0) {
        const seconds = Math.round((Date.now() - started) / 100) / 10;
        logger.info(
          { topicsBackfill: progress },
          stopping && progress.done < progress.total
            ? `topics: stopped at ${progress.done} of ${progress.total}; the next start goes on`
            : `topics: ${progress.done} stored reviews computed in ${seconds}s (taxonomy ${taxonomy.version})`,
        );
      }
      return progress;
    },
    (err: unknown) => {
      // A failed backfill leaves reviews without topics (status counts them); polling goes on.
      logger.error({ err }, 'topics: the backfill of stored reviews failed; the next start tries again');
      return { done: 0, total: 0 };
    },
  );
  deps.releasers.add('topics backfill', async () => {
    stopping = true;
    await run;
  });
  return run;
}
