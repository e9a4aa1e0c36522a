import type { Store } from '../../src/store/db.js';

/**
 * `days` of polls of `handle` every `everyMs`, ending at `now`: each a successful poll run and a rating
 * snapshot, what the prune thins. The app is added when it is not there yet.
 */
export function insertPollHistory(
  store: Store,
  handle: string,
  options: { now: number; days: number; everyMs: number },
): void {
  const client = store.db.$client;
  client.prepare('insert or ignore into apps (handle) values (?)').run(handle);
  const run = client.prepare<[string, number, number]>(
    `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
     values (?, ?, ?, 'ok', 1, 1, 0, 0)`,
  );
  const snapshot = client.prepare<[string, number, number | bigint]>(
    `insert into rating_snapshots (app_handle, taken_at, average, count, poll_run_id) values (?, ?, 4.5, 10, ?)`,
  );
  const { now, days, everyMs } = options;
  client.transaction(() => {
    for (let t = now - days * 86_400_000; t < now; t += everyMs) {
      snapshot.run(handle, t, run.run(handle, t, t).lastInsertRowid);
    }
  })();
}
