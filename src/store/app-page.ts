/**
 * What the inbox's page of one app shows: its rating over time from the snapshots, its weekly review
 * volume by stars, its rating distribution now and some weeks ago, how many low reviews are still open,
 * and its rating-drop and incident alerts.
 */
import { and, count, desc, eq, gte, inArray, isNotNull, lt, lte, type SQL, sql } from 'drizzle-orm';
import type { StoreDb } from './db.js';
import { RAISED_ALERT } from './outbox.js';
import { bound, preparedOnce } from './prepared.js';
import { alerts, apps, ratingSnapshots, reviews, reviewTriage } from './schema.js';

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** 1970-01-05, a Monday: weeks start on Mondays (UTC). */
const FIRST_MONDAY_MS = 4 * DAY_MS;

export interface RatingPoint {
  /** The last snapshot of its day (UTC). */
  at: Date;
  average: number;
  count: number | null;
}

export interface Distribution {
  at: Date;
  /** Reviews with 1 to 5 stars, index 0 for 1 star. */
  stars: [number, number, number, number, number];
}

export interface WeekVolume {
  /** Monday 00:00 UTC. */
  week: Date;
  /** New reviews dated in that week, index 0 for 1 star. */
  stars: [number, number, number, number, number];
}

export interface AppAlert {
  id: number;
  kind: 'rating-drop' | 'incident';
  priority: string;
  createdAt: Date;
  /** The averages a rating-drop alert quoted (from, to): the rating chart's axis covers them. */
  quoted: number[];
}

export interface AppPage {
  handle: string;
  /** The listing's name as last stored. */
  title: string | null;
  known: boolean;
  ratings: RatingPoint[];
  distributionNow: Distribution | undefined;
  distributionBefore: Distribution | undefined;
  weeks: WeekVolume[];
  /** Low-rated reviews whose status is new or acknowledged. */
  open: number;
  alerts: AppAlert[];
}

const DATED = sql`coalesce(${reviews.createdAt}, ${reviews.firstSeenAt})`;

const SNAPSHOT = {
  at: ratingSnapshots.takenAt,
  average: ratingSnapshots.average,
  count: ratingSnapshots.count,
  s1: ratingSnapshots.stars1,
  s2: ratingSnapshots.stars2,
  s3: ratingSnapshots.stars3,
  s4: ratingSnapshots.stars4,
  s5: ratingSnapshots.stars5,
};

const statements = preparedOnce((db: StoreDb) => {
  const ofApp = eq(ratingSnapshots.appHandle, bound(ratingSnapshots.appHandle, 'handle'));
  /** The latest snapshot with a distribution, at or before `until`. */
  const lastDistribution = (until?: SQL) =>
    db
      .select(SNAPSHOT)
      .from(ratingSnapshots)
      .where(and(ofApp, until && lte(ratingSnapshots.takenAt, until), isNotNull(ratingSnapshots.stars1)))
      .orderBy(desc(ratingSnapshots.takenAt), desc(ratingSnapshots.id))
      .limit(1)
      .prepare();
  return {
    app: db
      .select({ title: apps.title })
      .from(apps)
      .where(eq(apps.handle, bound(apps.handle, 'handle')))
      .prepare(),
    snapshots: db
      .select(SNAPSHOT)
      .from(ratingSnapshots)
      .where(and(ofApp, gte(ratingSnapshots.takenAt, bound(ratingSnapshots.takenAt, 'from'))))
      .orderBy(ratingSnapshots.takenAt, ratingSnapshots.id)
      .prepare(),
    before: lastDistribution(bound(ratingSnapshots.takenAt, 'until')),
    latest: lastDistribution(),
    lastAverage: db
      .select(SNAPSHOT)
      .from(ratingSnapshots)
      .where(and(ofApp, isNotNull(ratingSnapshots.average)))
      .orderBy(desc(ratingSnapshots.takenAt), desc(ratingSnapshots.id))
      .limit(1)
      .prepare(),
    volume: db
      .select({
        // Literals, not parameters: a bound number is a REAL to SQLite, and the division must be an integer's.
        week: sql`(${DATED} - ${sql.raw(String(FIRST_MONDAY_MS))}) / ${sql.raw(String(WEEK_MS))}`.mapWith(
          Number,
        ),
        rating: reviews.rating,
        n: count(),
      })
      .from(reviews)
      .where(
        and(
          eq(reviews.appHandle, bound(reviews.appHandle, 'handle')),
          gte(DATED, bound(reviews.firstSeenAt, 'from')),
          lt(DATED, bound(reviews.firstSeenAt, 'until')),
        ),
      )
      .groupBy(sql`1`, reviews.rating)
      .prepare(),
    open: db
      .select({ n: count() })
      .from(reviews)
      .leftJoin(reviewTriage, eq(reviewTriage.reviewRowId, reviews.id))
      .where(
        and(
          eq(reviews.appHandle, bound(reviews.appHandle, 'handle')),
          lte(reviews.rating, bound(reviews.rating, 'maxRating')),
          inArray(sql`coalesce(${reviewTriage.status}, 'new')`, ['new', 'acknowledged']),
        ),
      )
      .prepare(),
    alerts: db
      .select(RAISED_ALERT)
      .from(alerts)
      .where(
        and(
          eq(alerts.appHandle, bound(alerts.appHandle, 'handle')),
          inArray(alerts.kind, ['rating-drop', 'incident']),
          gte(alerts.createdAt, bound(alerts.createdAt, 'from')),
        ),
      )
      .orderBy(alerts.createdAt, alerts.id)
      .prepare(),
  };
});

type SnapshotRow = NonNullable<ReturnType<ReturnType<typeof statements>['latest']['get']>>;

function distributionOf(row: SnapshotRow | undefined): Distribution | undefined {
  if (!row || [row.s1, row.s2, row.s3, row.s4, row.s5].some((n) => n === null)) return undefined;
  return {
    at: row.at,
    stars: [row.s1 ?? 0, row.s2 ?? 0, row.s3 ?? 0, row.s4 ?? 0, row.s5 ?? 0],
  };
}

export function appPage(
  db: StoreDb,
  handle: string,
  options: { now: Date; days: number; weeks: number; compareWeeks: number; maxRating: number },
): AppPage {
  const st = statements(db);
  const now = options.now.getTime();
  const from = new Date(now - options.days * DAY_MS);
  const app = st.app.get({ handle });
  // One point a day, its last snapshot: polls every few minutes would draw thousands of points.
  const daily = new Map<number, SnapshotRow>();
  for (const row of st.snapshots.all({ handle, from })) {
    if (row.average !== null) daily.set(Math.floor(row.at.getTime() / DAY_MS), row);
  }
  // Nothing in the span: the latest rating ever stored, so the chart is never empty while one exists.
  if (daily.size === 0) {
    const last = st.lastAverage.get({ handle });
    if (last) daily.set(0, last);
  }
  const ratings = [...daily.values()].map((row) => ({
    at: row.at,
    average: row.average ?? 0,
    count: row.count,
  }));
  const before = st.before.get({ handle, until: new Date(now - options.compareWeeks * WEEK_MS) });
  const latest = st.latest.get({ handle });

  const firstWeek = Math.floor((now - FIRST_MONDAY_MS) / WEEK_MS) - (options.weeks - 1);
  const weekStart = firstWeek * WEEK_MS + FIRST_MONDAY_MS;
  const weeks: WeekVolume[] = Array.from({ length: options.weeks }, (_, i) => ({
    week: new Date(weekStart + i * WEEK_MS),
    stars: [0, 0, 0, 0, 0],
  }));
  for (const row of st.volume.all({ handle, from: new Date(weekStart), until: new Date(now + DAY_MS) })) {
    const slot = weeks[row.week - firstWeek];
    if (slot && row.rating >= 1 && row.rating <= 5) {
      slot.stars[row.rating - 1] = (slot.stars[row.rating - 1] ?? 0) + row.n;
    }
  }

  const open = st.open.get({ handle, maxRating: options.maxRating })?.n ?? 0;
  const alerts = st.alerts
    .all({ handle, from })
    .flatMap(({ payload, ...a }) =>
      a.kind === 'rating-drop' || a.kind === 'incident'
        ? [{ ...a, kind: a.kind, quoted: quotedOf(payload) }]
        : [],
    );

  return {
    handle,
    title: app?.title ?? null,
    known: app !== undefined,
    ratings,
    distributionNow: distributionOf(latest),
    distributionBefore: distributionOf(before),
    weeks,
    open,
    alerts,
  };
}

/** The averages a rating-drop alert's payload quoted (alerts/types.ts RatingDropAlert), if it says. */
function quotedOf(payload: unknown): number[] {
  const p = payload as { from?: { average?: unknown }; to?: { average?: unknown } } | null;
  return [p?.from?.average, p?.to?.average].filter((v): v is number => typeof v === 'number');
}
