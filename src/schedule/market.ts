/**
 * What the market reads cost, in requests a day, planned with the polls against
 * `catalog.dailyRequestBudget` (docs/how-it-works.md, "What the market costs"): each category's `pages`
 * pages every `market.every`, each watched app's listing every `listing.every`, and each competitor's
 * developer as often (one read per developer, however many watched apps it publishes).
 */
import type { Config } from '../config/schema.js';
import type { StoreDb } from '../store/db.js';
import { developersOfApps } from '../store/market/developers.js';
import { DAY_MS } from './rate.js';
import { LONGEST_INTERVAL_MS } from './solvers.js';

export interface MarketCost {
  categoryPages: number;
  listings: number;
  developers: number;
  total: number;
  /** Whether `developers` is known from stored reads, or (before them) one per competitor at most. */
  developersKnown: boolean;
}

/**
 * Requests a day at the configured periods. Without `developers` (no store, or nothing read yet), each
 * competitor counts as a developer of its own: the most it can cost.
 */
export function marketCost(config: Config, developers?: number): MarketCost {
  const competitors = config.apps.filter((a) => a.role === 'competitor').length;
  const categoryPages = config.categories.reduce((n, c) => n + (c.pages * DAY_MS) / config.market.every, 0);
  const listings = (config.apps.length * DAY_MS) / config.listing.every;
  const devs = ((developers ?? competitors) * DAY_MS) / config.listing.every;
  return {
    categoryPages,
    listings,
    developers: devs,
    total: categoryPages + listings + devs,
    developersKnown: developers !== undefined,
  };
}

/** Distinct developers of the competitors: the known ones, plus one per competitor not read yet. */
export function competitorDevelopers(db: StoreDb, config: Config): number {
  const competitors = config.apps.filter((a) => a.role === 'competitor').map((a) => a.handle);
  const known = developersOfApps(db, competitors);
  return new Set(known.values()).size + competitors.filter((h) => !known.has(h)).length;
}

/** How far a budget may spread the market reads: until the longest period is a week. */
export function marketMaxStretch(config: Config): number {
  const longest = Math.max(config.listing.every, config.categories.length > 0 ? config.market.every : 0);
  return Math.max(1, LONGEST_INTERVAL_MS / longest);
}
