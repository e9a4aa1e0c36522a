/** Where each app stands in a category now and against a week before, and the category's state. */
import { entryBefore, placesClimbed, rankIn } from '../../market/history.js';
import type { CategorySnapshot } from '../../market/snapshot.js';
import type { Db } from '../../store/db.js';
import type { CategoryState } from '../../store/market/categories.js';
import {
  categorySnapshotsBetween,
  lastSnapshotBefore,
  type StoredSnapshot,
} from '../../store/market/snapshots.js';
import type { AlertMove } from './rank-story.js';

export const DAY_MS = 86_400_000;

/** "The week's move": against the snapshot a week before the latest. */
export const WEEK_MS = 7 * DAY_MS;

export interface CategoryStatus {
  handle: string;
  /** As the category's pages name it (the latest snapshot), else its handle. */
  name: string;
  /** waiting: configured, never snapshotted; unavailable: the API does not know it (404). */
  state: 'ok' | 'waiting' | 'unavailable';
  lastSnapshotAt: Date | null;
  /** Organic places the last snapshot's pages covered: an app below them is "not in the tracked pages". */
  depth: number | null;
  unavailableSince: Date | null;
  /** The last failed snapshot's error, cleared by a successful one. */
  lastError: string | null;
}

export function statusOf(
  handle: string,
  state: CategoryState | undefined,
  latest: StoredSnapshot | undefined,
) {
  return {
    handle,
    name: latest?.snapshot?.name?.trim() || handle,
    state: state?.unavailableSince ? 'unavailable' : latest ? 'ok' : 'waiting',
    lastSnapshotAt: latest?.takenAt ?? null,
    depth: latest?.snapshot?.depth ?? null,
    unavailableSince: state?.unavailableSince ?? null,
    lastError: state?.lastError ?? null,
  } satisfies CategoryStatus;
}

export interface CategoryRank {
  category: string;
  /** Organic rank in the category's latest snapshot; null when the app is not in the tracked pages. */
  rank: number | null;
  /** It also held a sponsored slot then. */
  sponsored: boolean;
  at: Date;
  /** The snapshot the week's move is measured against: a week before the latest, or the oldest kept. */
  before: { rank: number | null; at: Date } | null;
  /** Places climbed since `before` (negative: fell); null when either side is outside the tracked pages. */
  move: number | null;
  /** The app's latest rank alert in the category (the last 30 days), the other side of the rank story. */
  alert: AlertMove | null;
}

/** Where each app stands in a category now and a week before, from the snapshots of the last 8 days. */
export function ranksIn(db: Db, category: string, now: Date): Map<string, CategoryRank> | undefined {
  const latest = lastSnapshotBefore(db, category, new Date(now.getTime() + 1));
  if (!latest?.snapshot) return undefined;
  const window = categorySnapshotsBetween(
    db,
    category,
    new Date(latest.takenAt.getTime() - WEEK_MS - DAY_MS),
    new Date(latest.takenAt.getTime() + 1),
  ).filter((s) => s.snapshot !== null);
  const before = entryBefore(
    window.map((s) => ({ at: s.takenAt.getTime(), snapshot: s.snapshot as CategorySnapshot })),
    latest.takenAt.getTime(),
    WEEK_MS,
  );
  const comparable = before !== undefined && before.at < latest.takenAt.getTime() ? before : undefined;
  const ranks = new Map<string, CategoryRank>();
  const handles = new Set([
    ...latest.snapshot.apps.map((a) => a.handle),
    ...(comparable?.snapshot.apps.map((a) => a.handle) ?? []),
  ]);
  for (const handle of handles) {
    const rank = rankIn(latest.snapshot, handle);
    const then = comparable ? rankIn(comparable.snapshot, handle) : null;
    ranks.set(handle, {
      category,
      rank,
      sponsored: latest.snapshot.apps.find((a) => a.handle === handle)?.sponsored ?? false,
      at: latest.takenAt,
      before: comparable ? { rank: then, at: new Date(comparable.at) } : null,
      move: placesClimbed(then, rank),
      alert: null,
    });
  }
  return ranks;
}
