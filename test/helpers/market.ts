/**
 * Fills a real store with market history the way the market watch does, without its jobs: category pages
 * and listings read from the simulator over HTTP, turned into snapshots and listing diffs by src/market,
 * and written with the store's own functions. Tests of the views (pages, API, CLI, digest) use it.
 */
import { type MarketRaise, raiseMarketAlerts } from '../../src/alerts/market.js';
import { CatalogClient } from '../../src/catalog/client.js';
import { appDetailSchema } from '../../src/catalog/schemas.js';
import { type Config, parseConfig } from '../../src/config/index.js';
import {
  type CategorySnapshot,
  detectRankAlerts,
  diffListings,
  type ListingChange,
  listingHash,
  type NormalizedListing,
  normalizeListing,
  type RankAlert,
  snapshotOf,
} from '../../src/market/index.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import type { Store } from '../../src/store/db.js';
import { insertListingChanges, recordListing } from '../../src/store/market/listings.js';
import { recordCategorySnapshot, snapshotsSince } from '../../src/store/market/snapshots.js';
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

/**
 * Raises, as a snapshot would, the first rank alert the detector finds for `own` in the stored history of
 * `category` (stored at that snapshot's time, with what explains it), and an entrants alert for
 * `entrant` when given: what the pages' "what moved" feeds and rank sections show.
 */
export function raiseStoredRankAlert(
  store: Store,
  options: { category: string; own: string; ownName: string; entrant?: { handle: string; name: string } },
): RankAlert {
  const history = snapshotsSince(store.db, options.category, new Date(0));
  for (let i = 2; i <= history.length; i++) {
    const move =
      detectRankAlerts({
        history: history.slice(0, i),
        ownApps: [options.own],
        context: options.entrant ? { newEntrants: new Set([options.entrant.handle]) } : {},
      }).alerts.find((a) => a.handle === options.own) ??
      (i === history.length ? biggestFall(history, options.own) : undefined);
    if (!move) continue;
    const category = { handle: options.category, name: history[i - 1]?.name ?? options.category };
    const raises: MarketRaise[] = [
      {
        subject: options.own,
        alert: {
          kind: 'rank',
          app: { handle: options.own, name: options.ownName, url: `https://apps.example/${options.own}` },
          category,
          priority: 'high',
          move,
        },
        dedupeKey: `rank:${options.category}:${options.own}:test`,
        notify: [],
      },
    ];
    if (options.entrant) {
      raises.push({
        subject: `category/${options.category}`,
        alert: {
          kind: 'entrants',
          category,
          priority: 'medium',
          apps: [
            {
              ...options.entrant,
              url: `https://apps.example/${options.entrant.handle}`,
              rank: 3,
              developer: 'Dev',
              rating: 4.1,
              builtFor: true,
            },
          ],
        },
        dedupeKey: `entrants:${options.category}:test`,
        notify: [],
      });
    }
    raiseMarketAlerts(store.db, marketInboxConfig().channels, raises, new Date(move.at));
    return move;
  }
  throw new Error(`the stored history of ${options.category} raised no rank alert for ${options.own}`);
}

/**
 * The own app's biggest fall between two snapshots, as the detector words a move, with the apps that passed
 * it: for a noisy history (the simulator's month reshuffles often) where the detector rightly stays quiet.
 */
function biggestFall(history: readonly CategorySnapshot[], own: string): RankAlert | undefined {
  let best: { before: CategorySnapshot; after: CategorySnapshot; from: number; to: number } | undefined;
  for (let i = 1; i < history.length; i++) {
    const before = history[i - 1] as CategorySnapshot;
    const after = history[i] as CategorySnapshot;
    const from = before.apps.find((a) => a.handle === own)?.rank;
    const to = after.apps.find((a) => a.handle === own)?.rank;
    if (from == null || to == null || to <= from) continue;
    if (!best || to - from > best.to - best.from) best = { before, after, from, to };
  }
  if (!best) return undefined;
  const { before, after, from, to } = best;
  const passed = after.apps.flatMap((a) => {
    const was = before.apps.find((b) => b.handle === a.handle)?.rank ?? null;
    return a.rank !== null && a.rank < to && (was === null || was > from) && a.handle !== own
      ? [{ handle: a.handle, name: a.name, from: was, to: a.rank, changes: [] }]
      : [];
  });
  return {
    category: after.category,
    handle: own,
    name: own,
    at: after.at,
    kind: 'fell',
    topN: from <= 10 && to > 10 ? 'left' : null,
    from,
    to,
    previous: from,
    band: 4,
    ownMove: null,
    reasons: passed.length > 0 ? [{ kind: 'passed', apps: passed }] : [{ kind: 'none' }],
  };
}
