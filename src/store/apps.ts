import { eq, isNotNull } from 'drizzle-orm';
import { processId } from '../util/process-id.js';
import type { Db, StoreDb } from './db.js';
import { type AppRow, apps } from './schema.js';
import { type PollState, statements } from './statements.js';

export function ensureApp(db: Db, handle: string): void {
  db.insert(apps).values({ handle }).onConflictDoNothing().run();
}

export function getApp(db: Db, handle: string): AppRow | undefined {
  return db.select().from(apps).where(eq(apps.handle, handle)).get();
}

/** The listing's name as last fetched, if any. */
export function appTitle(db: StoreDb, handle: string): string | undefined {
  return statements(db).appTitle.get({ handle })?.title ?? undefined;
}

/** What a poll needs to know of its app before it starts; creates the app's row on its first poll. */
export function pollState(db: StoreDb, handle: string): PollState {
  const { pollState, insertApp } = statements(db);
  const found = pollState.get({ handle });
  if (found) return found;
  insertApp.run({ handle });
  return (
    pollState.get({ handle }) ?? {
      baselineAt: null,
      unavailableSince: null,
      lastSuccessAt: null,
      newestPageHash: null,
      gapOpenedAt: null,
      gapOffset: null,
      gapFloorRowId: null,
      gapSince: null,
      gapUnread: null,
    }
  );
}

/** When each app's last poll finished (epoch ms), for the apps polled at least once. */
export function lastPollTimes(db: Db): Map<string, number> {
  const rows = db
    .select({ handle: apps.handle, at: apps.lastPollAt })
    .from(apps)
    .where(isNotNull(apps.lastPollAt))
    .all();
  return new Map(rows.flatMap((row) => (row.at ? [[row.handle, row.at.getTime()] as const] : [])));
}

/** A poll found an incident on the app (schedule/incident.ts, isIncident): its polls are tightened. */
export function recordIncident(db: Db, handle: string, at: number): void {
  db.update(apps)
    .set({ lastIncidentAt: new Date(at) })
    .where(eq(apps.handle, handle))
    .run();
}

export function updateApp(db: Db, handle: string, values: Partial<Omit<AppRow, 'handle'>>): void {
  db.update(apps).set(values).where(eq(apps.handle, handle)).run();
}

/**
 * After a successful poll: clears a past error or unavailability; the baseline time is set only once.
 * Records this process as the one that polled last (`status` shows it).
 */
export function recordPollSuccess(
  db: StoreDb,
  handle: string,
  poll: {
    status: 'ok' | 'baseline';
    startedAt: Date;
    at: Date;
    title: string | undefined;
    /** Null clears it; undefined leaves it as it is. */
    newestPageHash: string | null | undefined;
  },
): void {
  statements(db).pollSucceeded.run({
    handle,
    startedAt: poll.startedAt,
    at: poll.at,
    status: poll.status,
    baselineAt: poll.status === 'baseline' ? poll.at : null,
    title: poll.title || null,
    setPageHash: poll.newestPageHash === undefined ? 0 : 1,
    newestPageHash: poll.newestPageHash ?? null,
    by: processId(),
  });
}

/** The rating level the next drop is measured from, with the drop rules' memory (alerts/rating-drop.ts). */
export interface StoredRatingLevel {
  average: number;
  count: number;
  at: Date;
  /** The summary's counts per star at the level, one-star first; unset when not kept. */
  stars?: number[] | undefined;
  alerted: boolean;
  displayed?: number | undefined;
  /** While alerted: since when the average has stood recovered (alerts/rating-drop.ts). */
  recoveringSince?: Date | undefined;
}

export function ratingLevel(db: StoreDb, handle: string): StoredRatingLevel | undefined {
  const row = statements(db).ratingLevel.get({ handle });
  if (!row || row.average === null || row.count === null || row.at === null) return undefined;
  return {
    average: row.average,
    count: row.count,
    at: row.at,
    ...(row.stars ? { stars: row.stars } : {}),
    alerted: row.alerted,
    ...(row.displayed === null ? {} : { displayed: row.displayed }),
    ...(row.recoveringSince === null ? {} : { recoveringSince: row.recoveringSince }),
  };
}

export function setRatingLevel(db: StoreDb, handle: string, level: StoredRatingLevel): void {
  statements(db).setRatingLevel.run({
    handle,
    average: level.average,
    count: level.count,
    at: level.at,
    stars: level.stars ?? null,
    alerted: level.alerted,
    displayed: level.displayed ?? null,
    recoveringSince: level.recoveringSince ?? null,
  });
}
