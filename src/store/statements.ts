import { eq, sql } from 'drizzle-orm';
import type { Store } from './db.js';
import { apps, pollRuns, ratingSnapshots, reviews } from './schema.js';

/**
 * The statements every poll runs, prepared once per database. Building a drizzle query and preparing its
 * SQL each time cost more than the rest of a quiet poll together (bench/README.md).
 */
function build(db: Store['db']) {
  const p = sql.placeholder;
  // In UPDATE … SET, drizzle takes a placeholder only inside sql``, where no column encodes it: dates
  // go in as epoch milliseconds there (the timestamp_ms storage format).
  return {
    app: db
      .select()
      .from(apps)
      .where(eq(apps.handle, p('handle')))
      .prepare(),
    insertApp: db
      .insert(apps)
      .values({ handle: p('handle') })
      .onConflictDoNothing()
      .prepare(),
    /** Identities and fingerprints as JSON arrays: one statement whatever the page size. */
    known: db
      .select({
        rowId: reviews.id,
        identity: reviews.identity,
        fingerprint: reviews.fingerprint,
        rating: reviews.rating,
        content: reviews.content,
        createdDate: reviews.createdDate,
      })
      .from(reviews)
      .where(
        sql`${reviews.appHandle} = ${p('handle')} and (${reviews.identity} in (select value from json_each(${p('identities')})) or ${reviews.fingerprint} in (select value from json_each(${p('fingerprints')})))`,
      )
      .prepare(),
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
    insertPollRun: db
      .insert(pollRuns)
      .values({
        appHandle: p('appHandle'),
        startedAt: p('startedAt'),
        finishedAt: p('finishedAt'),
        status: p('status'),
        requests: p('requests'),
        pages: p('pages'),
        newReviews: p('newReviews'),
        editedReviews: p('editedReviews'),
        capped: p('capped'),
        error: p('error'),
      })
      .returning({ id: pollRuns.id })
      .prepare(),
    setPollRunCounts: db
      .update(pollRuns)
      .set({ newReviews: sql`${p('newReviews')}`, editedReviews: sql`${p('editedReviews')}` })
      .where(eq(pollRuns.id, p('id')))
      .prepare(),
    insertSnapshot: db
      .insert(ratingSnapshots)
      .values({
        appHandle: p('appHandle'),
        takenAt: p('takenAt'),
        average: p('average'),
        count: p('count'),
        stars1: p('stars1'),
        stars2: p('stars2'),
        stars3: p('stars3'),
        stars4: p('stars4'),
        stars5: p('stars5'),
        pollRunId: p('pollRunId'),
      })
      .prepare(),
    /** After a successful poll: clears errors and unavailability, sets the baseline time once. */
    pollSucceeded: db
      .update(apps)
      .set({
        lastPollAt: sql`${p('atMs')}`,
        lastPollStatus: sql`${p('status')}`,
        lastError: null,
        unavailableSince: null,
        unavailableReason: null,
        baselineAt: sql`coalesce(${apps.baselineAt}, ${p('baselineAtMs')})`,
        title: sql`coalesce(${p('title')}, ${apps.title})`,
      })
      .where(eq(apps.handle, p('handle')))
      .prepare(),
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
