/**
 * The store reads a digest needs. A review belongs to the period of its own date (review-time.ts: a
 * date-only one by its day in the digest's zone, one with a time of day as an instant); one whose date
 * could not be parsed counts from when it was first seen. Baseline reviews count like any other: the
 * digest is about what customers said that week, not about what alerted. A review the marketplace removed
 * (`removed_at`, set by a reconciliation) is neither counted nor quoted: readers compare the digest with
 * the listing, and "worst review this week" must be one they can still find there. So the reviews of a
 * week are those listed when the digest is made: one removed after its week drops out of later trends.
 */
import { and, asc, desc, eq, inArray, isNotNull, isNull, lt, lte, type SQL, sql } from 'drizzle-orm';
import { PRIORITIES, type Priority } from '../alerts/types.js';
import type { Db } from '../store/db.js';
import { priorityRankSql } from '../store/inbox.js';
import {
  alerts,
  apps,
  deliveries,
  type ReviewRow,
  ratingSnapshots,
  reviewEdits,
  reviews,
} from '../store/schema.js';
import { SYSTEM_ACTOR } from '../store/triage.js';
import { firstDayFrom } from './period.js';
import { DAY_DATE_GLOBS, type DatedReview } from './review-time.js';
import type { Acknowledgement } from './triage.js';
import type { DigestReview, FailedAlert, RatingDropNote, RatingPoint, WorstCandidate } from './types.js';

/** A period as instants, and as the local days a review dated by day alone is compared with. */
export interface Window {
  start: Date;
  end: Date;
  /** The first local day whose midnight is in the window, and the first one past it (yyyy-MM-dd). */
  firstDay: string;
  endDay: string;
}

export function windowOf(range: { start: Date; end: Date }, timezone: string): Window {
  return {
    start: range.start,
    end: range.end,
    firstDay: firstDayFrom(range.start, timezone),
    endDay: firstDayFrom(range.end, timezone),
  };
}

/** Dated by day alone (review-time.ts): compared by its written day, not as midnight UTC. */
const dayDated = sql`(${reviews.createdAt} is not null and (${reviews.createdDate} glob ${DAY_DATE_GLOBS[0]} or ${reviews.createdDate} glob ${DAY_DATE_GLOBS[1]}))`;
const writtenDay = sql`substr(${reviews.createdDate}, 1, 10)`;
/** An instant: the review's own, or when it was first seen when its date could not be parsed. */
const reviewTime = sql`coalesce(${reviews.createdAt}, ${reviews.firstSeenAt})`;

/** Listed reviews of these apps dated in the window. */
function reviewedWithin(handles: string[], w: Window): SQL | undefined {
  return and(
    inArray(reviews.appHandle, handles),
    isNull(reviews.removedAt),
    sql`(case when ${dayDated} then ${writtenDay} >= ${w.firstDay} and ${writtenDay} < ${w.endDay}
      else ${reviewTime} >= ${w.start.getTime()} and ${reviewTime} < ${w.end.getTime()} end)`,
  );
}

export function appTitles(db: Db, handles: string[]): Map<string, string | null> {
  if (handles.length === 0) return new Map();
  const rows = db
    .select({ handle: apps.handle, title: apps.title })
    .from(apps)
    .where(inArray(apps.handle, handles))
    .all();
  return new Map(rows.map((r) => [r.handle, r.title]));
}

/** Reviews per app and star rating in the window. */
export function ratingCounts(
  db: Db,
  handles: string[],
  w: Window,
): Array<{ handle: string; rating: number; n: number }> {
  if (handles.length === 0) return [];
  return db
    .select({ handle: reviews.appHandle, rating: reviews.rating, n: sql<number>`count(*)` })
    .from(reviews)
    .where(reviewedWithin(handles, w))
    .groupBy(reviews.appHandle, reviews.rating)
    .all();
}

/** The dates of each review in the window, per app: enough to place them in weeks (review-time.ts). */
export function reviewDates(db: Db, handles: string[], w: Window): Array<DatedReview & { handle: string }> {
  if (handles.length === 0) return [];
  return db
    .select({
      handle: reviews.appHandle,
      createdDate: reviews.createdDate,
      createdAt: reviews.createdAt,
      firstSeenAt: reviews.firstSeenAt,
    })
    .from(reviews)
    .where(reviewedWithin(handles, w))
    .all();
}

function toDigestReview(row: ReviewRow): DigestReview {
  return {
    reviewId: row.reviewId,
    reviewer: row.reviewer,
    location: row.location,
    rating: row.rating,
    content: row.content,
    createdDate: row.createdDate,
    timeUsingApp: row.timeUsingApp,
    at: row.createdAt ?? row.firstSeenAt,
  };
}

/**
 * The latest edit before `before` that lowered each review to its current rating: scoring ranks a
 * re-rating down above the same rating given fresh, as the alerts do.
 */
function previousRatings(db: Db, rows: ReviewRow[], before: Date): Map<number, number> {
  const result = new Map<number, number>();
  if (rows.length === 0) return result;
  const edits = db
    .select({ id: reviewEdits.reviewRowId, old: reviewEdits.oldRating, now: reviewEdits.newRating })
    .from(reviewEdits)
    .where(
      and(
        inArray(
          reviewEdits.reviewRowId,
          rows.map((r) => r.id),
        ),
        lt(reviewEdits.detectedAt, before),
      ),
    )
    .orderBy(asc(reviewEdits.detectedAt), asc(reviewEdits.id))
    .all();
  const current = new Map(rows.map((r) => [r.id, r.rating]));
  // Ascending: a later edit of the same review overwrites an earlier one.
  for (const edit of edits) {
    if (edit.now === current.get(edit.id) && edit.old > edit.now) result.set(edit.id, edit.old);
    else result.delete(edit.id);
  }
  return result;
}

/**
 * Every review of the window at or below `maxRating`, per app, with the rating it was re-rated from and its
 * stored topics (its severity reads them).
 */
export function reviewsAtMost(
  db: Db,
  handles: string[],
  w: Window,
  maxRating: number,
): Map<string, WorstCandidate[]> {
  const byApp = new Map<string, WorstCandidate[]>();
  if (handles.length === 0) return byApp;
  const rows = db
    .select()
    .from(reviews)
    .where(and(reviewedWithin(handles, w), lte(reviews.rating, maxRating)))
    .all();
  const previous = previousRatings(db, rows, w.end);
  for (const row of rows) {
    const review = { ...toDigestReview(row), topics: row.topics, topicsVersion: row.topicsVersion };
    const from = previous.get(row.id);
    const list = byApp.get(row.appHandle) ?? [];
    list.push(from === undefined ? review : { ...review, previousRating: from });
    byApp.set(row.appHandle, list);
  }
  return byApp;
}

/** The app's longest 5-star reviews of the window (SQLite's length() counts characters, not bytes). */
export function longestFiveStar(db: Db, handle: string, w: Window, limit: number): DigestReview[] {
  return db
    .select()
    .from(reviews)
    .where(and(reviewedWithin([handle], w), eq(reviews.rating, 5)))
    .orderBy(desc(sql`length(trim(${reviews.content}))`), desc(reviewTime), asc(reviews.reviewId))
    .limit(limit)
    .all()
    .map(toDigestReview);
}

/** The listing's rating as the latest snapshot with an average taken before `before` showed it. */
export function ratingBefore(db: Db, handle: string, before: Date): RatingPoint | null {
  const row = db
    .select({ average: ratingSnapshots.average, count: ratingSnapshots.count, at: ratingSnapshots.takenAt })
    .from(ratingSnapshots)
    .where(
      and(
        eq(ratingSnapshots.appHandle, handle),
        lt(ratingSnapshots.takenAt, before),
        isNotNull(ratingSnapshots.average),
      ),
    )
    .orderBy(desc(ratingSnapshots.takenAt), desc(ratingSnapshots.id))
    .limit(1)
    .get();
  if (row === undefined || row.average === null) return null;
  return { average: row.average, count: row.count, at: row.at };
}

/**
 * Deliveries that failed for good and still are, of alerts raised before the period's end: those raised
 * in the period, and older ones nobody has retried yet. Most recent first.
 */
export function failedDeliveries(db: Db, handles: string[], w: Window): Map<string, FailedAlert[]> {
  const byApp = new Map<string, FailedAlert[]>();
  if (handles.length === 0) return byApp;
  const rows = db
    .select({
      handle: deliveries.appHandle,
      channel: deliveries.channel,
      lastError: deliveries.lastError,
      kind: alerts.kind,
      priority: alerts.priority,
      payload: alerts.payload,
      alertAt: alerts.createdAt,
    })
    .from(deliveries)
    .innerJoin(alerts, eq(alerts.id, deliveries.alertId))
    .where(
      and(
        eq(deliveries.status, 'failed'),
        inArray(deliveries.appHandle, handles),
        lt(alerts.createdAt, w.end),
      ),
    )
    .orderBy(desc(alerts.createdAt), desc(deliveries.id))
    .all();
  for (const row of rows) {
    const list = byApp.get(row.handle) ?? [];
    list.push({
      kind: row.kind,
      priority: row.priority,
      channel: row.channel,
      reason: row.lastError ?? 'no reason recorded',
      payload: row.payload,
      alertAt: row.alertAt,
      inPeriod: row.alertAt.getTime() >= w.start.getTime(),
    });
    byApp.set(row.handle, list);
  }
  return byApp;
}

/**
 * The rating drops raised in the period per app, oldest first: those that alerted, those said as a line
 * on review alerts and the competitors' kept for the digest (alerts.ratingDrop.competitors). Payloads
 * are frozen JSON, maybe of an older version: one without its two averages is left out.
 */
export function ratingDrops(db: Db, handles: string[], w: Window): Map<string, RatingDropNote[]> {
  const byApp = new Map<string, RatingDropNote[]>();
  if (handles.length === 0) return byApp;
  const rows = db
    .select({ handle: alerts.appHandle, payload: alerts.payload, at: alerts.createdAt })
    .from(alerts)
    .where(
      and(
        eq(alerts.kind, 'rating-drop'),
        inArray(alerts.appHandle, handles),
        sql`${alerts.createdAt} >= ${w.start.getTime()}`,
        lt(alerts.createdAt, w.end),
      ),
    )
    .orderBy(asc(alerts.createdAt), asc(alerts.id))
    .all();
  for (const row of rows) {
    const payload = row.payload as { from?: { average?: unknown }; to?: { average?: unknown } } | null;
    const from = payload?.from?.average;
    const to = payload?.to?.average;
    if (typeof from !== 'number' || typeof to !== 'number') continue;
    byApp.set(row.handle, [...(byApp.get(row.handle) ?? []), { from, to, at: row.at }]);
  }
  return byApp;
}

/** A priority's rank, most urgent 0: the inbox's own (store/inbox.ts), so the two count alike. */
const PRIORITY_RANK = sql.raw(priorityRankSql('a'));

function handleList(handles: string[]): SQL {
  return sql.join(
    handles.map((h) => sql`${h}`),
    sql`, `,
  );
}

/**
 * Reviews with a review alert whose triage is `new` or `acknowledged` now (no triage row is `new`),
 * counted per the highest priority of their alerts: what the inbox lists for `status=new,acknowledged`
 * over all dates and stars, so the digest's link shows the reviews it counted. Removed reviews count,
 * as the inbox lists them: the complaint may still need an answer. Read from the alerts, which are few,
 * rather than from every review.
 */
export function openReviewsByPriority(db: Db, handles: string[]): Array<{ priority: Priority; n: number }> {
  if (handles.length === 0) return [];
  const rows = db.all<{ rank: number; n: number }>(sql`
    select x.rank as rank, count(*) as n
    from (
      select a.review_row_id as id, min(${PRIORITY_RANK}) as rank
      from alerts a
      where a.kind = 'review' and a.review_row_id is not null
        and a.app_handle in (${handleList(handles)})
      group by a.review_row_id
    ) x
    left join review_triage t on t.review_row_id = x.id
    where coalesce(t.status, 'new') in ('new', 'acknowledged')
    group by x.rank`);
  return rows.flatMap((r) => {
    const priority = PRIORITIES[r.rank];
    return priority === undefined ? [] : [{ priority, n: r.n }];
  });
}

/**
 * The reviews a person first took off `new` (acknowledged, or straight to resolved or ignored) within the
 * window, each with its first review alert raised before then and that alert's first delivery. A review
 * reopened and acknowledged again counts by its first acknowledgement only; one acknowledged before any
 * alert about it is not counted (there was nothing to respond to).
 */
export function acknowledgements(
  db: Db,
  handles: string[],
  w: { start: Date; end: Date },
): Acknowledgement[] {
  if (handles.length === 0) return [];
  const start = w.start.getTime();
  const end = w.end.getTime();
  const rows = db.all<{ ackAt: number; raisedAt: number | null; sentAt: number | null }>(sql`
    with acked as (
      select e.review_row_id as id, min(e.at) as at
      from triage_events e
      where e.field = 'status' and e.old_value = 'new' and e.actor <> ${SYSTEM_ACTOR}
        and e.review_row_id in (
          select review_row_id from triage_events where field = 'status' and at >= ${start} and at < ${end}
        )
      group by e.review_row_id
    )
    select acked.at as ackAt,
      (select min(a.created_at) from alerts a
        where a.review_row_id = acked.id and a.kind = 'review' and a.created_at <= acked.at) as raisedAt,
      (select min(d.sent_at) from alerts a join deliveries d on d.alert_id = a.id
        where a.review_row_id = acked.id and a.kind = 'review' and a.created_at <= acked.at
          and d.sent_at is not null) as sentAt
    from acked join reviews r on r.id = acked.id
    where acked.at >= ${start} and acked.at < ${end} and r.app_handle in (${handleList(handles)})`);
  return rows.flatMap((r) =>
    r.raisedAt === null
      ? []
      : [
          {
            acknowledgedAt: new Date(r.ackAt),
            raisedAt: new Date(r.raisedAt),
            firstSentAt: r.sentAt === null ? null : new Date(r.sentAt),
          },
        ],
  );
}
