import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ALERT_KIND_NAMES } from '../kinds.js';
import { PRIORITIES } from '../scoring/priority.js';
import type { ReviewTopic } from '../topics/index.js';
import { DAY_ROW_COLUMNS } from './day-row-topics.js';

/**
 * No ON DELETE CASCADE anywhere: drizzle-kit rebuilds tables for some changes, and a rebuild with cascading
 * children silently deletes them (docs/stack-notes.md). Reviews are never deleted by the product, but for
 * a duplicate a reconciliation folds into its original after moving what points to it (store/reconcile.ts).
 */

/** A review's topic as stored: its name and the review's words that put it there. */
export type StoredTopic = ReviewTopic;

const timestamp = (name: string) => integer(name, { mode: 'timestamp_ms' });

export const apps = sqliteTable('apps', {
  handle: text('handle').primaryKey(),
  /** The listing's name, from the API (the config may give its own). */
  title: text('title'),
  /** When the first (baseline) poll completed; null until then. */
  baselineAt: timestamp('baseline_at'),
  /** Set when the API answered 404 for the handle; cleared when it answers again. */
  unavailableSince: timestamp('unavailable_since'),
  unavailableReason: text('unavailable_reason'),
  lastPollAt: timestamp('last_poll_at'),
  lastPollStatus: text('last_poll_status', { enum: ['ok', 'baseline', 'unavailable', 'failed'] }),
  lastError: text('last_error'),
  /**
   * The rating level the next drop is measured from: the last level alerted on, or the first seen, or
   * the highest since (a recovery re-arms the drop alert).
   */
  ratingLevelAverage: real('rating_level_average'),
  ratingLevelCount: integer('rating_level_count'),
  ratingLevelAt: timestamp('rating_level_at'),
  /**
   * The summary's counts per star at that level, as JSON `[one-star, …, five-star]`: what moved the
   * summary since, beside the stored reviews, explains a drop. Null for a level set before they were kept.
   */
  ratingLevelStars: text('rating_level_stars', { mode: 'json' }).$type<number[]>(),
  /**
   * The level is the low of a fall a message said: the drop rules stay quiet until the average has stood
   * alerts.ratingDrop.recovery above it for alerts.ratingDrop.recoveryHold (alerts/rating-drop.ts).
   */
  ratingLevelAlerted: integer('rating_level_alerted', { mode: 'boolean' }).notNull().default(false),
  /**
   * The displayed (one-decimal) rating a fall below alerts: lowered by each alert, raised only once the
   * average clears the rounding boundary below a higher one by the recovery margin. Null: the level's.
   */
  ratingLevelDisplayed: real('rating_level_displayed'),
  /**
   * While the level is a low alerted on: since when the average has stood alerts.ratingDrop.recovery
   * above it. The drop rules re-arm once that has lasted alerts.ratingDrop.recoveryHold; null: it has not.
   */
  ratingLevelRecoveringSince: timestamp('rating_level_recovering_since'),
  /**
   * A hash of page 1 of the reviews, written only when the store held that page exactly. While page 1
   * hashes the same, nothing on it is new or edited, so the poll skips looking its reviews up.
   */
  newestPageHash: text('newest_page_hash'),
  /** When the last successful poll started: reviews dated well before it are history (watch/poll.ts). */
  lastSuccessAt: timestamp('last_success_at'),
  /**
   * When a poll last found an incident on the app: more new low reviews than its pace explains
   * (schedule/incident.ts, isIncident). Its polls are tightened for a while after; kept here so a restart
   * tightens only the apps that had one, not every app with a routine low review.
   */
  lastIncidentAt: timestamp('last_incident_at'),
  /**
   * A burst gap: a poll stopped at poll.maxPages before it reached a stored review, so reviews between
   * what it read and what was stored before are unread. The following polls read page 1 first, then
   * continue from `gapOffset` until a page holds a review stored before the gap (row id at most
   * `gapFloorRowId`). Kept in SQLite so a restart, a kill or a flushed Redis cannot forget it.
   */
  gapOpenedAt: timestamp('gap_opened_at'),
  /** How many reviews, newest first, lie above the unread part as of the last poll. */
  gapOffset: integer('gap_offset'),
  /** The highest review row id stored before the gap opened: a page holding one of those closes it. */
  gapFloorRowId: integer('gap_floor_row_id'),
  /**
   * The last successful poll's start before the gap opened: reviews found in the gap are judged history
   * (no alert) against it, not against the polls that read the gap since.
   */
  gapSince: timestamp('gap_since'),
  /** About how many reviews are still unread: the listing's count less the stored reviews. */
  gapUnread: integer('gap_unread'),
  /** Which process (host:pid) ran the last poll, for `status` when several processes share the store. */
  lastPollBy: text('last_poll_by'),
  createdAt: timestamp('created_at').notNull().default(sql`(unixepoch('subsec') * 1000)`),
});

export const pollRuns = sqliteTable(
  'poll_runs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appHandle: text('app_handle')
      .notNull()
      .references(() => apps.handle),
    startedAt: timestamp('started_at').notNull(),
    finishedAt: timestamp('finished_at').notNull(),
    status: text('status', { enum: ['ok', 'baseline', 'unavailable', 'failed'] }).notNull(),
    requests: integer('requests').notNull(),
    pages: integer('pages').notNull(),
    newReviews: integer('new_reviews').notNull(),
    editedReviews: integer('edited_reviews').notNull(),
    /** True when the page cap stopped the poll before it reached a stored review. */
    capped: integer('capped', { mode: 'boolean' }).notNull().default(false),
    error: text('error'),
    /**
     * A regular poll, or a reconciliation (watch/reconcile.ts): its deep check's reviews, edits and alerts
     * point to its run as a poll's do, and its requests are what `status` counts as its cost.
     */
    kind: text('kind', { enum: ['poll', 'reconcile'] })
      .notNull()
      .default('poll'),
  },
  (t) => [
    index('poll_runs_app_started').on(t.appHandle, t.startedAt),
    // Partial: the reconciliations are a few rows a day per app among hundreds of polls.
    index('poll_runs_reconciled').on(t.appHandle, t.startedAt).where(sql`kind = 'reconcile'`),
  ],
);

export const reviews = sqliteTable(
  'reviews',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appHandle: text('app_handle')
      .notNull()
      .references(() => apps.handle),
    /** review_id when the API gave one, else `fp:` + the fingerprint (see catalog/review.ts). */
    identity: text('identity').notNull(),
    /** Hash of reviewer, date and content: matches a review whose id came back empty on another poll. */
    fingerprint: text('fingerprint').notNull(),
    reviewId: text('review_id').notNull(),
    reviewer: text('reviewer').notNull(),
    location: text('location').notNull(),
    rating: integer('rating').notNull(),
    content: text('content').notNull(),
    /** review_created_date as the API sent it. */
    createdDate: text('created_date').notNull(),
    /** The same, parsed; null for "Invalid Date" and other unparseable values. */
    createdAt: timestamp('created_at'),
    timeUsingApp: text('time_using_app').notNull(),
    appName: text('app_name').notNull(),
    appUrl: text('app_url').notNull(),
    /** Stored by a baseline poll: history, never alerted on. */
    fromBaseline: integer('from_baseline', { mode: 'boolean' }).notNull(),
    firstSeenAt: timestamp('first_seen_at').notNull(),
    updatedAt: timestamp('updated_at').notNull(),
    pollRunId: integer('poll_run_id')
      .notNull()
      .references(() => pollRuns.id),
    /**
     * When a reconciliation found it gone from the listing (archived or deleted); cleared when it is
     * published again. The row stays: reviews are never deleted.
     */
    removedAt: timestamp('removed_at'),
    /**
     * The review's topics (src/topics: `topicsOf`), each with the review's words that put it there, as
     * `[{name, words}]`; `[]` for none, and until they are first computed.
     */
    topics: text('topics', { mode: 'json' }).$type<StoredTopic[]>().notNull().default(sql`'[]'`),
    /**
     * The version of the taxonomy that computed `topics` (`Taxonomy.version`); null until computed. A
     * different one means the topic config changed: the start recomputes them (store/topic-backfill.ts).
     */
    topicsVersion: text('topics_version'),
  },
  (t) => [
    uniqueIndex('reviews_app_identity').on(t.appHandle, t.identity),
    index('reviews_app_fingerprint').on(t.appHandle, t.fingerprint),
    index('reviews_app_first_seen').on(t.appHandle, t.firstSeenAt),
    index('reviews_app_created').on(t.appHandle, t.createdAt),
    // The few reviews the marketplace removed, for `status` to count without reading every review.
    index('reviews_app_removed').on(t.appHandle, t.removedAt).where(sql`removed_at is not null`),
    // The poll-run indexes here and below serve the prune (store/retention.ts): SQLite checks every child
    // table when a poll run is deleted, and without an index that is a full scan per deleted row.
    index('reviews_poll_run').on(t.pollRunId),
    // The backfill finds the reviews still to compute, and `status` counts them, without reading each row.
    index('reviews_topics_version').on(t.topicsVersion),
    // Also on this table, outside the schema because drizzle-kit cannot write them (drizzle/0008_inbox.sql,
    // 0009_fts_stemmed.sql, 0010_fts_by_date.sql, 0016_inbox_views.sql): the inbox's indexes on
    // coalesce(created_at, first_seen_at) and on first_seen_at (reviews_seen),
    // and the full-text index reviews_fts (keyed by that date's hour and the id) with the triggers that keep
    // it in sync, and the triggers of the day counts (0020, 0023). A rebuild of this table by
    // drizzle-kit drops the triggers: a generated migration that rebuilds `reviews` must recreate them (test/store/inbox-migration.test.ts checks). No view may select
    // from `reviews`: SQLite would refuse the rename that ends such a rebuild (docs/stack-notes.md).
  ],
);

/** A merchant edit of a stored review: what it was and what it became. */
export const reviewEdits = sqliteTable(
  'review_edits',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    reviewRowId: integer('review_row_id')
      .notNull()
      .references(() => reviews.id),
    appHandle: text('app_handle').notNull(),
    oldRating: integer('old_rating').notNull(),
    newRating: integer('new_rating').notNull(),
    oldContent: text('old_content').notNull(),
    newContent: text('new_content').notNull(),
    oldCreatedDate: text('old_created_date').notNull(),
    newCreatedDate: text('new_created_date').notNull(),
    detectedAt: timestamp('detected_at').notNull(),
    pollRunId: integer('poll_run_id')
      .notNull()
      .references(() => pollRuns.id),
  },
  (t) => [
    index('review_edits_app_detected').on(t.appHandle, t.detectedAt),
    index('review_edits_poll_run').on(t.pollRunId),
  ],
);

/** The listing's rating as the review summary showed it at one poll. */
export const ratingSnapshots = sqliteTable(
  'rating_snapshots',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appHandle: text('app_handle')
      .notNull()
      .references(() => apps.handle),
    takenAt: timestamp('taken_at').notNull(),
    /** Null when a count was missing from the summary. */
    average: real('average'),
    count: integer('count'),
    stars1: integer('stars_1'),
    stars2: integer('stars_2'),
    stars3: integer('stars_3'),
    stars4: integer('stars_4'),
    stars5: integer('stars_5'),
    pollRunId: integer('poll_run_id')
      .notNull()
      .references(() => pollRuns.id),
  },
  (t) => [
    index('rating_snapshots_app_taken').on(t.appHandle, t.takenAt),
    index('rating_snapshots_poll_run').on(t.pollRunId),
  ],
);

/**
 * The outbox: an alert is written in the same transaction as the reviews or snapshot that caused it,
 * with one delivery per channel it routes to. The notify queue only moves deliveries along.
 */
export const alerts = sqliteTable(
  'alerts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appHandle: text('app_handle')
      .notNull()
      .references(() => apps.handle),
    /** A type only (no CHECK in SQL): a new kind needs no migration (src/kinds.ts). */
    kind: text('kind', { enum: ALERT_KIND_NAMES }).notNull(),
    /** What the alert is about, so a retried or concurrent poll cannot raise it twice. */
    dedupeKey: text('dedupe_key').notNull(),
    priority: text('priority', { enum: PRIORITIES }).notNull(),
    score: integer('score'),
    /** The review this alert is about (review alerts). */
    reviewRowId: integer('review_row_id').references(() => reviews.id),
    /** The Alert (alerts/types.ts) as JSON: what renderers need, frozen when it was raised. */
    payload: text('payload', { mode: 'json' }).notNull(),
    createdAt: timestamp('created_at').notNull(),
    pollRunId: integer('poll_run_id').references(() => pollRuns.id),
  },
  (t) => [
    uniqueIndex('alerts_dedupe').on(t.dedupeKey),
    index('alerts_app_created').on(t.appHandle, t.createdAt),
    index('alerts_poll_run').on(t.pollRunId),
    // A review's alerts: its priority in the inbox, and its page.
    index('alerts_review').on(t.reviewRowId),
    /**
     * The alerts whose payload the prune has not emptied yet (store/retention.ts): partial, so the daily
     * prune reads only those, not every alert ever raised.
     */
    index('alerts_unpruned_created').on(t.createdAt).where(sql`payload <> '{}'`),
  ],
);

export const deliveries = sqliteTable(
  'deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    alertId: integer('alert_id')
      .notNull()
      .references(() => alerts.id),
    channel: text('channel').notNull(),
    appHandle: text('app_handle').notNull(),
    /**
     * pending: to send; held: waiting for the app's next grouped message on this channel (throttle);
     * sent; failed: permanently, with the reason (retry with `reviewwatch notify retry`).
     */
    status: text('status', { enum: ['pending', 'held', 'sent', 'failed'] }).notNull(),
    /** Deliveries sharing a group key go out as one message. */
    groupKey: text('group_key'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamp('created_at').notNull(),
    sentAt: timestamp('sent_at'),
    /**
     * When the throttle last held it: an app's held alerts on a channel go out at most
     * `alerts.throttle.maxHold` after the first of them was held.
     */
    heldAt: timestamp('held_at'),
  },
  (t) => [
    uniqueIndex('deliveries_alert_channel').on(t.alertId, t.channel),
    index('deliveries_status').on(t.status, t.channel),
    index('deliveries_channel_app_sent').on(t.channel, t.appHandle, t.sentAt),
    index('deliveries_group').on(t.groupKey),
  ],
);

/**
 * One row per digest period and recipient channel: the unique key is what makes a digest go out once,
 * however many workers run and however often they restart.
 */
export const digestRuns = sqliteTable(
  'digest_runs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    /** The period's start, as an ISO date-time in the digest's time zone (e.g. 2026-11-16T00:00:00+01:00). */
    periodStart: text('period_start').notNull(),
    periodEnd: text('period_end').notNull(),
    channel: text('channel').notNull(),
    /** claimed: a worker is sending it; sent; failed (with the reason; the job retries with backoff). */
    status: text('status', { enum: ['claimed', 'sent', 'failed'] }).notNull(),
    claimedAt: timestamp('claimed_at').notNull(),
    sentAt: timestamp('sent_at'),
    error: text('error'),
    subject: text('subject'),
  },
  (t) => [uniqueIndex('digest_runs_period_channel').on(t.periodStart, t.channel)],
);

export const TRIAGE_STATUSES = ['new', 'acknowledged', 'resolved', 'ignored'] as const;

/**
 * Where a support team is with one review (store/triage.ts). A review without a row is `new`: rows are
 * written by people, a few per review at most, never by a poll.
 */
export const reviewTriage = sqliteTable(
  'review_triage',
  {
    reviewRowId: integer('review_row_id')
      .primaryKey()
      .references(() => reviews.id),
    status: text('status', { enum: TRIAGE_STATUSES }).notNull().default('new'),
    /** A user's name (users.name); kept as text so the history stays readable after the user is removed. */
    assignee: text('assignee'),
    updatedAt: timestamp('updated_at').notNull(),
    updatedBy: text('updated_by').notNull(),
  },
  (t) => [index('review_triage_status').on(t.status), index('review_triage_assignee').on(t.assignee)],
);

/** Free tags a person put on a review. */
export const reviewTags = sqliteTable(
  'review_tags',
  {
    reviewRowId: integer('review_row_id')
      .notNull()
      .references(() => reviews.id),
    tag: text('tag').notNull(),
    addedAt: timestamp('added_at').notNull(),
    addedBy: text('added_by').notNull(),
  },
  (t) => [primaryKey({ columns: [t.reviewRowId, t.tag] }), index('review_tags_tag').on(t.tag)],
);

/** The built-in topics' counters of a day's row (store/day-row-topics.ts), none of them read through drizzle. */
function dayRowTopicColumns() {
  return Object.fromEntries(
    DAY_ROW_COLUMNS.flatMap(({ reviews, stars }) =>
      [reviews, stars].map((column) => [column, integer(column).notNull().default(0)]),
    ),
  );
}

/**
 * Per app and UTC day (`day`: days since 1970-01-01 of the inbox's date, coalesce(created_at,
 * first_seen_at)), how many reviews it has and their stars: what a trend's periods add up to over months
 * without reading the reviews (store/period-counts.ts). Written with each insert (store/review-index.ts)
 * and kept by triggers on `reviews` (drizzle/0020_day_counts.sql, which also makes both tables WITHOUT
 * ROWID, a thing drizzle-kit cannot say: a generated rebuild of them would lose it); a day with no review
 * has no row. The built-in topics' reviews and stars of the day are in its row too
 * (drizzle/0024_topic_counts_in_day_row.sql).
 */
export const reviewDayCounts = sqliteTable(
  'review_day_counts',
  {
    appHandle: text('app_handle').notNull(),
    day: integer('day').notNull(),
    reviews: integer('reviews').notNull(),
    stars: integer('stars').notNull(),
    ...dayRowTopicColumns(),
  },
  (t) => [primaryKey({ columns: [t.appHandle, t.day] })],
);

/**
 * The same per topic outside the day's row (custom topics), from each review's `topics` column: written with
 * each insert (store/review-index.ts), and kept by the triggers on `reviews`
 * (drizzle/0023_topic_counts_from_column.sql, 0024_topic_counts_in_day_row.sql).
 */
export const topicDayCounts = sqliteTable(
  'topic_day_counts',
  {
    appHandle: text('app_handle').notNull(),
    day: integer('day').notNull(),
    topic: text('topic').notNull(),
    reviews: integer('reviews').notNull(),
    stars: integer('stars').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.appHandle, t.day, t.topic] }),
    // The app-days holding a custom topic, for the inbox's filter on a rare one (store/inbox/plan.ts).
    index('topic_day_counts_topic').on(t.topic, t.day, t.appHandle),
  ],
);

/** A review's notes thread: append-only. */
export const reviewNotes = sqliteTable(
  'review_notes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    reviewRowId: integer('review_row_id')
      .notNull()
      .references(() => reviews.id),
    author: text('author').notNull(),
    body: text('body').notNull(),
    createdAt: timestamp('created_at').notNull(),
  },
  (t) => [index('review_notes_review').on(t.reviewRowId)],
);

/**
 * The audit trail of triage: one row per field a change touched, with who and when. `actor` is a user's
 * name, `@token` for a script using REVIEWWATCH_ADMIN_TOKEN, or `@system` for what reviewwatch did itself
 * (a re-rated review reopened). A tag added has only `new_value`, a tag removed only `old_value`; a note
 * has its id as `new_value`.
 */
export const triageEvents = sqliteTable(
  'triage_events',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    reviewRowId: integer('review_row_id')
      .notNull()
      .references(() => reviews.id),
    actor: text('actor').notNull(),
    at: timestamp('at').notNull(),
    field: text('field', { enum: ['status', 'assignee', 'tag', 'note'] }).notNull(),
    oldValue: text('old_value'),
    newValue: text('new_value'),
    /** Why, when the actor is not a person: "re-rated from 4 to 2 stars". */
    reason: text('reason'),
  },
  (t) => [
    index('triage_events_review').on(t.reviewRowId, t.at),
    index('triage_events_field_at').on(t.field, t.at),
  ],
);

/** People who may open the inbox (`reviewwatch user add`). */
export const users = sqliteTable('users', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull().unique(),
  email: text('email'),
  /** `scrypt$N$r$p$salt$hash` (web/passwords.ts); the password itself is never stored. */
  passwordHash: text('password_hash').notNull(),
  createdAt: timestamp('created_at').notNull(),
});

/** A browser's login: the cookie holds a random token, this table only its SHA-256. */
export const webSessions = sqliteTable(
  'web_sessions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    tokenHash: text('token_hash').notNull().unique(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id),
    /** Sent back with every form and state-changing API call made with this session's cookie. */
    csrfToken: text('csrf_token').notNull(),
    createdAt: timestamp('created_at').notNull(),
    expiresAt: timestamp('expires_at').notNull(),
  },
  (t) => [index('web_sessions_user').on(t.userId), index('web_sessions_expires').on(t.expiresAt)],
);

/**
 * The market watch (docs/architecture.md, "The market"): category snapshots, listing versions and
 * developers' apps, each read on its own schedule and kept under `retention` like rating snapshots.
 */
export const categories = sqliteTable('categories', {
  handle: text('handle').primaryKey(),
  /** When the first snapshot was stored: entrants are judged against the history from then on. */
  baselineAt: timestamp('baseline_at'),
  lastSnapshotAt: timestamp('last_snapshot_at'),
  /** Set when the API answered 404 for the handle; cleared when it answers again. */
  unavailableSince: timestamp('unavailable_since'),
  unavailableReason: text('unavailable_reason'),
  lastError: text('last_error'),
});

export const categorySnapshots = sqliteTable(
  'category_snapshots',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    categoryHandle: text('category_handle')
      .notNull()
      .references(() => categories.handle),
    takenAt: timestamp('taken_at').notNull(),
    /** `failed` or `unavailable` snapshots are gaps: their `snapshot` is null, never rank 0. */
    status: text('status', { enum: ['ok', 'failed', 'unavailable'] }).notNull(),
    requests: integer('requests').notNull(),
    /** The CategorySnapshot (src/market/snapshot.ts) as JSON: organic ranks, ads, badges, ratings. */
    snapshot: text('snapshot', { mode: 'json' }),
    error: text('error'),
  },
  (t) => [index('category_snapshots_category_taken').on(t.categoryHandle, t.takenAt)],
);

/** One row per app and successful snapshot, for the charts and the overview by app. */
export const categoryRanks = sqliteTable(
  'category_ranks',
  {
    snapshotId: integer('snapshot_id')
      .notNull()
      .references(() => categorySnapshots.id),
    categoryHandle: text('category_handle').notNull(),
    appHandle: text('app_handle').notNull(),
    takenAt: timestamp('taken_at').notNull(),
    /** Organic rank from 1; null when the app holds only a sponsored slot. */
    rank: integer('rank'),
    sponsored: integer('sponsored', { mode: 'boolean' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.snapshotId, t.appHandle] }),
    index('category_ranks_app_taken').on(t.appHandle, t.takenAt),
    index('category_ranks_category_taken').on(t.categoryHandle, t.takenAt),
  ],
);

/** Every app a category's tracked pages ever ranked organically: new entrants survive pruned snapshots. */
export const categoryAppsSeen = sqliteTable(
  'category_apps_seen',
  {
    categoryHandle: text('category_handle').notNull(),
    appHandle: text('app_handle').notNull(),
    firstSeenAt: timestamp('first_seen_at').notNull(),
    lastSeenAt: timestamp('last_seen_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.categoryHandle, t.appHandle] })],
);

/** A watched app's listing (endpoint 3), normalised; a new version only when its hash moves. */
export const listingVersions = sqliteTable(
  'listing_versions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appHandle: text('app_handle').notNull(),
    hash: text('hash').notNull(),
    /** The NormalizedListing (src/market/listing.ts) as JSON. */
    listing: text('listing', { mode: 'json' }).notNull(),
    /** Badge and rating as the detail gave them; not part of the hash. */
    builtFor: integer('built_for', { mode: 'boolean' }),
    rating: real('rating'),
    firstSeenAt: timestamp('first_seen_at').notNull(),
    lastSeenAt: timestamp('last_seen_at').notNull(),
  },
  (t) => [index('listing_versions_app').on(t.appHandle, t.id)],
);

/** What changed between two listing versions, field by field (src/market/listing.ts, ListingChange). */
export const listingChanges = sqliteTable(
  'listing_changes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    appHandle: text('app_handle').notNull(),
    versionId: integer('version_id')
      .notNull()
      .references(() => listingVersions.id),
    field: text('field').notNull(),
    /** The ListingChange as JSON. */
    change: text('change', { mode: 'json' }).notNull(),
    /** Whether it alerted (not when `listing.ignore` names its field, or the change is too small). */
    alerted: integer('alerted', { mode: 'boolean' }).notNull(),
    at: timestamp('at').notNull(),
  },
  (t) => [index('listing_changes_app_at').on(t.appHandle, t.at)],
);

export const developers = sqliteTable('developers', {
  handle: text('handle').primaryKey(),
  name: text('name'),
  checkedAt: timestamp('checked_at'),
  unavailableSince: timestamp('unavailable_since'),
  unavailableReason: text('unavailable_reason'),
});

/** The apps a watched app's developer publishes (endpoint 4); `removed_at` once they are gone. */
export const developerApps = sqliteTable(
  'developer_apps',
  {
    developerHandle: text('developer_handle')
      .notNull()
      .references(() => developers.handle),
    appHandle: text('app_handle').notNull(),
    name: text('name'),
    firstSeenAt: timestamp('first_seen_at').notNull(),
    removedAt: timestamp('removed_at'),
  },
  (t) => [primaryKey({ columns: [t.developerHandle, t.appHandle] })],
);

/** Every market request run, for the credit plan and `status` (requests a day by kind). */
export const marketRuns = sqliteTable(
  'market_runs',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    kind: text('kind', { enum: ['category', 'listing', 'developer'] }).notNull(),
    subject: text('subject').notNull(),
    startedAt: timestamp('started_at').notNull(),
    finishedAt: timestamp('finished_at').notNull(),
    status: text('status', { enum: ['ok', 'failed', 'unavailable'] }).notNull(),
    requests: integer('requests').notNull(),
    error: text('error'),
  },
  (t) => [index('market_runs_kind_started').on(t.kind, t.startedAt)],
);

export type CategorySnapshotRow = typeof categorySnapshots.$inferSelect;
export type ListingVersionRow = typeof listingVersions.$inferSelect;
export type ListingChangeRow = typeof listingChanges.$inferSelect;
export type MarketRunRow = typeof marketRuns.$inferSelect;

export type AppRow = typeof apps.$inferSelect;
export type DigestRunRow = typeof digestRuns.$inferSelect;
export type AlertRow = typeof alerts.$inferSelect;
export type DeliveryRow = typeof deliveries.$inferSelect;
export type ReviewRow = typeof reviews.$inferSelect;
export type NewReviewRow = typeof reviews.$inferInsert;
export type PollRunRow = typeof pollRuns.$inferSelect;
export type RatingSnapshotRow = typeof ratingSnapshots.$inferSelect;
export type ReviewEditRow = typeof reviewEdits.$inferSelect;
export type ReviewTriageRow = typeof reviewTriage.$inferSelect;
export type TriageStatus = (typeof TRIAGE_STATUSES)[number];
export type TriageEventRow = typeof triageEvents.$inferSelect;
export type ReviewNoteRow = typeof reviewNotes.$inferSelect;
export type UserRow = typeof users.$inferSelect;
