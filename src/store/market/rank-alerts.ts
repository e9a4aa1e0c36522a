/** What the rank detector reads of the alerts it raised: their dedupe key, and when each app last had one. */
import { and, eq, like, max } from 'drizzle-orm';
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
