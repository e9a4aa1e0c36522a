/** The overview of every watched app (`/market`, `/api/market`, `reviewwatch market`). */
import type { Db } from '../../store/db.js';
import { categoryStates } from '../../store/market/categories.js';
import { lastListingChanges } from '../../store/market/listings.js';
import { lastSnapshotBefore } from '../../store/market/snapshots.js';
import { openLowReviews, ratingsAt } from '../../store/review-reads.js';
import type { ListingChangeRow } from '../../store/schema.js';
import { type MarketViewInput, nameOf, ownFirst } from './input.js';
import { type ChangeSummary, changeSummary } from './listing-timeline.js';
import { lastAlertMoves, type MoveItem, marketMoves } from './moves.js';
import { type CategoryRank, type CategoryStatus, DAY_MS, ranksIn, statusOf, WEEK_MS } from './ranks.js';

/** The "what moved" feed covers this many days; its first part, the last week. */
export const FEED_DAYS = 30;

export interface OverviewApp {
  handle: string;
  name: string;
  role: 'own' | 'competitor';
  /** The listed rating from the latest review poll; null before the first. */
  rating: number | null;
  /** Against the rating stored a week before now, else the oldest stored; null without either. */
  ratingChange: number | null;
  /** Set when the change is against the oldest rating stored (less than a week of history): since when. */
  ratingSince: Date | null;
  /** One entry per tracked category that has a snapshot. */
  ranks: CategoryRank[];
  /** Low-rated reviews still new or acknowledged. */
  openLow: number;
  /** The latest listing version that changed something, with its changes; null when none did. */
  lastChange: { at: Date; changes: ChangeSummary[] } | null;
}

export interface MarketOverview {
  at: Date;
  categories: CategoryStatus[];
  /** Own apps first, then competitors; config order within each. */
  apps: OverviewApp[];
  /** What moved in the last FEED_DAYS days: the market alerts with their explanations, newest first. */
  moves: MoveItem[];
}

/** Every watched app with its rating, its ranks and their week's move, its open low reviews, its last change. */
export function marketOverview(db: Db, input: MarketViewInput, now: Date): MarketOverview {
  const apps = ownFirst(input.apps);
  const handles = apps.map((a) => a.handle);
  return db.transaction(
    (tx) => {
      const states = categoryStates(tx, input.categories);
      const categories: CategoryStatus[] = [];
      const ranks = new Map<string, Map<string, CategoryRank>>();
      for (const category of input.categories) {
        const inCategory = ranksIn(tx, category, now);
        const latest = inCategory ? lastSnapshotBefore(tx, category, new Date(now.getTime() + 1)) : undefined;
        categories.push(statusOf(category, states.get(category), latest));
        if (inCategory) ranks.set(category, inCategory);
      }
      const ratings = ratingsAt(tx, handles, new Date(now.getTime() - WEEK_MS));
      const open = openLowReviews(tx, handles, input.maxRating);
      const changes = lastListingChanges(tx, handles);
      const moves = marketMoves(
        tx,
        new Date(now.getTime() - FEED_DAYS * DAY_MS),
        new Date(now.getTime() + 1),
      );
      const alerted = lastAlertMoves(moves);
      return {
        at: now,
        categories,
        moves,
        apps: apps.map((app): OverviewApp => {
          const rating = ratings.get(app.handle);
          const latest = rating?.latest ?? null;
          const last = changes.get(app.handle);
          return {
            handle: app.handle,
            name: nameOf(tx, app),
            role: app.role,
            rating: latest?.average ?? null,
            ...ratingChangeOf(latest, rating?.before ?? null, rating?.oldest ?? null),
            ranks: input.categories.flatMap((category) => {
              const inCategory = ranks.get(category);
              if (!inCategory) return [];
              const at = categories.find((c) => c.handle === category)?.lastSnapshotAt ?? now;
              const rank: CategoryRank = inCategory.get(app.handle) ?? {
                category,
                rank: null,
                sponsored: false,
                at,
                before: null,
                move: null,
                alert: null,
              };
              return [{ ...rank, alert: alerted.get(`${category} ${app.handle}`) ?? null }];
            }),
            openLow: open.get(app.handle) ?? 0,
            lastChange:
              last && last.length > 0
                ? { at: (last[0] as ListingChangeRow).at, changes: last.map(changeSummary) }
                : null,
          };
        }),
      };
    },
    { behavior: 'deferred' },
  );
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** The week's rating change, or the change since the oldest rating stored when there is no week yet. */
function ratingChangeOf(
  latest: { average: number; at: Date } | null,
  before: number | null,
  oldest: { average: number; at: Date } | null,
): { ratingChange: number | null; ratingSince: Date | null } {
  if (latest === null) return { ratingChange: null, ratingSince: null };
  if (before !== null) return { ratingChange: round(latest.average - before), ratingSince: null };
  if (oldest === null || oldest.at.getTime() >= latest.at.getTime())
    return { ratingChange: null, ratingSince: null };
  return { ratingChange: round(latest.average - oldest.average), ratingSince: oldest.at };
}
