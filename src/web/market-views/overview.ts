/** The overview of every watched app (`/market`, `/api/market`, `reviewwatch market`). */
import type { Db } from '../../store/db.js';
import { categoryStates } from '../../store/market/categories.js';
import { lastListingChanges } from '../../store/market/listings.js';
import { lastSnapshotBefore } from '../../store/market/snapshots.js';
import { openLowReviews, ratingsAt } from '../../store/review-reads.js';
import type { ListingChangeRow } from '../../store/schema.js';
import { type MarketViewInput, nameOf, ownFirst } from './input.js';
import { type ChangeSummary, changeSummary } from './listing-timeline.js';
import { type CategoryRank, type CategoryStatus, ranksIn, statusOf, WEEK_MS } from './ranks.js';

export interface OverviewApp {
  handle: string;
  name: string;
  role: 'own' | 'competitor';
  /** The listed rating from the latest review poll; null before the first. */
  rating: number | null;
  /** Against the rating stored a week before now; null without one. */
  ratingChange: number | null;
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
      return {
        at: now,
        categories,
        apps: apps.map((app): OverviewApp => {
          const rating = ratings.get(app.handle);
          const latest = rating?.latest ?? null;
          const last = changes.get(app.handle);
          return {
            handle: app.handle,
            name: nameOf(tx, app),
            role: app.role,
            rating: latest?.average ?? null,
            ratingChange:
              latest === null || rating?.before == null ? null : round(latest.average - rating.before),
            ranks: input.categories.flatMap((category) => {
              const inCategory = ranks.get(category);
              if (!inCategory) return [];
              const at = categories.find((c) => c.handle === category)?.lastSnapshotAt ?? now;
              return [
                inCategory.get(app.handle) ?? {
                  category,
                  rank: null,
                  sponsored: false,
                  at,
                  before: null,
                  move: null,
                },
              ];
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
