/**
 * A store filled straight through SQLite, for the benches that need hundreds of thousands of reviews
 * (inbox.ts, live.ts, topics-store.ts): apps `app-0` … with one poll run each, and reviews written in big
 * transactions, each followed by what a poll's insert adds beside its rows (src/store/review-index.ts).
 */
import type { Store } from '../src/store/db.js';
import { indexNewReviews } from '../src/store/review-index.js';

/** One synthetic review: of app number `app`, dated `at` (epoch ms) and first seen then. */
export interface SyntheticReview {
  app: number;
  rating: number;
  content: string;
  at: number;
}

export interface WriteOptions {
  /** `time_using_app` of every review; '' by default. */
  timeUsingApp?: string;
  /** Whether reviews carry their app's URL (`https://apps.example/app-N`); '' by default. */
  appUrl?: boolean;
  /** Called after each review is stored, in its batch's transaction, with its row id. */
  stored?: (id: number, review: SyntheticReview) => void;
}

const BATCH = 20_000;

/** `count` apps, `app-0` to `app-{count-1}` titled "App N", each with one poll run (id N + 1) at `at`. */
export function writeApps(store: Store, count: number, at: number): void {
  const client = store.db.$client;
  const insertApp = client.prepare('insert or ignore into apps (handle, title) values (?, ?)');
  const insertRun = client.prepare(
    `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews,
     edited_reviews) values (?, ?, ?, 'ok', 1, 1, 0, 0)`,
  );
  client.transaction(() => {
    for (let a = 0; a < count; a++) {
      insertApp.run(`app-${a}`, `App ${a}`);
      insertRun.run(`app-${a}`, at, at);
    }
  })();
}

/**
 * Writes `count` reviews, the `i`th as `reviewOf(i)` gives it (identity `r{i}`, reviewer "Reviewer i", from
 * Canada, topics '[]' and no topics version: computed later, if at all), with progress on stderr.
 */
export function writeReviews(
  store: Store,
  count: number,
  reviewOf: (i: number) => SyntheticReview,
  options: WriteOptions = {},
): void {
  const client = store.db.$client;
  const insert = client.prepare(
    `insert into reviews (app_handle, identity, fingerprint, review_id, reviewer, location, rating, content,
     created_date, created_at, time_using_app, app_name, app_url, from_baseline, first_seen_at, updated_at,
     poll_run_id) values (?, ?, ?, ?, ?, 'Canada', ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
  );
  const timeUsingApp = options.timeUsingApp ?? '';
  for (let start = 0; start < count; start += BATCH) {
    client.transaction(() => {
      let first = 0;
      let last = 0;
      for (let i = start; i < Math.min(count, start + BATCH); i++) {
        const review = reviewOf(i);
        const { app, rating, content, at } = review;
        const { lastInsertRowid } = insert.run(
          `app-${app}`,
          `r${i}`,
          `f${i}`,
          `r${i}`,
          `Reviewer ${i}`,
          rating,
          content,
          new Date(at).toISOString(),
          at,
          timeUsingApp,
          `App ${app}`,
          options.appUrl ? `https://apps.example/app-${app}` : '',
          at,
          at,
          app + 1,
        );
        last = Number(lastInsertRowid);
        first ||= last;
        options.stored?.(last, review);
      }
      // As a poll's insert does: the per-day counts.
      indexNewReviews(store.db, first, last);
    })();
    process.stderr.write(`  ${Math.min(count, start + BATCH).toLocaleString('en')} reviews written\r`);
  }
}
