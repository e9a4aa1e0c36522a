/**
 * What the market reads back of its alerts: a rank alert's dedupe key and when each app last had one (the
 * detector's), every market alert raised since a moment (`market --refresh`'s report), and the alerts
 * the pages' "what moved" feeds and an app's rank section read back. The payload is the alert as it went
 * out, so a page tells the same story as the message; one the prune has emptied (`{}`) is left out.
 */
import { and, asc, desc, eq, gte, inArray, like, max, sql } from 'drizzle-orm';
import { ALERT_KIND_NAMES, isMarketKind, type MarketAlertKind } from '../../kinds.js';
import type { Db } from '../db.js';
import { RAISED_ALERT } from '../outbox.js';
import { alerts } from '../schema.js';
import { within } from '../window.js';

/**
 * Rank alerts are stored under the dedupe key `rank:<category>:<app>:<snapshot id>` (handles hold no
 * colon), raised at the snapshot's time: when each app last had one in this category.
 */
export function rankAlertKey(category: string, app: string, snapshotId: number): string {
  return `rank:${category}:${app}:${snapshotId}`;
}

export function lastRankAlertAt(db: Db, category: string, handles: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const handle of handles) {
    const row = db
      .select({ at: max(alerts.createdAt) })
      .from(alerts)
      .where(
        and(
          eq(alerts.appHandle, handle),
          eq(alerts.kind, 'rank'),
          like(alerts.dedupeKey, `rank:${category}:${handle}:%`),
        ),
      )
      .get();
    if (row?.at) out.set(handle, row.at.getTime());
  }
  return out;
}

/** The kinds a feed shows: what moved an app's rank, or may explain a move. */
export const FEED_KINDS = ['rank', 'listing', 'entrants', 'reshuffle'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];

/** A market alert read back; its payload is the MarketAlert (alerts/types.ts) as it went out. */
export interface StoredMarketAlert<K extends MarketAlertKind = FeedKind> {
  id: number;
  kind: K;
  /** The app it is about, or `category/<handle>` for a reshuffle or entrants (alerts/market.ts). */
  subject: string;
  priority: string;
  createdAt: Date;
  payload: unknown;
}

const STORED_MARKET_ALERT = { ...RAISED_ALERT, subject: alerts.appHandle };

const MARKET_KINDS = ALERT_KIND_NAMES.filter(isMarketKind);

/**
 * The market alerts about these subjects raised since `since`, oldest first, whichever process raised
 * them: what a one-shot refresh reports.
 */
export function marketAlertsSince(
  db: Db,
  subjects: readonly string[],
  since: Date,
): Array<StoredMarketAlert<MarketAlertKind>> {
  if (subjects.length === 0) return [];
  return db
    .select(STORED_MARKET_ALERT)
    .from(alerts)
    .where(
      and(
        inArray(alerts.appHandle, [...subjects]),
        inArray(alerts.kind, MARKET_KINDS),
        gte(alerts.createdAt, since),
      ),
    )
    .orderBy(asc(alerts.createdAt), asc(alerts.id))
    .all()
    .flatMap((row) => (isMarketKind(row.kind) ? [{ ...row, kind: row.kind }] : []));
}

/** The feed's alerts raised in [since, until), newest first, at most `limit`. */
export function marketAlertsBetween(db: Db, since: Date, until: Date, limit = 500): StoredMarketAlert[] {
  return db
    .select(STORED_MARKET_ALERT)
    .from(alerts)
    .where(
      and(
        inArray(alerts.kind, [...FEED_KINDS]),
        within(alerts.createdAt, since, until),
        sql`${alerts.payload} <> '{}'`,
      ),
    )
    .orderBy(desc(alerts.createdAt), desc(alerts.id))
    .limit(limit)
    .all() as StoredMarketAlert[];
}
