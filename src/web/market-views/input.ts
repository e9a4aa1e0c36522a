/** What the market views cover (the watched apps, the tracked categories, what "low" means) and how they name an app. */
import type { Config } from '../../config/index.js';
import { getApp } from '../../store/apps.js';
import type { Db } from '../../store/db.js';
import { latestListing } from '../../store/market/listings.js';

export interface MarketApp {
  handle: string;
  /** The config's name, which wins over the listing's title. */
  name?: string | undefined;
  role: 'own' | 'competitor';
}

/** What the views cover: the watched apps, the tracked categories, and what "low" means. */
export interface MarketViewInput {
  apps: MarketApp[];
  categories: string[];
  maxRating: number;
}

export function marketInputOf(config: Config): MarketViewInput {
  return {
    apps: config.apps.map((a) => ({ handle: a.handle, name: a.name, role: a.role })),
    categories: config.categories.map((c) => c.handle),
    maxRating: config.alerts.lowRating.maxRating,
  };
}

/** An app's name: the config's, else its listing's title, else the polls' title, else its handle. */
export function nameOf(db: Db, app: { handle: string; name?: string | undefined }): string {
  return (
    app.name?.trim() ||
    latestListing(db, app.handle)?.listing.title.trim() ||
    getApp(db, app.handle)?.title?.trim() ||
    app.handle
  );
}

/** Own apps first, then competitors, each in config order. */
export function ownFirst<T extends { role: 'own' | 'competitor' }>(apps: readonly T[]): T[] {
  return [...apps.filter((a) => a.role === 'own'), ...apps.filter((a) => a.role !== 'own')];
}
