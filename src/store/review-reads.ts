/**
 * What the market's views and rank alerts read of the review side: each app's listed rating as the polls
 * stored it (now and a week before), its open low-rated reviews, and the rating drops and incidents that
 * may explain a rank move.
 */
import { and, asc, desc, eq, gte, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import type { Db } from './db.js';
import { alerts, ratingSnapshots, reviews, reviewTriage } from './schema.js';

/** Rating drops and incidents of these apps raised since `since`: what a rank alert may be explained by. */
export function reviewAlertsSince(
  db: Db,
  handles: readonly string[],
  since: Date,
): Array<{ handle: string; kind: 'rating-drop' | 'incident'; at: Date; payload: unknown }> {
  if (handles.length === 0) return [];
  return db
    .select({ handle: alerts.appHandle, kind: alerts.kind, at: alerts.createdAt, payload: alerts.payload })
    .from(alerts)
    .where(
      and(
        inArray(alerts.appHandle, [...handles]),
        inArray(alerts.kind, ['rating-drop', 'incident']),
        gte(alerts.createdAt, since),
      ),
    )
    .orderBy(asc(alerts.createdAt))
    .all()
    .flatMap((row) =>
      row.kind === 'rating-drop' || row.kind === 'incident' ? [{ ...row, kind: row.kind }] : [],
    );
}

export interface StoredRatings {
  latest: { average: number; at: Date } | null;
  before: number | null;
  /** When none is as old as `before`: the oldest stored, to measure the change since then. */
  oldest: { average: number; at: Date } | null;
}

/**
 * The listed rating of each app as the review polls stored it: the latest, and the latest at or before
 * `before` (for the change over a week), else the oldest; null where none was stored.
 */
export function ratingsAt(db: Db, handles: readonly string[], before: Date): Map<string, StoredRatings> {
  const out = new Map<string, StoredRatings>();
  const pick = (handle: string, until: Date | undefined, oldest = false) =>
    db
      .select({ average: ratingSnapshots.average, at: ratingSnapshots.takenAt })
      .from(ratingSnapshots)
      .where(
        and(
          eq(ratingSnapshots.appHandle, handle),
          isNotNull(ratingSnapshots.average),
          until === undefined ? undefined : lte(ratingSnapshots.takenAt, until),
        ),
      )
      .orderBy(
        ...(oldest
          ? [asc(ratingSnapshots.takenAt), asc(ratingSnapshots.id)]
          : [desc(ratingSnapshots.takenAt), desc(ratingSnapshots.id)]),
      )
      .limit(1)
      .get();
  for (const handle of handles) {
    const latest = pick(handle, undefined);
    const then = pick(handle, before);
    const first = then ? undefined : pick(handle, undefined, true);
    out.set(handle, {
      latest: latest?.average == null ? null : { average: latest.average, at: latest.at },
      before: then?.average ?? null,
      oldest: first?.average == null ? null : { average: first.average, at: first.at },
    });
  }
  return out;
}

/** Low-rated reviews (at most `maxRating` stars) still new or acknowledged, per app. */
export function openLowReviews(db: Db, handles: readonly string[], maxRating: number): Map<string, number> {
  const out = new Map<string, number>(handles.map((h) => [h, 0]));
  if (handles.length === 0) return out;
  const rows = db
    .select({ handle: reviews.appHandle, n: sql<number>`count(*)` })
    .from(reviews)
    .leftJoin(reviewTriage, eq(reviewTriage.reviewRowId, reviews.id))
    .where(
      and(
        inArray(reviews.appHandle, [...handles]),
        lte(reviews.rating, maxRating),
        sql`coalesce(${reviewTriage.status}, 'new') in ('new', 'acknowledged')`,
      ),
    )
    .groupBy(reviews.appHandle)
    .all();
  for (const row of rows) out.set(row.handle, row.n);
  return out;
}
