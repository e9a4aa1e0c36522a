import { and, count, inArray, isNotNull } from 'drizzle-orm';
import type { Db } from './db.js';
import { apps, reviews } from './schema.js';
import { latestSnapshot } from './snapshots.js';

export interface AppStatus {
  handle: string;
  title: string | null;
  /** `new` until the first poll, `baseline` once history is stored, then the last poll's outcome. */
  state: 'new' | 'ok' | 'unavailable' | 'failed';
  lastPollAt: Date | null;
  /**
   * The process that ran the last poll, `<hostname>:<pid>` (util/process-id.ts); null before the first
   * poll, or when it was recorded by a version that did not say.
   */
  lastPollBy: string | null;
  lastError: string | null;
  unavailableSince: Date | null;
  rating: number | null;
  ratingCount: number | null;
  /** Every stored review of the app, removed ones included: the store keeps them all. */
  storedReviews: number;
  /**
   * Of those, the ones a reconciliation found gone from the marketplace (`removed_at`). A field of its
   * own, so `storedReviews` keeps the meaning scripts reading `status --json` rely on.
   */
  removedReviews: number;
  /** An open burst gap (store/gaps.ts): reviews past the page cap that the next polls read on to. */
  gap: { openedAt: Date; unread: number | null } | null;
}

/** One row per watched handle, in the order given, whether or not it was ever polled. */
export function appStatuses(db: Db, handles: string[]): AppStatus[] {
  const rows = new Map(
    db
      .select()
      .from(apps)
      .where(inArray(apps.handle, handles))
      .all()
      .map((row) => [row.handle, row]),
  );
  const counts = new Map(
    db
      .select({ handle: reviews.appHandle, n: count() })
      .from(reviews)
      .where(inArray(reviews.appHandle, handles))
      .groupBy(reviews.appHandle)
      .all()
      .map((row) => [row.handle, row.n]),
  );
  // From the partial index reviews_app_removed: only the removed rows are read (without it, every review
  // row of the apps: 1.7 s at 1,000,000 reviews).
  const removed = new Map(
    db
      .select({ handle: reviews.appHandle, n: count() })
      .from(reviews)
      .where(and(inArray(reviews.appHandle, handles), isNotNull(reviews.removedAt)))
      .groupBy(reviews.appHandle)
      .all()
      .map((row) => [row.handle, row.n]),
  );
  return handles.map((handle) => {
    const row = rows.get(handle);
    const snapshot = row ? latestSnapshot(db, handle) : undefined;
    const state =
      row?.unavailableSince != null
        ? 'unavailable'
        : row?.lastPollStatus === 'failed'
          ? 'failed'
          : row?.baselineAt != null
            ? 'ok'
            : 'new';
    return {
      handle,
      title: row?.title ?? null,
      state,
      lastPollAt: row?.lastPollAt ?? null,
      lastPollBy: row?.lastPollBy ?? null,
      lastError: row?.lastError ?? null,
      unavailableSince: row?.unavailableSince ?? null,
      rating: snapshot?.average ?? null,
      ratingCount: snapshot?.count ?? null,
      storedReviews: counts.get(handle) ?? 0,
      removedReviews: removed.get(handle) ?? 0,
      gap: row?.gapOpenedAt ? { openedAt: row.gapOpenedAt, unread: row.gapUnread } : null,
    };
  });
}
