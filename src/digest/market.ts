/**
 * The digest's Market section: where the own apps ranked in each tracked category at the period's end
 * and how far they moved over its last week, the apps that ranked in a category for the first time in the
 * period, and what the competitors changed in their listings (pricing first among them). Read through
 * store/market/ (categories, listings, snapshots), inside the digest's one read transaction.
 */
import { type ChangeTone, changeTone, describeChange } from '../market/change-text.js';
import { placesClimbed, rankIn } from '../market/history.js';
import type { ListingChange } from '../market/listing.js';
import type { Db } from '../store/db.js';
import { categoryStates } from '../store/market/categories.js';
import { listingChangesSince } from '../store/market/listings.js';
import { categorySnapshotsBetween, firstSeenBetween, lastSnapshotBefore } from '../store/market/snapshots.js';
import type { DigestPeriod } from './period.js';
import { shiftWeeks } from './period.js';
import type { AppRole } from './types.js';

/** Changes listed per competitor; the rest are counted. */
export const MAX_CHANGES_LISTED = 8;

export interface MarketRank {
  handle: string;
  title: string;
  /** Organic rank in the last snapshot before the period's end; null: not in the tracked pages. */
  rank: number | null;
  /** The same a week earlier; null when not in the tracked pages then, or no snapshot was. */
  before: number | null;
  /** Whether there was a snapshot a week earlier to compare with. */
  compared: boolean;
  /** Places climbed over that week (negative: fell); null when either side is outside the tracked pages. */
  move: number | null;
}

export interface MarketCategory {
  handle: string;
  /** When the snapshot the ranks come from was taken; null when the category had none by the end. */
  at: Date | null;
  /** Organic places the tracked pages covered then. */
  depth: number | null;
  own: MarketRank[];
  /** Apps ranked here for the first time in the period, in the order they came; untrusted names. */
  entrants: Array<{ handle: string; name: string; at: Date; rank: number | null }>;
  /** Snapshots of the period that failed (gaps): the ranks may miss what happened then. */
  failedSnapshots: number;
}

export interface MarketChange {
  at: Date;
  field: string;
  /** One line of plain text; untrusted quoted parts, escaped by each renderer. */
  text: string;
  tone: ChangeTone;
}

export interface CompetitorChanges {
  handle: string;
  title: string;
  /** Pricing first, then the rest, each oldest first; at most MAX_CHANGES_LISTED. */
  changes: MarketChange[];
  total: number;
}

export interface DigestMarket {
  categories: MarketCategory[];
  /** Competitors whose listing changed in the period. */
  competitors: CompetitorChanges[];
}

export interface MarketDigestInput {
  /** The tracked categories (config `categories`). */
  categories: readonly string[];
  apps: ReadonlyArray<{ handle: string; title: string; role: AppRole }>;
  period: DigestPeriod;
}

/** Null when nothing is tracked and no competitor's listing changed: the digest has no Market section. */
export function collectMarket(db: Db, input: MarketDigestInput): DigestMarket | null {
  const { period } = input;
  const weekBefore = shiftWeeks(period.end, -1, period.timezone);
  const own = input.apps.filter((a) => a.role === 'own');
  const states = categoryStates(db, input.categories);
  const categories = input.categories.map((handle): MarketCategory => {
    const latest = lastSnapshotBefore(db, handle, period.end);
    const earlier = lastSnapshotBefore(db, handle, weekBefore);
    const inPeriod = categorySnapshotsBetween(db, handle, period.start, period.end);
    const baseline = states.get(handle)?.baselineAt?.getTime();
    const entrants = firstSeenBetween(db, handle, period.start, period.end)
      .filter((e) => baseline === undefined || e.firstSeenAt.getTime() > baseline)
      .map((e) => {
        const first = inPeriod.find(
          (s) => s.snapshot !== null && s.takenAt.getTime() >= e.firstSeenAt.getTime(),
        )?.snapshot;
        const app = first?.apps.find((a) => a.handle === e.handle);
        return { handle: e.handle, name: app?.name ?? e.handle, at: e.firstSeenAt, rank: app?.rank ?? null };
      });
    return {
      handle,
      at: latest?.takenAt ?? null,
      depth: latest?.snapshot?.depth ?? null,
      own: latest?.snapshot
        ? own.map((app) => {
            const rank = rankIn(latest.snapshot as NonNullable<typeof latest.snapshot>, app.handle);
            const before = earlier?.snapshot ? rankIn(earlier.snapshot, app.handle) : null;
            return {
              handle: app.handle,
              title: app.title,
              rank,
              before,
              compared: earlier?.snapshot != null,
              move: placesClimbed(before, rank),
            };
          })
        : [],
      entrants,
      failedSnapshots: inPeriod.filter((s) => s.status !== 'ok').length,
    };
  });

  const competitors = input.apps.filter((a) => a.role === 'competitor');
  const rows = listingChangesSince(
    db,
    competitors.map((a) => a.handle),
    period.start,
  ).filter((row) => row.at.getTime() < period.end.getTime());
  const changes: CompetitorChanges[] = competitors.flatMap((app) => {
    const mine = rows
      .filter((row) => row.appHandle === app.handle)
      .sort((a, b) => a.at.getTime() - b.at.getTime() || a.id - b.id)
      .map((row) => {
        const change = row.change as ListingChange;
        return { at: row.at, field: row.field, text: describeChange(change), tone: changeTone(change) };
      });
    if (mine.length === 0) return [];
    const ordered = [
      ...mine.filter((c) => c.field === 'pricing'),
      ...mine.filter((c) => c.field !== 'pricing'),
    ];
    return [
      {
        handle: app.handle,
        title: app.title,
        changes: ordered.slice(0, MAX_CHANGES_LISTED),
        total: mine.length,
      },
    ];
  });

  if (categories.length === 0 && changes.length === 0) return null;
  return { categories, competitors: changes };
}
