/**
 * Fills a real store with market history the way the market watch does, without its jobs: category pages
 * and listings read from the simulator over HTTP, turned into snapshots and listing diffs by src/market,
 * and written with the store's own functions. Tests of the views (pages, API, CLI, digest) use it.
 */
import { CatalogClient } from '../../src/catalog/client.js';
import {
  type CategorySnapshot,
  diffListings,
  type ListingChange,
  listingHash,
  normalizeListing,
  snapshotOf,
} from '../../src/market/index.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import type { Store } from '../../src/store/db.js';
import { insertListingChanges, recordCategorySnapshot, recordListing } from '../../src/store/market.js';

export const SIM_KEY = 'market-test-key';

export class MarketSeeder {
  readonly client: CatalogClient;

  constructor(
    readonly store: Store,
    readonly sim: Simulator,
    readonly pages = 2,
  ) {
    this.client = new CatalogClient({ baseUrl: sim.url, apiKey: SIM_KEY });
  }

  /** A snapshot of the category as its first pages read now, stored as taken at `at`. */
  async snapshot(category: string, at: number): Promise<CategorySnapshot> {
    const pages = [];
    for (let page = 1; page <= this.pages; page++) pages.push(await this.client.category(category, { page }));
    const snapshot = snapshotOf(category, pages, at);
    recordCategorySnapshot(this.store.db, {
      category,
      takenAt: new Date(at),
      status: 'ok',
      requests: this.pages,
      snapshot,
    });
    return snapshot;
  }

  /** A snapshot that failed at `at`: a gap. */
  gap(category: string, at: number, status: 'failed' | 'unavailable' = 'failed'): void {
    recordCategorySnapshot(this.store.db, {
      category,
      takenAt: new Date(at),
      status,
      requests: 1,
      error: status === 'failed' ? 'the Catalog API answered 503' : 'the Catalog API does not know it (404)',
    });
  }

  /** The app's listing read now, stored as read at `at`, with what changed since the last read. */
  async listing(handle: string, at: number): Promise<ListingChange[]> {
    const detail = await this.client.app(handle);
    const listing = normalizeListing(detail);
    const rating = Number.parseFloat(detail.rating);
    const { db } = this.store;
    return db.transaction((tx) => {
      const stored = recordListing(tx, {
        handle,
        listing,
        hash: listingHash(listing),
        builtFor: null,
        rating: Number.isFinite(rating) ? rating : null,
        at: new Date(at),
      });
      if (!stored.changed || !stored.previous) return [];
      const changes = diffListings(stored.previous.listing, listing);
      insertListingChanges(
        tx,
        handle,
        stored.current,
        changes.map((c) => ({ ...c, alerted: c.alerts })),
        new Date(at),
      );
      return changes;
    });
  }

  async close(): Promise<void> {
    await this.client.close();
    await this.sim.close();
  }
}

export async function startMarketSeeder(
  store: Store,
  options: SimulatorOptions & { pages?: number } = {},
): Promise<MarketSeeder> {
  const { pages, ...simOptions } = options;
  const sim = await startSimulator({ apiKey: SIM_KEY, ...simOptions });
  return new MarketSeeder(store, sim, pages);
}
