import { ensureApp } from '../../src/store/apps.js';
import type { StoreDb } from '../../src/store/db.js';
import { insertPollRun } from '../../src/store/polls.js';
import { markRemoved } from '../../src/store/reconcile.js';
import type { NewReview } from '../../src/store/review-fields.js';
import { insertNewReviews } from '../../src/store/reviews.js';
import { BUILT_IN_TAXONOMY, topicsOf } from '../../src/topics/index.js';

/** A review to store: its app, and any of its fields; the rest get plain defaults. */
export type ReviewSeed = Partial<NewReview> & {
  appHandle: string;
  /** Marked removed at this moment, as a reconciliation marks it. */
  removedAt?: Date;
};

let seeded = 0;

/**
 * Stores a review through the store's own insert (store/review-fields.ts), as a poll stores one: a new
 * column reaches every test that seeds reviews with no edit there. Without a `pollRunId`, it belongs to
 * a poll run of its app made for it at its first-seen moment. Returns its row id.
 */
export function storeReview(db: StoreDb, { removedAt, ...seed }: ReviewSeed): number {
  const n = ++seeded;
  const createdAt = seed.createdAt === undefined ? null : seed.createdAt;
  const firstSeenAt = seed.firstSeenAt ?? createdAt ?? new Date(0);
  const identity = seed.identity ?? `seeded-${n}`;
  const row: NewReview = {
    identity,
    fingerprint: `fp-${identity}`,
    reviewId: identity,
    reviewer: 'Reviewer',
    location: '',
    rating: 5,
    content: '',
    createdDate: createdAt ? createdAt.toISOString() : 'Invalid Date',
    timeUsingApp: '',
    appName: seed.appHandle,
    appUrl: '',
    fromBaseline: false,
    updatedAt: seed.firstSeenAt ?? firstSeenAt,
    ...seed,
    // Its topics as a poll under the built-in topics finds them, unless the seed gives its own.
    topics: seed.topics ?? topicsOf(seed.content ?? '', BUILT_IN_TAXONOMY),
    topicsVersion: seed.topicsVersion === undefined ? BUILT_IN_TAXONOMY.version : seed.topicsVersion,
    createdAt,
    firstSeenAt,
    pollRunId: seed.pollRunId ?? runAt(db, seed.appHandle, firstSeenAt),
  };
  const [stored] = insertNewReviews(db, [row]);
  if (!stored) throw new Error(`a review of ${seed.appHandle} with identity ${identity} is stored already`);
  if (removedAt) markRemoved(db, [stored.id], removedAt);
  return stored.id;
}

/** A poll run of the app (stored if it is not), finished at `at`. */
function runAt(db: StoreDb, appHandle: string, at: Date): number {
  ensureApp(db, appHandle);
  return insertPollRun(db, {
    appHandle,
    startedAt: at,
    finishedAt: at,
    status: 'ok',
    requests: 1,
    pages: 1,
    newReviews: 0,
    editedReviews: 0,
  });
}
