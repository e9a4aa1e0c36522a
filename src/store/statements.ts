import type { Store } from './db.js';
import type { ReviewRow } from './schema.js';

/** What a poll reads of its app before it starts; times in epoch ms. */
export interface PollState {
  baselineAt: number | null;
  unavailableSince: number | null;
  lastSuccessAt: number | null;
  newestPageHash: string | null;
  /** An open burst gap (store/gaps.ts); all null when there is none. */
  gapOpenedAt: number | null;
  gapOffset: number | null;
  gapFloorRowId: number | null;
  gapSince: number | null;
  gapUnread: number | null;
}

/** A low review as the incident look-back reads it; `firstSeenAt` in epoch ms. */
export type LowReviewRow = Pick<
  ReviewRow,
  'id' | 'reviewId' | 'reviewer' | 'location' | 'rating' | 'content' | 'createdDate' | 'timeUsingApp'
> & { firstSeenAt: number };

/** The rating level the next drop is measured from, as stored (alerts/rating-drop.ts); times in epoch ms. */
export interface RatingLevelRow {
  average: number | null;
  count: number | null;
  at: number | null;
  /** JSON array of the summary's counts per star, one-star first. */
  stars: string | null;
  alerted: number;
  displayed: number | null;
}

/** One line of how stored reviews moved the counts of one star since a moment. */
export interface StoredStarsRow {
  kind: 'new' | 'removed' | 'rerated-to' | 'rerated-from';
  stars: number;
  n: number;
}

/** What the store knows of a review, enough to tell new, edited and unchanged apart (watch/diff.ts). */
export interface KnownReview {
  rowId: number;
  identity: string;
  fingerprint: string;
  rating: number;
  content: string;
  createdDate: string;
  /** When a reconciliation found it gone from the listing (epoch ms); null while it is listed. */
  removedAt: number | null;
}

/**
 * The parameters of the long writes, named as in the SQL (`@name`): times in epoch ms, booleans as 0/1,
 * absent values as null (SQLite binds neither Date, boolean nor undefined).
 */
export interface ReviewParams {
  appHandle: string;
  identity: string;
  fingerprint: string;
  reviewId: string;
  reviewer: string;
  location: string;
  rating: number;
  content: string;
  createdDate: string;
  createdAt: number | null;
  timeUsingApp: string;
  appName: string;
  appUrl: string;
  fromBaseline: 0 | 1;
  firstSeenAt: number;
  updatedAt: number;
  pollRunId: number;
}

export interface AlertParams {
  appHandle: string;
  kind: string;
  dedupeKey: string;
  priority: string;
  score: number | null;
  reviewRowId: number | null;
  /** The alert as JSON. */
  payload: string;
  createdAt: number;
  pollRunId: number | null;
}

export interface PollRunParams {
  appHandle: string;
  startedAt: number;
  finishedAt: number;
  status: string;
  requests: number;
  pages: number;
  newReviews: number;
  editedReviews: number;
  capped: 0 | 1;
  error: string | null;
}

export interface SnapshotParams {
  appHandle: string;
  takenAt: number;
  average: number | null;
  count: number | null;
  stars1: number | null;
  stars2: number | null;
  stars3: number | null;
  stars4: number | null;
  stars5: number | null;
  pollRunId: number;
}

export interface PollSucceededParams {
  handle: string;
  startedAt: number;
  at: number;
  status: string;
  /** Kept only if the app has no baseline yet. */
  baselineAt: number | null;
  /** Kept only if not null. */
  title: string | null;
  /** 0 leaves the stored page hash as it is; 1 sets it to `newestPageHash` (null clears it). */
  setPageHash: 0 | 1;
  newestPageHash: string | null;
}

/** The columns of KnownReview, for one app. */
const KNOWN = `select id as rowId, identity, fingerprint, rating, content, created_date as createdDate,
  removed_at as removedAt from reviews where app_handle = ?`;

/**
 * The statements every poll runs, prepared once per database. A quiet poll is one request and these few
 * statements, so their cost is the poller's: drizzle's query building and row mapping cost more than
 * SQLite itself here (bench/README.md), so they are plain SQL on the same connection, typed by hand.
 *
 * Long because it is a table: one entry per statement, each prepared once, in one place to read.
 */
function build(db: Store['db']) {
  const raw = db.$client;
  return {
    pollState: raw.prepare<[string], PollState>(
      `select baseline_at as baselineAt, unavailable_since as unavailableSince, last_success_at as lastSuccessAt,
       newest_page_hash as newestPageHash, gap_opened_at as gapOpenedAt, gap_offset as gapOffset,
       gap_floor_row_id as gapFloorRowId, gap_since as gapSince, gap_unread as gapUnread from apps where handle = ?`,
    ),
    insertApp: raw.prepare<[string]>('insert into apps (handle) values (?) on conflict do nothing'),
    ratingLevel: raw.prepare<[string], RatingLevelRow>(
      `select rating_level_average as average, rating_level_count as count, rating_level_at as at,
       rating_level_stars as stars, rating_level_alerted as alerted, rating_level_displayed as displayed
       from apps where handle = ?`,
    ),
    setRatingLevel: raw.prepare<[number, number, number, string | null, number, number | null, string]>(
      `update apps set rating_level_average = ?, rating_level_count = ?, rating_level_at = ?, rating_level_stars = ?,
       rating_level_alerted = ?, rating_level_displayed = ? where handle = ?`,
    ),
    /** Identities (or fingerprints) as a JSON array: one statement whatever the page size. */
    knownByIdentity: raw.prepare<[string, string], KnownReview>(
      `${KNOWN} and identity in (select value from json_each(?))`,
    ),
    knownByFingerprint: raw.prepare<[string, string], KnownReview>(
      `${KNOWN} and fingerprint in (select value from json_each(?))`,
    ),
    insertReview: raw.prepare<ReviewParams, { id: number }>(
      `insert into reviews (app_handle, identity, fingerprint, review_id, reviewer, location, rating, content,
       created_date, created_at, time_using_app, app_name, app_url, from_baseline, first_seen_at, updated_at, poll_run_id)
       values (@appHandle, @identity, @fingerprint, @reviewId, @reviewer, @location, @rating, @content,
       @createdDate, @createdAt, @timeUsingApp, @appName, @appUrl, @fromBaseline, @firstSeenAt, @updatedAt, @pollRunId)
       on conflict (app_handle, identity) do nothing returning id`,
    ),
    /**
     * Clears the removal mark of reviews a poll saw listed, if the mark is older than the poll: a
     * reconciliation that judged the review gone after the poll began may have read the listing later.
     */
    restoreListed: raw.prepare<[number, string]>(
      `update reviews set removed_at = null where removed_at is not null and removed_at <= ?
       and id in (select value from json_each(?))`,
    ),
    /** The alert path: only polls that brought a low review or moved the rating run these. */
    appTitle: raw.prepare<[string], { title: string | null }>('select title from apps where handle = ?'),
    /**
     * The incident look-back. A review the marketplace removed (removed_at) is no longer there for
     * customers to read: it does not make a burst, nor is it quoted in one.
     */
    lowReviewsSince: raw.prepare<[string, number, number, number], LowReviewRow>(
      `select id, review_id as reviewId, reviewer, location, rating, content, created_date as createdDate,
       time_using_app as timeUsingApp, first_seen_at as firstSeenAt from reviews
       where app_handle = ? and from_baseline = 0 and rating <= ? and first_seen_at >= ? and removed_at is null
       order by first_seen_at desc, id desc limit ?`,
    ),
    freshSince: raw.prepare<[string, number], { n: number }>(
      'select count(*) as n from reviews where app_handle = ? and from_baseline = 0 and first_seen_at > ?',
    ),
    /** A removed review no longer weighs on the listing's rating: it explains none of a drop. */
    freshStarsSince: raw.prepare<[string, number], { stars: number; n: number }>(
      `select rating as stars, count(*) as n from reviews where app_handle = ? and from_baseline = 0
       and first_seen_at > ? and removed_at is null group by rating`,
    ),
    /**
     * How the stored reviews moved the listing's counts per star since a moment (the rating level's):
     * reviews first seen since and still listed count in, reviews seen before and removed since count
     * out, and re-ratings since move a review from its old stars to its new ones. Reviews stored as
     * history since (re-published after being archived) count too: the summary counts them again.
     */
    storedStarsSince: raw.prepare<{ handle: string; at: number }, StoredStarsRow>(
      `select 'new' as kind, rating as stars, count(*) as n from reviews
       where app_handle = @handle and first_seen_at > @at and removed_at is null group by rating
       union all
       select 'removed', rating, count(*) from reviews
       where app_handle = @handle and first_seen_at <= @at and removed_at > @at group by rating
       union all
       select 'rerated-to', e.new_rating, count(*) from review_edits e join reviews r on r.id = e.review_row_id
       where e.app_handle = @handle and e.detected_at > @at and e.new_rating <> e.old_rating
       and r.first_seen_at <= @at and (r.removed_at is null or r.removed_at > @at) group by e.new_rating
       union all
       select 'rerated-from', e.old_rating, count(*) from review_edits e join reviews r on r.id = e.review_row_id
       where e.app_handle = @handle and e.detected_at > @at and e.new_rating <> e.old_rating
       and r.first_seen_at <= @at and (r.removed_at is null or r.removed_at > @at) group by e.old_rating`,
    ),
    /** Reviews of a burst not read yet: the summary counts them, the store does not yet (watch/poll.ts). */
    gapUnread: raw.prepare<[string], { unread: number | null }>(
      'select case when gap_opened_at is null then 0 else gap_unread end as unread from apps where handle = ?',
    ),
    reratedSince: raw.prepare<[string, number], { n: number }>(
      `select count(*) as n from review_edits where app_handle = ? and detected_at > ? and new_rating < old_rating`,
    ),
    latestAlertAt: raw.prepare<[string, string], { at: number | null }>(
      'select max(created_at) as at from alerts where app_handle = ? and kind = ?',
    ),
    insertAlert: raw.prepare<AlertParams, { id: number }>(
      `insert into alerts (app_handle, kind, dedupe_key, priority, score, review_row_id, payload, created_at, poll_run_id)
       values (@appHandle, @kind, @dedupeKey, @priority, @score, @reviewRowId, @payload, @createdAt, @pollRunId)
       on conflict do nothing returning id`,
    ),
    insertDelivery: raw.prepare<[number, string, string, string | null, number], { id: number }>(
      `insert into deliveries (alert_id, channel, app_handle, group_key, status, created_at)
       values (?, ?, ?, ?, 'pending', ?) returning id`,
    ),
    insertPollRun: raw.prepare<PollRunParams, { id: number }>(
      `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews, capped, error)
       values (@appHandle, @startedAt, @finishedAt, @status, @requests, @pages, @newReviews, @editedReviews, @capped, @error)
       returning id`,
    ),
    setPollRunCounts: raw.prepare<[number, number, number]>(
      'update poll_runs set new_reviews = ?, edited_reviews = ? where id = ?',
    ),
    insertSnapshot: raw.prepare<SnapshotParams>(
      `insert into rating_snapshots (app_handle, taken_at, average, count, stars_1, stars_2, stars_3, stars_4, stars_5, poll_run_id)
       values (@appHandle, @takenAt, @average, @count, @stars1, @stars2, @stars3, @stars4, @stars5, @pollRunId)`,
    ),
    /** After a successful poll: clears errors and unavailability, sets the baseline time once. */
    pollSucceeded: raw.prepare<PollSucceededParams>(
      `update apps set last_success_at = max(coalesce(last_success_at, 0), @startedAt), last_poll_at = @at,
       last_poll_status = @status, last_error = null, unavailable_since = null, unavailable_reason = null,
       baseline_at = coalesce(baseline_at, @baselineAt), title = coalesce(@title, title),
       newest_page_hash = iif(@setPageHash, @newestPageHash, newest_page_hash) where handle = @handle`,
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
