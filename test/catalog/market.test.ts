import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CatalogClient, CatalogNotFoundError, CatalogResponseError } from '../../src/catalog/index.js';
import { newEntrants, normalizeListing, snapshotOf } from '../../src/market/index.js';
import { CATEGORIES, type Simulator, startSimulator } from '../../src/simulator/index.js';

/** Category, listing and developer reads (endpoints 2, 3, 4) against the simulator over HTTP. */
const KEY = 'market-key';
let sim: Simulator;
let client: CatalogClient;
const CATEGORY = (CATEGORIES[1] as (typeof CATEGORIES)[number]).handle;

beforeAll(async () => {
  sim = await startSimulator({ apiKey: KEY, appCount: 800, maxReviewsPerApp: 10, handles: ['my-app'] });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.controls.reset();
  client = new CatalogClient({ baseUrl: sim.url, apiKey: KEY, timeoutMs: 5_000 });
});

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

async function snapshot(pages: number) {
  const read = [];
  for (let page = 1; page <= pages; page++) read.push(await client.category(CATEGORY, { page }));
  return snapshotOf(CATEGORY, read, Date.now());
}

describe('category pages', () => {
  it('read into organic ranks 1..N, ads apart, on clean data and on odd data alike', async () => {
    const clean = await snapshot(2);
    sim.controls.setQuirks({
      ratingStrings: true,
      positionGlitches: true,
      duplicateEntries: true,
      extraFields: true,
    });
    const odd = await snapshot(2);
    for (const s of [clean, odd]) {
      const ranks = s.apps.filter((a) => a.rank !== null).map((a) => a.rank);
      expect(ranks).toEqual(Array.from({ length: ranks.length }, (_, i) => i + 1));
      expect(s.sponsored.length).toBeGreaterThanOrEqual(3);
      expect(s.apps.filter((a) => a.rank !== null).every((a) => typeof a.rating === 'number')).toBe(true);
    }
    // The same market read with duplicates and glitches gives the same ranks; the duplicate is counted.
    expect(odd.apps.map((a) => [a.handle, a.rank])).toEqual(clean.apps.map((a) => [a.handle, a.rank]));
    expect(odd.duplicates).toBe(1);
    expect(clean.duplicates).toBe(0);
  });

  it('a new entrant is one message with every new app, from data read over HTTP', async () => {
    const first = await snapshot(2);
    const seen = new Set(first.apps.filter((a) => a.rank !== null).map((a) => a.handle));
    sim.controls.addMarketEvents([
      { kind: 'enter', at: 1, handle: 'new-kid', category: CATEGORY, fromRank: 3, toRank: 3, overTicks: 0 },
      {
        kind: 'enter',
        at: 1,
        handle: 'other-kid',
        category: CATEGORY,
        fromRank: 20,
        toRank: 20,
        overTicks: 0,
      },
    ]);
    expect(newEntrants(await snapshot(2), seen, { baseline: false })).toBeNull();
    sim.controls.advanceMarket(1);
    const found = newEntrants(await snapshot(2), seen, { baseline: false });
    expect(found?.apps.map((a) => a.handle).filter((h) => h.endsWith('kid'))).toEqual([
      'new-kid',
      'other-kid',
    ]);
  });

  it('an unknown category is CatalogNotFoundError naming the category', async () => {
    const err = await failure(client.category('no-such-category'));
    expect(err).toBeInstanceOf(CatalogNotFoundError);
    expect(err).toMatchObject({
      kind: 'category',
      handle: 'no-such-category',
      status: 404,
      retryable: false,
    });
    expect(err.message).toMatch(
      /^category "no-such-category" is not in the marketplace \(HTTP 404, "Not Found: Category not found/,
    );
  });

  it('a malformed category page fails before anything is read from it', async () => {
    sim.controls.malformNext(1, { pathIncludes: '/category/', kind: 'bad-field' });
    const err = await failure(client.category(CATEGORY));
    expect(err).toBeInstanceOf(CatalogResponseError);
    expect((err as CatalogResponseError).path).toBe('data.appCount');
  });
});

describe('listings', () => {
  it('reads a 50 KB description and hostile text as they are, and normalises them', async () => {
    sim.controls.setQuirks({ hostileText: true, longDescriptions: true });
    let hostile = false;
    for (const handle of sim.controls.handles().slice(0, 30)) {
      const detail = await client.app(handle);
      expect(detail.description.length).toBeGreaterThan(50_000);
      const listing = normalizeListing(detail);
      expect(listing.description).not.toMatch(/<p>|&nbsp;|&amp;/);
      if (/<!here>/.test(listing.plans.map((p) => p.name).join())) hostile = true;
    }
    expect(hostile).toBe(true);
  });

  it('sees a scripted price cut at its tick', async () => {
    sim.controls.addMarketEvents([
      { kind: 'price', at: 1, handle: 'my-app', plan: 'Cut', price: '$5/month' },
    ]);
    expect((await client.app('my-app')).pricings?.some((p) => p.name === 'Cut')).toBe(false);
    sim.controls.advanceMarket(1);
    expect((await client.app('my-app')).pricings?.find((p) => p.name === 'Cut')).toMatchObject({
      price: '$5/month',
      features: [],
    });
  });

  it('a delisted app is CatalogNotFoundError for the app', async () => {
    sim.controls.delist('my-app');
    const err = await failure(client.app('my-app'));
    expect(err).toMatchObject({ kind: 'app', handle: 'my-app', status: 404 });
    expect(err.message).toMatch(/^"my-app" is not in the marketplace/);
  });
});

describe('developers', () => {
  it('reads the full and the reduced form, with handles taken from the app urls', async () => {
    const handle = (await client.developers()).urls[0]?.handle as string;
    const full = await client.developer(handle);
    expect(full.website).toMatch(/^https:/);
    expect(full.apps.every((a) => a.handle !== '' && a.url.endsWith(`/${a.handle}`))).toBe(true);
    sim.controls.setQuirks({ reducedShapes: true, ratingStrings: true });
    const reduced = await client.developer(handle);
    expect(reduced.website ?? null).toBeNull();
    expect(reduced.apps.map((a) => [a.handle, a.rating])).toEqual(full.apps.map((a) => [a.handle, a.rating]));
  });

  it('an unknown developer is CatalogNotFoundError naming the developer', async () => {
    const err = await failure(client.developer('nobody-here'));
    expect(err).toMatchObject({ kind: 'developer', handle: 'nobody-here', status: 404 });
    expect(err.message).toMatch(/^developer "nobody-here" is not in the marketplace .*renamed or removed/);
  });
});
