/**
 * Fills a real store with market history the way the market watch does, without its jobs: category pages
 * and listings read from the simulator over HTTP, turned into snapshots and listing diffs by src/market,
 * and written with the store's own functions. Tests of the views (pages, API, CLI, digest) use it.
 */
import { CatalogClient } from '../../src/catalog/client.js';
import { appDetailSchema } from '../../src/catalog/schemas.js';
import { type Config, parseConfig } from '../../src/config/index.js';
import {
  type CategorySnapshot,
  diffListings,
  type ListingChange,
  listingHash,
  type NormalizedListing,
  normalizeListing,
  snapshotOf,
} from '../../src/market/index.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import type { Store } from '../../src/store/db.js';
import { insertListingChanges, recordListing } from '../../src/store/market/listings.js';
import { recordCategorySnapshot } from '../../src/store/market/snapshots.js';
import { moveTo, snap } from '../market/helpers.js';

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

/** The inbox's test config (test/helpers/web.ts) with two tracked categories. */
export function marketInboxConfig(): Config {
  return parseConfig(
    {
      catalog: { simulator: true },
      apps: [
        { handle: 'shop', name: 'Shop' },
        { handle: 'rival', role: 'competitor' },
      ],
      categories: [{ handle: 'store-design' }, { handle: 'finances' }],
    },
    {},
  );
}

function listingOf(plans: Array<{ name: string; price: string }>, title = 'Rival') {
  return normalizeListing(
    appDetailSchema.parse({
      title,
      description: 'Bundles. Fast.',
      pricing: 'Free plan available',
      pricings: plans,
    }),
  );
}

/**
 * Ten days of a category without the simulator (a gap on day 4, shop falling on day 7) and two listing
 * versions of rival (a price cut, a plan with a hostile name): enough for every market route to have
 * something to show, fast enough for tests that only need it to be there.
 */
export function seedMarketHistory(store: Store, now: number): void {
  const { db } = store;
  const order = [
    'a01',
    'a02',
    'rival',
    'a04',
    'shop',
    'a06',
    'a07',
    'a08',
    'a09',
    'a10',
    'a11',
    'a12',
    'a13',
  ];
  for (let day = 0; day < 10; day++) {
    const at = now - (10 - day) * 86_400_000;
    if (day === 4) {
      recordCategorySnapshot(db, {
        category: 'store-design',
        takenAt: new Date(at),
        status: 'failed',
        requests: 1,
      });
      continue;
    }
    const ranked = day >= 7 ? moveTo(order, 'shop', 12) : order;
    recordCategorySnapshot(db, {
      category: 'store-design',
      takenAt: new Date(at),
      status: 'ok',
      requests: 1,
      snapshot: snap(at, day >= 8 ? [...ranked, 'new-kid'] : ranked, {
        sponsored: day % 2 === 0 ? ['a09'] : ['a10'],
        names: { 'new-kid': '<script>alert(1)</script>Kid' },
      }),
    });
  }
  const before = listingOf([
    { name: 'Free', price: 'Free' },
    { name: 'Growth', price: '$29/month' },
  ]);
  const after = listingOf([
    { name: 'Free', price: 'Free' },
    { name: 'Growth', price: '$19/month' },
    { name: '<img src=x onerror=alert(1)>Pro', price: '$9/month' },
  ]);
  const read = (listing: NormalizedListing, at: number) =>
    recordListing(db, {
      handle: 'rival',
      listing,
      hash: listingHash(listing),
      builtFor: null,
      rating: 4.5,
      at: new Date(at),
    });
  read(before, now - 5 * 86_400_000);
  const { current } = read(after, now - 2 * 86_400_000);
  insertListingChanges(
    db,
    'rival',
    current,
    diffListings(before, after).map((c) => ({ ...c, alerted: c.alerts })),
    new Date(now - 2 * 86_400_000),
  );
}
