/**
 * What the market did since a moment, read from the store: what `market --refresh` prints once its reads
 * are done. Each category's latest snapshot against the one before it (the move a refresh made), the rank
 * and reshuffle alerts raised, the listing changes and developer alerts, and the apps a category's pages
 * ranked for the first time (the entrants). Whichever process read them: a `start` beside the refresh counts too.
 */
import { categorySubject } from '../../alerts/market.js';
import type { MarketAlert } from '../../alerts/types.js';
import { rankIn } from '../../market/history.js';
import { marketSubject } from '../../render/alert/market-wording.js';
import type { Db } from '../../store/db.js';
import { marketAlertsSince } from '../../store/market/alerts.js';
import { categoryStates } from '../../store/market/categories.js';
import { listingChangesSince } from '../../store/market/listings.js';
import { firstSeenBetween, lastSnapshotBefore } from '../../store/market/snapshots.js';
import { type MarketViewInput, nameOf, ownFirst } from './input.js';
import { type ChangeSummary, changeSummary } from './listing-timeline.js';
import { type CategoryStatus, statusOf } from './ranks.js';

export interface SinceRank {
  handle: string;
  name: string;
  role: 'own' | 'competitor';
  /** In the latest snapshot; null: not in the tracked pages. */
  rank: number | null;
  /** In the snapshot before it; null: not in the tracked pages then (or no snapshot before). */
  previous: number | null;
}

export interface SinceCategory {
  status: CategoryStatus;
  /** The latest snapshot was taken since the moment (this refresh's, or another process's). */
  fresh: boolean;
  /** When the snapshot before the latest was taken; null for a category's first. */
  previousAt: Date | null;
  /** The watched apps in either snapshot, own apps first. */
  ranks: SinceRank[];
  /** Apps ranked for the first time since the moment (none on a category's first snapshot). */
  entered: Array<{ handle: string; name: string; rank: number | null }>;
}

export interface MarketSince {
  since: Date;
  categories: SinceCategory[];
  /** The headlines of the rank and reshuffle alerts raised, oldest first. */
  moved: string[];
  /** The watched apps' listing changes, each app's newest first. */
  changed: Array<{ handle: string; name: string; changes: ChangeSummary[] }>;
  /** The headlines of the developer alerts raised: apps a competitor's developer published or removed. */
  developers: string[];
}

/** The market since `since` for these categories (every tracked one by default) and the watched apps. */
export function marketSince(
  db: Db,
  input: MarketViewInput,
  options: { since: Date; now: Date; categories?: readonly string[] },
): MarketSince {
  const categories = options.categories ?? input.categories;
  return db.transaction(
    (tx) => {
      const handles = input.apps.map((a) => a.handle);
      const subjects = [...handles, ...categories.map(categorySubject)];
      const raised = marketAlertsSince(tx, subjects, options.since);
      const headline = (kinds: readonly string[]) =>
        raised.filter((a) => kinds.includes(a.kind)).map((a) => marketSubject(a.payload as MarketAlert));
      const changes = listingChangesSince(tx, handles, options.since);
      return {
        since: options.since,
        categories: categories.map((c) => sinceIn(tx, input, c, options)),
        moved: headline(['rank', 'reshuffle']),
        changed: ownFirst(input.apps).flatMap((app) => {
          const rows = changes.filter((r) => r.appHandle === app.handle);
          return rows.length === 0
            ? []
            : [{ handle: app.handle, name: nameOf(tx, app), changes: rows.map(changeSummary) }];
        }),
        developers: headline(['developer']),
      };
    },
    { behavior: 'deferred' },
  );
}

function sinceIn(
  db: Db,
  input: MarketViewInput,
  category: string,
  options: { since: Date; now: Date },
): SinceCategory {
  const state = categoryStates(db, [category]).get(category);
  const latest = lastSnapshotBefore(db, category, new Date(options.now.getTime() + 1));
  const before = latest ? lastSnapshotBefore(db, category, latest.takenAt) : undefined;
  const now = latest?.snapshot ?? undefined;
  const then = before?.snapshot ?? undefined;
  const ranks = ownFirst(input.apps).flatMap((app): SinceRank[] => {
    const rank = now ? rankIn(now, app.handle) : null;
    const previous = then ? rankIn(then, app.handle) : null;
    if (rank === null && previous === null) return [];
    return [{ handle: app.handle, name: nameOf(db, app), role: app.role, rank, previous }];
  });
  const baseline = state?.baselineAt?.getTime();
  const names = new Map(now?.apps.map((a) => [a.handle, a.name]) ?? []);
  const entered = firstSeenBetween(db, category, options.since, new Date(options.now.getTime() + 1))
    .filter((e) => baseline !== undefined && e.firstSeenAt.getTime() > baseline)
    .map((e) => ({
      handle: e.handle,
      name: names.get(e.handle) ?? e.handle,
      rank: now ? rankIn(now, e.handle) : null,
    }));
  return {
    status: statusOf(category, state, latest),
    fresh: latest !== undefined && latest.takenAt.getTime() >= options.since.getTime(),
    previousAt: before?.takenAt ?? null,
    ranks,
    entered,
  };
}
