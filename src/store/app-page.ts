/**
 * What the inbox's page of one app shows: its rating over time from the snapshots, its weekly review
 * volume by stars, its rating distribution now and some weeks ago, how many low reviews are still open,
 * and its rating-drop and incident alerts.
 */
import type { StoreDb } from './db.js';

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

interface SnapshotRow {
  at: number;
  average: number | null;
  count: number | null;
  s1: number | null;
  s2: number | null;
  s3: number | null;
  s4: number | null;
  s5: number | null;
}

function distributionOf(row: SnapshotRow | undefined): Distribution | undefined {
  if (!row || [row.s1, row.s2, row.s3, row.s4, row.s5].some((n) => n === null)) return undefined;
  return {
    at: new Date(row.at),
    stars: [row.s1 ?? 0, row.s2 ?? 0, row.s3 ?? 0, row.s4 ?? 0, row.s5 ?? 0],
  };
}

export function appPage(
  db: StoreDb,
  handle: string,
  options: { now: Date; days: number; weeks: number; compareWeeks: number; maxRating: number },
): AppPage {
  const client = db.$client;
  const now = options.now.getTime();
  const app = client
    .prepare<[string], { title: string | null }>('select title from apps where handle = ?')
    .get(handle);
  const snapshots = client
    .prepare<[string, number], SnapshotRow>(
      `select taken_at as at, average, count, stars_1 as s1, stars_2 as s2, stars_3 as s3, stars_4 as s4,
       stars_5 as s5 from rating_snapshots where app_handle = ? and taken_at >= ? order by taken_at, id`,
    )
    .all(handle, now - options.days * DAY_MS);
  // One point a day, its last snapshot: polls every few minutes would draw thousands of points.
  const daily = new Map<number, SnapshotRow>();
  for (const row of snapshots) if (row.average !== null) daily.set(Math.floor(row.at / DAY_MS), row);
  const ratings = [...daily.values()].map((row) => ({
    at: new Date(row.at),
    average: row.average ?? 0,
    count: row.count,
  }));

  const before = client
    .prepare<[string, number], SnapshotRow>(
      `select taken_at as at, average, count, stars_1 as s1, stars_2 as s2, stars_3 as s3, stars_4 as s4,
       stars_5 as s5 from rating_snapshots where app_handle = ? and taken_at <= ? and stars_1 is not null
       order by taken_at desc, id desc limit 1`,
    )
    .get(handle, now - options.compareWeeks * WEEK_MS);
  const latest = client
    .prepare<[string], SnapshotRow>(
      `select taken_at as at, average, count, stars_1 as s1, stars_2 as s2, stars_3 as s3, stars_4 as s4,
       stars_5 as s5 from rating_snapshots where app_handle = ? and stars_1 is not null
       order by taken_at desc, id desc limit 1`,
    )
    .get(handle);

  const firstWeek = Math.floor((now - FIRST_MONDAY_MS) / WEEK_MS) - (options.weeks - 1);
  const weekStart = firstWeek * WEEK_MS + FIRST_MONDAY_MS;
  const volume = client
    .prepare<[string, number, number], { week: number; rating: number; n: number }>(
      // Literals, not parameters: a bound number is a REAL to SQLite, and the division must be an integer's.
      `select (coalesce(created_at, first_seen_at) - ${FIRST_MONDAY_MS}) / ${WEEK_MS} as week, rating, count(*) as n
       from reviews where app_handle = ? and coalesce(created_at, first_seen_at) >= ?
       and coalesce(created_at, first_seen_at) < ? group by week, rating`,
    )
    .all(handle, weekStart, now + DAY_MS);
  const weeks: WeekVolume[] = Array.from({ length: options.weeks }, (_, i) => ({
    week: new Date(weekStart + i * WEEK_MS),
    stars: [0, 0, 0, 0, 0],
  }));
  for (const row of volume) {
    const slot = weeks[row.week - firstWeek];
    if (slot && row.rating >= 1 && row.rating <= 5) {
      slot.stars[row.rating - 1] = (slot.stars[row.rating - 1] ?? 0) + row.n;
    }
  }

  const open =
    client
      .prepare<[string, number], { n: number }>(
        `select count(*) as n from reviews r left join review_triage t on t.review_row_id = r.id
         where r.app_handle = ? and r.rating <= ? and coalesce(t.status, 'new') in ('new', 'acknowledged')`,
      )
      .get(handle, options.maxRating)?.n ?? 0;

  const alerts = client
    .prepare<[string, number], { id: number; kind: AppAlert['kind']; priority: string; createdAt: number }>(
      `select id, kind, priority, created_at as createdAt from alerts
       where app_handle = ? and kind in ('rating-drop', 'incident') and created_at >= ? order by created_at, id`,
    )
    .all(handle, now - options.days * DAY_MS)
    .map((a) => ({ ...a, createdAt: new Date(a.createdAt) }));

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
