/**
 * Giving the space of deleted rows back to the file system, in steps short enough for the worker's polls
 * to write in between.
 *
 * Deleted rows leave free pages inside the file, which later writes reuse: a database pruned every day
 * stays near its steady-state size even if nothing here runs. Returning them needs `auto_vacuum =
 * INCREMENTAL` (set on every database this version creates, store/db.ts): `PRAGMA incremental_vacuum(n)`
 * then moves up to n pages from the end of the file into free ones and truncates, one short write
 * transaction per step. A database created before has `auto_vacuum = NONE`, which only a full VACUUM can
 * change; VACUUM rewrites the whole file while holding the write lock, so it runs only when asked
 * (`reviewwatch prune --vacuum`), never from the daily job. With WAL, the moved pages go to the WAL
 * first: a TRUNCATE checkpoint writes them back and empties the WAL file, which otherwise keeps the size
 * of the largest transaction since it was last reset.
 */
import { existsSync, statSync } from 'node:fs';
import type Database from 'better-sqlite3';

/**
 * Pages per incremental-vacuum step, to start with: each step then takes as many as fit in the time a
 * transaction may hold the lock (moving a page costs from microseconds to a millisecond, depending on
 * how many pointers to it must be rewritten).
 */
const FIRST_STEP_PAGES = 256;
const MAX_STEP_PAGES = 65_536;

export type ReclaimMode = 'incremental' | 'vacuum' | 'automatic' | 'reuse';

export interface ReclaimResult {
  /** incremental: free pages returned in steps; vacuum: the file rewritten; automatic: auto_vacuum=FULL
   * did it at each commit; reuse: auto_vacuum=NONE, free pages stay for later writes. */
  mode: ReclaimMode;
  /** False when a reader kept the WAL from being emptied (it is the next time). */
  checkpointed: boolean;
}

/** The database file and its WAL, in bytes (0 for an in-memory database). */
export function fileBytes(client: Database.Database): number {
  if (client.memory) return 0;
  const size = (path: string) => (existsSync(path) ? statSync(path).size : 0);
  return size(client.name) + size(`${client.name}-wal`);
}

/** Bytes of free pages inside the file. */
export function freeBytes(client: Database.Database): number {
  const pages = client.pragma('freelist_count', { simple: true }) as number;
  return pages * (client.pragma('page_size', { simple: true }) as number);
}

export async function reclaimSpace(
  client: Database.Database,
  options: {
    vacuum: boolean;
    /** How long one incremental-vacuum step may hold the write lock. */
    maxLockMs: number;
    yieldNow: () => Promise<void>;
    onStep?: (freePagesLeft: number, freePagesAtStart: number) => void;
  },
): Promise<ReclaimResult> {
  const autoVacuum = client.pragma('auto_vacuum', { simple: true }) as number;
  let mode: ReclaimMode;
  if (options.vacuum) {
    // Takes effect with the VACUUM: from then on, incremental steps can return space.
    client.pragma('auto_vacuum = INCREMENTAL');
    client.exec('VACUUM');
    mode = 'vacuum';
  } else if (autoVacuum === 2) {
    const freePages = () => client.pragma('freelist_count', { simple: true }) as number;
    const atStart = freePages();
    let left = atStart;
    let step = FIRST_STEP_PAGES;
    while (left > 0) {
      const started = performance.now();
      client.exec(`PRAGMA incremental_vacuum(${step})`);
      const took = Math.max(1, performance.now() - started);
      step = Math.round(Math.min(MAX_STEP_PAGES, Math.max(16, (step * options.maxLockMs) / took)));
      const now = freePages();
      options.onStep?.(now, atStart);
      // No progress means another connection holds the pages (or the lock): try again tomorrow.
      if (now >= left) break;
      left = now;
      await options.yieldNow();
    }
    mode = 'incremental';
  } else {
    mode = autoVacuum === 1 ? 'automatic' : 'reuse';
  }
  const [checkpoint] = client.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
  return { mode, checkpointed: checkpoint === undefined || checkpoint.busy === 0 };
}
