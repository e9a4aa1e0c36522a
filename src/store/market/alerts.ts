/**
 * The market alerts as raised (rank moves, listing changes, entrants, reshuffles): what the pages' "what
 * moved" feeds and an app's rank section read back. The payload is the alert as it went out, so a page
 * tells the same story as the message; one the prune has emptied (`{}`) is left out.
 */
import { and, desc, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { alerts } from '../schema.js';

/** The kinds a feed shows: what moved an app's rank, or may explain a move. */
export const FEED_KINDS = ['rank', 'listing', 'entrants', 'reshuffle'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];

export interface StoredMarketAlert {
  id: number;
  kind: FeedKind;
  /** The app's handle, or `category/<handle>` for a category's own alerts (alerts/market.ts). */
  subject: string;
  priority: string;
  createdAt: Date;
  /** The alert (alerts/types.ts `MarketAlert`) as JSON. */
  payload: unknown;
}

/** The feed's alerts raised in [since, until), newest first, at most `limit`. */
export function marketAlertsBetween(db: Db, since: Date, until: Date, limit = 500): StoredMarketAlert[] {
  return db
    .select({
      id: alerts.id,
      kind: alerts.kind,
      subject: alerts.appHandle,
      priority: alerts.priority,
      createdAt: alerts.createdAt,
      payload: alerts.payload,
    })
    .from(alerts)
    .where(
      and(
        inArray(alerts.kind, [...FEED_KINDS]),
        gte(alerts.createdAt, since),
        lt(alerts.createdAt, until),
        sql`${alerts.payload} <> '{}'`,
      ),
    )
    .orderBy(desc(alerts.createdAt), desc(alerts.id))
    .limit(limit)
    .all() as StoredMarketAlert[];
}
