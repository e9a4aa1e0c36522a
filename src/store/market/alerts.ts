/**
 * What the market reads back of its alerts: a rank alert's dedupe key and when each app last had one (the
 * detector's), and every market alert raised since a moment (`market --refresh`'s report).
 */
import { and, asc, eq, gte, inArray, like, max } from 'drizzle-orm';
import { ALERT_KIND_NAMES, isMarketKind, type MarketAlertKind } from '../../kinds.js';
import type { Db } from '../db.js';
import { alerts } from '../schema.js';

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

export interface RaisedMarketAlert {
  id: number;
  kind: MarketAlertKind;
  /** The app it is about, or `category/<handle>` for a reshuffle or entrants (alerts/market.ts). */
  subject: string;
  at: Date;
  /** The MarketAlert as raised (alerts/types.ts). */
  payload: unknown;
}

const MARKET_KINDS = ALERT_KIND_NAMES.filter(isMarketKind);

/**
 * The market alerts about these subjects raised since `since`, oldest first, whichever process raised
 * them: what a one-shot refresh reports.
 */
export function marketAlertsSince(db: Db, subjects: readonly string[], since: Date): RaisedMarketAlert[] {
  if (subjects.length === 0) return [];
  return db
    .select({
      id: alerts.id,
      kind: alerts.kind,
      subject: alerts.appHandle,
      at: alerts.createdAt,
      payload: alerts.payload,
    })
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
