/**
 * One snapshot of a category: the pages read (endpoint 2), turned into organic ranks, sponsored slots,
 * badges and listed ratings. Marketplace ads sit above the organic results and do not change their order,
 * so an app's rank is its place among the entries that are not sponsored.
 */
import type { CategoryEntry, CategoryPage } from '../catalog/schemas.js';

export interface SnapshotApp {
  handle: string;
  name: string;
  developer: string;
  /** Place among the organic entries, from 1; null when the app only holds a sponsored slot. */
  rank: number | null;
  /** Page of its organic entry, or of its ad when it has none. */
  page: number;
  rating: number | null;
  /** null when the page did not say. */
  builtFor: boolean | null;
  /** It holds a sponsored slot in this snapshot (as well as, or instead of, an organic place). */
  sponsored: boolean;
}

export interface SponsoredSlot {
  /** 1-based, in the order the pages show them. */
  slot: number;
  page: number;
  handle: string;
  name: string;
}

export interface CategorySnapshot {
  category: string;
  /** The category's name as its first page gave it (untrusted); absent in snapshots stored before it was kept. */
  name?: string;
  /** When it was taken (ms since the epoch). */
  at: number;
  /** Organic apps in rank order, then the apps that only hold a sponsored slot. */
  apps: SnapshotApp[];
  sponsored: SponsoredSlot[];
  /**
   * How many organic ranks the pages cover: an app missing from the snapshot ranks below this. Only a
   * snapshot whose every page was read is one: a failed page makes the whole snapshot a gap.
   */
  depth: number;
  /** Entries dropped because the same app was already listed organically (pages shifting as they are read). */
  duplicates: number;
}

/**
 * The snapshot made of a category's pages, in page order. Entries are taken in the order each page lists
 * them: `position` skips, repeats and restarts per page in real data, and the order is what a merchant
 * sees. An app listed organically twice keeps its first place; an app both sponsored and organic gets
 * its organic rank and is marked sponsored.
 */
export function snapshotOf(category: string, pages: readonly CategoryPage[], at: number): CategorySnapshot {
  const organic: SnapshotApp[] = [];
  const byHandle = new Map<string, SnapshotApp>();
  const adOnly = new Map<string, SnapshotApp>();
  const sponsored: SponsoredSlot[] = [];
  let duplicates = 0;
  pages.forEach((page, p) => {
    for (const entry of page.apps) {
      const pageNo = p + 1;
      if (entry.isSponsored) {
        sponsored.push({ slot: sponsored.length + 1, page: pageNo, handle: entry.handle, name: entry.name });
        const listed = byHandle.get(entry.handle);
        if (listed !== undefined) listed.sponsored = true;
        else if (!adOnly.has(entry.handle)) adOnly.set(entry.handle, appOf(entry, null, pageNo, true));
        continue;
      }
      if (byHandle.has(entry.handle)) {
        duplicates++;
        continue;
      }
      const ad = adOnly.get(entry.handle);
      adOnly.delete(entry.handle);
      const app = appOf(entry, organic.length + 1, pageNo, ad !== undefined);
      if (app.builtFor === null && ad !== undefined) app.builtFor = ad.builtFor;
      if (app.rating === null && ad !== undefined) app.rating = ad.rating;
      organic.push(app);
      byHandle.set(entry.handle, app);
    }
  });
  const name = pages[0]?.name.trim();
  return {
    category,
    ...(name ? { name } : {}),
    at,
    apps: [...organic, ...adOnly.values()],
    sponsored,
    depth: organic.length,
    duplicates,
  };
}

function appOf(entry: CategoryEntry, rank: number | null, page: number, sponsored: boolean): SnapshotApp {
  return {
    handle: entry.handle,
    name: entry.name,
    developer: entry.developer,
    rank,
    page,
    rating: entry.rating,
    builtFor: entry.isBuiltForPlatform,
    sponsored,
  };
}

/** Organic rank of each app of a snapshot. */
export function ranksOf(snapshot: CategorySnapshot): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const app of snapshot.apps) if (app.rank !== null) ranks.set(app.handle, app.rank);
  return ranks;
}

/** The apps holding a sponsored slot, each once, in slot order. */
export function sponsorsOf(snapshot: CategorySnapshot): string[] {
  return [...new Set(snapshot.sponsored.map((s) => s.handle))];
}

export function appIn(snapshot: CategorySnapshot, handle: string): SnapshotApp | undefined {
  return snapshot.apps.find((a) => a.handle === handle);
}
