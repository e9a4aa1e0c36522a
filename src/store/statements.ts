import { and, count, desc, eq, gt, gte, inArray, isNull, lt, lte, max, or, sql } from 'drizzle-orm';
import type { Store } from './db.js';
import { bound, jsonEach, preparedOnce, rowBindings } from './prepared.js';
import { reviewColumns, reviewInsertBindings, WRITTEN_FIELDS } from './review-fields.js';
import {
  type AppRow,
  alerts,
  apps,
  deliveries,
  pollRuns,
  type ReviewRow,
  ratingSnapshots,
  reviewEdits,
  reviews,
} from './schema.js';

/** What a poll reads of its app before it starts. */
export type PollState = Pick<
  AppRow,
  | 'baselineAt'
  | 'unavailableSince'
  | 'lastSuccessAt'
  | 'newestPageHash'
  /** An open burst gap (store/gaps.ts); all null when there is none. */
  | 'gapOpenedAt'
  | 'gapOffset'
  | 'gapFloorRowId'
  | 'gapSince'
  | 'gapUnread'
>;

const LOW_REVIEW_FIELDS = [
  'id',
  'reviewId',
  ...WRITTEN_FIELDS,
  'timeUsingApp',
  'firstSeenAt',
  // What the burst is about is read from the stored topics, not matched again (topics/review-topics.ts).
  'topics',
  'topicsVersion',
] as const;

/** A low review as the incident look-back reads it. */
export type LowReviewRow = Pick<ReviewRow, (typeof LOW_REVIEW_FIELDS)[number]>;

/** One line of how stored reviews moved the counts of one star since a moment. */
export interface StoredStarsRow {
  kind: 'new' | 'removed' | 'rerated-to' | 'rerated-from';
  stars: number;
  n: number;
}

/** The fields of KnownReview besides the row id. */
const KNOWN_FIELDS = ['identity', 'fingerprint', 'rating', 'content', 'createdDate', 'removedAt'] as const;

/**
 * What the store knows of a review, enough to tell new, edited and unchanged apart (watch/diff.ts);
 * `removedAt` is set when a reconciliation found it gone from the listing, null while it is listed.
 */
export type KnownReview = { rowId: ReviewRow['id'] } & Pick<ReviewRow, (typeof KNOWN_FIELDS)[number]>;

/** The columns of KnownReview. */
const KNOWN = { rowId: reviews.id, ...reviewColumns(KNOWN_FIELDS) };

/**
 * The summary's counts per star at the rating level, as stored: five counts or nothing. Read as text and
 * checked here rather than parsed by the column's JSON mode, which throws on bad JSON: a column someone
 * edited by hand must not break the drop rule.
 */
function storedStars(json: unknown): number[] | null {
  try {
    const parsed: unknown = typeof json === 'string' ? JSON.parse(json) : null;
    return Array.isArray(parsed) && parsed.length === 5 && parsed.every((n) => Number.isInteger(n))
      ? (parsed as number[])
      : null;
  } catch {
    return null;
  }
}

/**
 * The statements every poll runs, prepared once per database. A quiet poll is one request and these few
 * statements, so their cost is the poller's: drizzle queries built on every call cost ten times what the
 * statement does (bench/README.md), so these are built once, with placeholders (prepared.ts).
 *
 * Long because it is a table: one entry per statement, each prepared once, in one place to read.
 */
function build(db: Store['db']) {
  const handle = bound(apps.handle, 'handle');
  const ofApp = eq(reviews.appHandle, bound(reviews.appHandle, 'handle'));
  const since = bound(reviews.firstSeenAt, 'since');
  // Low reviews first seen since a moment, not history, and still listed.
  const lowSince = and(
    ofApp,
    eq(reviews.fromBaseline, false),
    lte(reviews.rating, bound(reviews.rating, 'maxRating')),
    gte(reviews.firstSeenAt, since),
    isNull(reviews.removedAt),
  );
  const editsSince = and(
    eq(reviewEdits.appHandle, bound(reviewEdits.appHandle, 'handle')),
    gt(reviewEdits.detectedAt, bound(reviewEdits.detectedAt, 'since')),
  );
  return {
    pollState: db
      .select({
        baselineAt: apps.baselineAt,
        unavailableSince: apps.unavailableSince,
        lastSuccessAt: apps.lastSuccessAt,
        newestPageHash: apps.newestPageHash,
        gapOpenedAt: apps.gapOpenedAt,
        gapOffset: apps.gapOffset,
        gapFloorRowId: apps.gapFloorRowId,
        gapSince: apps.gapSince,
        gapUnread: apps.gapUnread,
      })
      .from(apps)
      .where(eq(apps.handle, handle))
      .prepare(),
    insertApp: db.insert(apps).values({ handle }).onConflictDoNothing().prepare(),
    ratingLevel: db
      .select({
        average: apps.ratingLevelAverage,
        count: apps.ratingLevelCount,
        at: apps.ratingLevelAt,
        stars: sql`${apps.ratingLevelStars}`.mapWith(storedStars),
        alerted: apps.ratingLevelAlerted,
        displayed: apps.ratingLevelDisplayed,
        recoveringSince: apps.ratingLevelRecoveringSince,
      })
      .from(apps)
      .where(eq(apps.handle, handle))
      .prepare(),
    setRatingLevel: db
      .update(apps)
      .set({
        ratingLevelAverage: bound(apps.ratingLevelAverage, 'average'),
        ratingLevelCount: bound(apps.ratingLevelCount, 'count'),
        ratingLevelAt: bound(apps.ratingLevelAt, 'at'),
        ratingLevelStars: bound(apps.ratingLevelStars, 'stars'),
        ratingLevelAlerted: bound(apps.ratingLevelAlerted, 'alerted'),
        ratingLevelDisplayed: bound(apps.ratingLevelDisplayed, 'displayed'),
        ratingLevelRecoveringSince: bound(apps.ratingLevelRecoveringSince, 'recoveringSince'),
      })
      .where(eq(apps.handle, handle))
      .prepare(),
    /** Identities (or fingerprints) as a JSON array: one statement whatever the page size. */
    knownByIdentity: db
      .select(KNOWN)
      .from(reviews)
      .where(and(ofApp, inArray(reviews.identity, jsonEach('identities'))))
      .prepare(),
    knownByFingerprint: db
      .select(KNOWN)
      .from(reviews)
      .where(and(ofApp, inArray(reviews.fingerprint, jsonEach('fingerprints'))))
      .prepare(),
    insertReview: db
      .insert(reviews)
      .values(reviewInsertBindings())
      .onConflictDoNothing({ target: [reviews.appHandle, reviews.identity] })
      .returning({ id: reviews.id })
      .prepare(),
    /**
     * Clears the removal mark of reviews a poll saw listed, if the mark is older than the poll: a
     * reconciliation that judged the review gone after the poll began may have read the listing later.
     */
    restoreListed: db
      .update(reviews)
      .set({ removedAt: null })
      .where(
        and(
          lte(reviews.removedAt, bound(reviews.removedAt, 'pollStartedAt')),
          inArray(reviews.id, jsonEach('ids')),
        ),
      )
      .prepare(),
    /** The alert path: only polls that brought a low review or moved the rating run these. */
    appTitle: db.select({ title: apps.title }).from(apps).where(eq(apps.handle, handle)).prepare(),
    /**
     * The incident look-back. A review the marketplace removed (removed_at) is no longer there for
     * customers to read: it does not make a burst, nor is it quoted in one.
     */
    lowReviewsSince: db
      .select(reviewColumns(LOW_REVIEW_FIELDS))
      .from(reviews)
      .where(lowSince)
      .orderBy(desc(reviews.firstSeenAt), desc(reviews.id))
      .limit(sql.placeholder('limit'))
      .prepare(),
    /** Their ids only, as many as `limit`: enough to count them without reading their rows. */
    lowReviewIdsSince: db
      .select({ id: reviews.id })
      .from(reviews)
      .where(lowSince)
      .limit(sql.placeholder('limit'))
      .prepare(),
    freshSince: db
      .select({ n: count() })
      .from(reviews)
      .where(and(ofApp, eq(reviews.fromBaseline, false), gt(reviews.firstSeenAt, since)))
      .prepare(),
    /** A removed review no longer weighs on the listing's rating: it explains none of a drop. */
    freshStarsSince: db
      .select({ stars: reviews.rating, n: count() })
      .from(reviews)
      .where(
        and(
          ofApp,
          eq(reviews.fromBaseline, false),
          gt(reviews.firstSeenAt, since),
          isNull(reviews.removedAt),
        ),
      )
      .groupBy(reviews.rating)
      .prepare(),
    storedStarsSince: storedStarsSince(db),
    /** Reviews of a burst not read yet: the summary counts them, the store does not yet (watch/poll.ts). */
    gap: db
      .select({ openedAt: apps.gapOpenedAt, unread: apps.gapUnread })
      .from(apps)
      .where(eq(apps.handle, handle))
      .prepare(),
    reratedSince: db
      .select({ n: count() })
      .from(reviewEdits)
      .where(and(editsSince, lt(reviewEdits.newRating, reviewEdits.oldRating)))
      .prepare(),
    latestAlertAt: db
      .select({ at: max(alerts.createdAt) })
      .from(alerts)
      .where(
        and(
          eq(alerts.appHandle, bound(alerts.appHandle, 'handle')),
          eq(alerts.kind, bound(alerts.kind, 'kind')),
        ),
      )
      .prepare(),
    insertAlert: db
      .insert(alerts)
      .values(rowBindings(alerts, ['id']))
      .onConflictDoNothing()
      .returning({ id: alerts.id })
      .prepare(),
    insertDelivery: db
      .insert(deliveries)
      .values({
        alertId: bound(deliveries.alertId, 'alertId'),
        channel: bound(deliveries.channel, 'channel'),
        appHandle: bound(deliveries.appHandle, 'appHandle'),
        groupKey: bound(deliveries.groupKey, 'groupKey'),
        status: 'pending',
        createdAt: bound(deliveries.createdAt, 'createdAt'),
      })
      .returning({ id: deliveries.id })
      .prepare(),
    /** A poll's run, or a reconciliation's (kind `reconcile`, store/reconcile.ts). */
    insertPollRun: db
      .insert(pollRuns)
      .values(rowBindings(pollRuns, ['id']))
      .returning({ id: pollRuns.id })
      .prepare(),
    setPollRunCounts: db
      .update(pollRuns)
      .set({
        newReviews: bound(pollRuns.newReviews, 'newReviews'),
        editedReviews: bound(pollRuns.editedReviews, 'editedReviews'),
      })
      .where(eq(pollRuns.id, bound(pollRuns.id, 'id')))
      .prepare(),
    insertSnapshot: db
      .insert(ratingSnapshots)
      .values({
        appHandle: bound(ratingSnapshots.appHandle, 'appHandle'),
        takenAt: bound(ratingSnapshots.takenAt, 'takenAt'),
        average: bound(ratingSnapshots.average, 'average'),
        count: bound(ratingSnapshots.count, 'count'),
        stars1: bound(ratingSnapshots.stars1, 'stars1'),
        stars2: bound(ratingSnapshots.stars2, 'stars2'),
        stars3: bound(ratingSnapshots.stars3, 'stars3'),
        stars4: bound(ratingSnapshots.stars4, 'stars4'),
        stars5: bound(ratingSnapshots.stars5, 'stars5'),
        pollRunId: bound(ratingSnapshots.pollRunId, 'pollRunId'),
      })
      .prepare(),
    /**
     * After a successful poll: clears errors and unavailability, sets the baseline time once, keeps a
     * title only when one came, and sets the page hash only when `setPageHash` is 1.
     */
    pollSucceeded: db
      .update(apps)
      .set({
        lastSuccessAt: sql`max(coalesce(${apps.lastSuccessAt}, 0), ${bound(apps.lastSuccessAt, 'startedAt')})`,
        lastPollAt: bound(apps.lastPollAt, 'at'),
        lastPollStatus: bound(apps.lastPollStatus, 'status'),
        lastError: null,
        unavailableSince: null,
        unavailableReason: null,
        baselineAt: sql`coalesce(${apps.baselineAt}, ${bound(apps.baselineAt, 'baselineAt')})`,
        title: sql`coalesce(${bound(apps.title, 'title')}, ${apps.title})`,
        newestPageHash: sql`iif(${sql.placeholder('setPageHash')}, ${bound(apps.newestPageHash, 'newestPageHash')}, ${apps.newestPageHash})`,
        lastPollBy: bound(apps.lastPollBy, 'by'),
      })
      .where(eq(apps.handle, handle))
      .prepare(),
  };
}

/**
 * How the stored reviews moved the listing's counts per star since a moment (the rating level's):
 * reviews first seen since and still listed count in, reviews seen before and removed since count
 * out, and re-ratings since move a review from its old stars to its new ones. Reviews stored as
 * history since (re-published after being archived) count too: the summary counts them again.
 */
function storedStarsSince(db: Store['db']) {
  const ofApp = eq(reviews.appHandle, bound(reviews.appHandle, 'handle'));
  const at = bound(reviews.firstSeenAt, 'since');
  const kind = (name: StoredStarsRow['kind']) => sql<StoredStarsRow['kind']>`${name}`;
  // A re-rating of a review seen before the moment and still listed then.
  const rerated = and(
    eq(reviewEdits.appHandle, bound(reviewEdits.appHandle, 'handle')),
    gt(reviewEdits.detectedAt, at),
    sql`${reviewEdits.newRating} <> ${reviewEdits.oldRating}`,
    lte(reviews.firstSeenAt, at),
    or(isNull(reviews.removedAt), gt(reviews.removedAt, at)),
  );
  // Each re-rating counts twice: once for the stars it left, once for those it went to.
  const reratings = (
    name: StoredStarsRow['kind'],
    stars: typeof reviewEdits.newRating | typeof reviewEdits.oldRating,
  ) =>
    db
      .select({ kind: kind(name), stars, n: count() })
      .from(reviewEdits)
      .innerJoin(reviews, eq(reviews.id, reviewEdits.reviewRowId))
      .where(rerated)
      .groupBy(stars);
  return db
    .select({ kind: kind('new'), stars: reviews.rating, n: count() })
    .from(reviews)
    .where(and(ofApp, gt(reviews.firstSeenAt, at), isNull(reviews.removedAt)))
    .groupBy(reviews.rating)
    .unionAll(
      db
        .select({ kind: kind('removed'), stars: reviews.rating, n: count() })
        .from(reviews)
        .where(and(ofApp, lte(reviews.firstSeenAt, at), gt(reviews.removedAt, at)))
        .groupBy(reviews.rating),
    )
    .unionAll(reratings('rerated-to', reviewEdits.newRating))
    .unionAll(reratings('rerated-from', reviewEdits.oldRating))
    .prepare();
}

export type Statements = ReturnType<typeof build>;

export const statements: (db: Store['db']) => Statements = preparedOnce(build);
