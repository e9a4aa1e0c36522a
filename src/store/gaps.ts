/**
 * Burst gaps: a poll stopped by `poll.maxPages` before it met a stored review leaves the reviews between
 * what it read and what was stored before unread. The gap is kept here, in SQLite, so the following polls
 * continue from where it stopped whatever happens to the process or to Redis (docs/architecture.md,
 * "Bursts past the page cap").
 */
import { eq, isNotNull, max } from 'drizzle-orm';
import type { Db } from './db.js';
import { apps, reviews } from './schema.js';
import type { PollState } from './statements.js';

export interface Gap {
  /** When the poll that first left reviews unread finished (epoch ms). */
  openedAt: number;
  /** How many reviews, newest first, lie above the unread part as of the last poll. */
  offset: number;
  /** The highest review row id stored before the gap opened: meeting one of those closes the gap. */
  floorRowId: number;
  /** The last successful poll's start before the gap opened (epoch ms), if there was one. */
  since: number | null;
  /**
   * About how many reviews are still unread: what the listing's count grew by since the gap opened, less
   * what the polls read since. Null when a count was missing.
   */
  unread: number | null;
}

/** The open gap of an app, from what `pollState` read; undefined when there is none. */
export function gapOf(state: PollState): Gap | undefined {
  const { gapOpenedAt, gapOffset, gapFloorRowId, gapSince, gapUnread } = state;
  if (gapOpenedAt === null || gapOffset === null || gapFloorRowId === null) return undefined;
  return {
    openedAt: gapOpenedAt.getTime(),
    offset: gapOffset,
    floorRowId: gapFloorRowId,
    since: gapSince?.getTime() ?? null,
    unread: gapUnread,
  };
}

/** Records the app's gap as it stands after a poll; null closes it. */
export function saveGap(db: Db, handle: string, gap: Gap | null): void {
  db.update(apps)
    .set({
      gapOpenedAt: gap ? new Date(gap.openedAt) : null,
      gapOffset: gap?.offset ?? null,
      gapFloorRowId: gap?.floorRowId ?? null,
      gapSince: gap?.since == null ? null : new Date(gap.since),
      gapUnread: gap?.unread ?? null,
    })
    .where(eq(apps.handle, handle))
    .run();
}

/** The highest row id of the app's stored reviews (0 with none): the floor of a gap opened now. */
export function newestReviewRowId(db: Db, handle: string): number {
  const row = db
    .select({ id: max(reviews.id) })
    .from(reviews)
    .where(eq(reviews.appHandle, handle))
    .get();
  return row?.id ?? 0;
}

export interface OpenGap {
  handle: string;
  openedAt: Date;
  unread: number | null;
}

/** Every app with an open gap, for `status` and `/metrics`. */
export function openGaps(db: Db): OpenGap[] {
  return db
    .select({ handle: apps.handle, openedAt: apps.gapOpenedAt, unread: apps.gapUnread })
    .from(apps)
    .where(isNotNull(apps.gapOpenedAt))
    .all()
    .flatMap((row) =>
      row.openedAt ? [{ handle: row.handle, openedAt: row.openedAt, unread: row.unread }] : [],
    );
}
