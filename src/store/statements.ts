import { sql } from 'drizzle-orm';
import type { KnownReview } from '../watch/diff.js';
import type { Store } from './db.js';
import { reviews } from './schema.js';

/**
 * The statements every poll runs, prepared once per database. A quiet poll is one request and these few
 * statements, so their cost is the poller's: drizzle's query building and row mapping cost more than
 * SQLite itself here (bench/README.md), so the hottest are plain SQL on the same connection, and the
 * insert of new reviews keeps drizzle's typed mapping.
 */
function build(db: Store['db']) {
  const p = sql.placeholder;
  const raw = db.$client;
  return {
    pollState: raw.prepare<
      [string],
      { baselineAt: number | null; unavailableSince: number | null; lastSuccessAt: number | null }
    >(
      `select baseline_at as baselineAt, unavailable_since as unavailableSince,
       (select started_at from poll_runs r where r.app_handle = apps.handle and r.status in ('ok', 'baseline')
        order by r.started_at desc limit 1) as lastSuccessAt
       from apps where handle = ?`,
    ),
    insertApp: raw.prepare<[string]>('insert into apps (handle) values (?) on conflict do nothing'),
    ratingLevel: raw.prepare<[string], { average: number | null; count: number | null; at: number | null }>(
      'select rating_level_average as average, rating_level_count as count, rating_level_at as at from apps where handle = ?',
    ),
    setRatingLevel: raw.prepare<[number, number, number, string]>(
      'update apps set rating_level_average = ?, rating_level_count = ?, rating_level_at = ? where handle = ?',
    ),
    /** Identities and fingerprints as JSON arrays: one statement whatever the page size. */
    known: raw.prepare<[string, string, string], KnownReview>(
      `select id as rowId, identity, fingerprint, rating, content, created_date as createdDate from reviews
       where app_handle = ? and (identity in (select value from json_each(?)) or fingerprint in (select value from json_each(?)))`,
    ),
    insertReview: db
      .insert(reviews)
      .values({
        appHandle: p('appHandle'),
        identity: p('identity'),
        fingerprint: p('fingerprint'),
        reviewId: p('reviewId'),
        reviewer: p('reviewer'),
        location: p('location'),
        rating: p('rating'),
        content: p('content'),
        createdDate: p('createdDate'),
        // Nullable: drizzle's date encoder would throw on null, so epoch ms go in as they are.
        createdAt: sql`${p('createdAtMs')}`,
        timeUsingApp: p('timeUsingApp'),
        appName: p('appName'),
        appUrl: p('appUrl'),
        fromBaseline: p('fromBaseline'),
        firstSeenAt: p('firstSeenAt'),
        updatedAt: p('updatedAt'),
        pollRunId: p('pollRunId'),
      })
      .onConflictDoNothing({ target: [reviews.appHandle, reviews.identity] })
      .returning()
      .prepare(),
    insertPollRun: raw.prepare<
      [string, number, number, string, number, number, number, number, number, string | null],
      { id: number }
    >(
      `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews, capped, error)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
    ),
    setPollRunCounts: raw.prepare<[number, number, number]>(
      'update poll_runs set new_reviews = ?, edited_reviews = ? where id = ?',
    ),
    insertSnapshot: raw.prepare<
      [string, number, number | null, number | null, ...Array<number | null>, number]
    >(
      `insert into rating_snapshots (app_handle, taken_at, average, count, stars_1, stars_2, stars_3, stars_4, stars_5, poll_run_id)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    /** After a successful poll: clears errors and unavailability, sets the baseline time once. */
    pollSucceeded: raw.prepare<[number, string, number | null, string | null, string]>(
      `update apps set last_poll_at = ?, last_poll_status = ?, last_error = null, unavailable_since = null,
       unavailable_reason = null, baseline_at = coalesce(baseline_at, ?), title = coalesce(?, title) where handle = ?`,
    ),
  };
}

export type Statements = ReturnType<typeof build>;

const cache = new WeakMap<Store['db'], Statements>();

export function statements(db: Store['db']): Statements {
  let prepared = cache.get(db);
  if (!prepared) {
    prepared = build(db);
    cache.set(db, prepared);
  }
  return prepared;
}
