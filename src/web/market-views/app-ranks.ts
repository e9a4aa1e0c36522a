/**
 * An app's rank section (its page, `/apps/HANDLE`): its rank in each category with the week's move and
 * its last rank alert, its ranks over the last days for a small chart, the market alerts about it with
 * their explanations, and its listed rating. Also what an app seen only in the market (an entrant, an app
 * that passed an own app) has for a page.
 */
import { rankIn } from '../../market/history.js';
import type { Db } from '../../store/db.js';
import {
  categoriesRanking,
  categorySnapshotsBetween,
  latestSnapshots,
} from '../../store/market/snapshots.js';
import { ratingsAt } from '../../store/review-reads.js';
import type { MarketViewInput } from './input.js';
import { lastAlertMoves, type MoveItem, marketMoves, movesOfApp } from './moves.js';
import { type CategoryRank, DAY_MS, ranksIn, WEEK_MS } from './ranks.js';

/** The section's chart and alerts cover this many days. */
export const APP_RANK_DAYS = 30;

export interface AppRanks {
  handle: string;
  /** The name the market gave it (the latest snapshot ranking it); null when no snapshot did. */
  marketName: string | null;
  /** Its listed rating: the review polls' latest, else the latest snapshot's; null when none says. */
  rating: number | null;
  since: Date;
  until: Date;
  /** One per category tracked or ranking it, with the category's name. */
  ranks: Array<CategoryRank & { name: string; depth: number | null }>;
  /** Its organic rank at each snapshot of each category, oldest first. */
  series: Array<{ category: string; name: string; points: Array<{ at: Date; rank: number | null }> }>;
  moves: MoveItem[];
}

/** The rank section of an app, or undefined when no tracked category has a snapshot and it has no alert. */
export function appRanks(db: Db, input: MarketViewInput, handle: string, now: Date): AppRanks | undefined {
  const since = new Date(now.getTime() - APP_RANK_DAYS * DAY_MS);
  const until = new Date(now.getTime() + 1);
  return db.transaction(
    (tx) => {
      const ranking = categoriesRanking(tx, handle, since);
      const watched = input.apps.some((a) => a.handle === handle);
      const categories = [...new Set([...(watched ? input.categories : []), ...ranking])].sort(
        (a, b) => Number(!input.categories.includes(a)) - Number(!input.categories.includes(b)),
      );
      const latest = latestSnapshots(tx, categories);
      const categoriesOfApp = new Set(ranking);
      const moves = movesOfApp(marketMoves(tx, since, until), handle, categoriesOfApp);
      const alerted = lastAlertMoves(moves);
      const ranks: AppRanks['ranks'] = [];
      const series: AppRanks['series'] = [];
      let marketName: string | null = null;
      let snapshotRating: number | null = null;
      for (const category of categories) {
        const snapshot = latest.get(category);
        if (!snapshot) continue;
        const name = snapshot.name?.trim() || category;
        const app = snapshot.apps.find((a) => a.handle === handle);
        if (app && marketName === null) marketName = app.name;
        if (app?.rating != null && snapshotRating === null) snapshotRating = app.rating;
        const rank = ranksIn(tx, category, now)?.get(handle) ?? {
          category,
          rank: null,
          sponsored: false,
          at: new Date(snapshot.at),
          before: null,
          move: null,
          alert: null,
        };
        ranks.push({
          ...rank,
          name,
          depth: snapshot.depth,
          alert: alerted.get(`${category} ${handle}`) ?? null,
        });
        const points = categorySnapshotsBetween(tx, category, since, until).flatMap((s) =>
          s.snapshot ? [{ at: s.takenAt, rank: rankIn(s.snapshot, handle) }] : [],
        );
        series.push({ category, name, points });
      }
      if (ranks.length === 0 && moves.length === 0) return undefined;
      const stored = ratingsAt(tx, [handle], new Date(now.getTime() - WEEK_MS)).get(handle);
      return {
        handle,
        marketName,
        rating: stored?.latest?.average ?? snapshotRating,
        since,
        until: now,
        ranks,
        series,
        moves,
      };
    },
    { behavior: 'deferred' },
  );
}
