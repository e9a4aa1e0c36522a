/**
 * The market's pages and JSON over HTTP, on the real ops server with the inbox mounted, from a store filled
 * with a month read from the simulator (test/fixtures/market-sample.ts): the overview, a category with its
 * gap, entrant and sponsored slots, an app's listing timeline, and what an unknown handle or a bad
 * parameter gets. Hostile titles and plan names come back escaped in the pages, as data in the JSON.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { connectRedis } from '../../src/queue/connection.js';
import {
  DAY,
  ENTRANT,
  GAP_DAYS,
  HOSTILE_PLAN,
  HOSTILE_TITLE,
  MARKET_CATEGORY,
  marketSimOptions,
  SAMPLE_DAYS,
  sampleDay,
  seedMarketSample,
  TEST_APPS,
} from '../fixtures/market-sample.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { REDIS_URL, tempStore } from '../helpers/index.js';
import { type MarketSeeder, startMarketSeeder } from '../helpers/market.js';
import { ADMIN_TOKEN, startWebServer, type WebServer } from '../helpers/web.js';

const AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };
const NOW = Date.now();

let redis: Redis;
let store: ReturnType<typeof tempStore>;
let seeder: MarketSeeder;
let server: WebServer;

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
  store = tempStore();
  seeder = await startMarketSeeder(store, marketSimOptions(TEST_APPS));
  await seedMarketSample(seeder, TEST_APPS, NOW);
  new ReviewSeeder(store).review({ app: 'shop', rating: 1, createdAt: NOW - DAY });
  const config = parseConfig(
    {
      catalog: { simulator: true },
      apps: [
        { handle: 'shop', name: 'Shop' },
        { handle: 'rival', role: 'competitor' },
      ],
      categories: [{ handle: MARKET_CATEGORY }, { handle: 'finances' }],
      web: { publicUrl: 'https://inbox.example' },
    },
    {},
  );
  server = await startWebServer({ store, redis, config });
}, 60_000);

afterAll(async () => {
  await server.server.close();
  await seeder.close();
  store.cleanup();
  await redis.quit();
});

async function page(path: string, status = 200): Promise<string> {
  const res = await fetch(`${server.url}${path}`, { headers: AUTH });
  expect(res.status, path).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  return res.text();
}

// biome-ignore lint/suspicious/noExplicitAny: the test reads JSON of every shape it asks for
async function api(path: string, status = 200): Promise<any> {
  const res = await fetch(`${server.url}${path}`, { headers: AUTH });
  expect(res.status, path).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return res.json();
}

/** Markup a hostile title or plan name could have smuggled in. */
function expectNothingInjected(text: string): void {
  const markup = text.replace(/<script src="\/assets\/inbox\.[0-9a-f]{12}\.js" defer><\/script>/, '');
  expect(markup).not.toMatch(/<script/i);
  expect(markup).not.toMatch(/<img/i);
  expect(markup).not.toMatch(/<b>/);
  expect(markup).not.toContain('<!channel>');
}

/** The row of an app in the overview table. */
function rowOf(text: string, handle: string): string {
  const from = text.indexOf(`<tr data-app="${handle}">`);
  expect(from, handle).toBeGreaterThan(0);
  return text.slice(from, text.indexOf('</tr>', from));
}

describe('/market', () => {
  it('shows each watched app with its rank and fall, its open low reviews and its last change', async () => {
    const text = await page('/market');
    expectNothingInjected(text);
    const shop = rowOf(text, 'shop');
    expect(shop).toContain('<a href="/apps/shop">Shop</a>');
    expect(shop).toMatch(
      /<a href="\/categories\/store-design">Store design<\/a> <strong>#\d+<\/strong> <span class="move down"[^>]*>▼\d+<\/span>/,
    );
    expect(shop).toMatch(/status=new%2Cacknowledged[^"]*">1<\/a>/);
    expect(shop).toContain('none seen');
    const rival = rowOf(text, 'rival');
    expect(rival).toContain('(competitor)');
    expect(rival).toContain('Title: &quot;Rival&quot; → &quot;Rival &amp; Co&quot;');
    expect(text).toContain(
      '<a href="/categories/finances">finances</a>: <span class="muted">waiting for its first snapshot</span>',
    );
  });

  it('is the same data in /api/market, with the inbox’s addresses', async () => {
    const body = await api('/api/market');
    expect(body.categories.map((c: { handle: string; state: string }) => [c.handle, c.state])).toEqual([
      [MARKET_CATEGORY, 'ok'],
      ['finances', 'waiting'],
    ]);
    expect(body.categories[0].url).toBe(`https://inbox.example/categories/${MARKET_CATEGORY}`);
    const [shop, rival] = body.apps;
    expect(shop).toMatchObject({ handle: 'shop', name: 'Shop', role: 'own', openLowReviews: 1 });
    expect(shop.ranks[0].move).toBeLessThanOrEqual(-5);
    expect(shop.ranks[0].before.at).toBe(new Date(sampleDay(NOW, SAMPLE_DAYS - 8)).toISOString());
    expect(rival.name).toBe('Rival & Co');
    expect(rival.lastChange.changes[0]).toMatchObject({ field: 'title', kind: 'title', tone: 'changed' });
    await api('/api/market?category=store-design', 400);
  });
});

describe('/categories/HANDLE', () => {
  it('draws the ranks with the failed snapshots as a break, not as rank 0', async () => {
    const text = await page(`/categories/${MARKET_CATEGORY}`);
    expectNothingInjected(text);
    const svg = text.slice(text.indexOf('<svg class="chart ranks'), text.indexOf('</svg>') + 6);
    expect(svg.match(/<rect class="gap"/g)).toHaveLength(1);
    expect(svg).toContain('2 snapshots failed');
    // The own app's line: two segments, one each side of the gap, every point inside the plot.
    const own = /<g class="series r0 own">.*?<path d="([^"]+)"/s.exec(svg)?.[1] ?? '';
    expect(own.match(/M/g)).toHaveLength(2);
    const ys = [...own.matchAll(/[ML][\d.]+[ ,]([\d.]+)/g)].map((m) => Number(m[1]));
    expect(ys).toHaveLength(SAMPLE_DAYS - GAP_DAYS.length);
    expect(Math.min(...ys)).toBeGreaterThanOrEqual(12);
    expect(text).toContain('2 snapshots failed (');
  });

  it('lists the new entrant, escaped, the top places and the sponsored slots', async () => {
    const text = await page(`/categories/${MARKET_CATEGORY}`);
    expect(text).toContain(
      '&lt;script&gt;window.__xss=(window.__xss||0)+1&lt;/script&gt;Kid &lt;b&gt;Bundles&lt;/b&gt;',
    );
    const entrants = text.slice(text.indexOf('id="entrants-h"'), text.indexOf('id="exits-h"'));
    expect(entrants).toContain('Kid &lt;b&gt;Bundles');
    expect(entrants).toMatch(
      /<td class="num" data-label="Came in at">#(3\d|4\d)<\/td><td class="num" data-label="Now">#\d<\/td>/,
    );
    expect(text).toMatch(/<h2 id="top-h">Top 10 now<\/h2>/);
    expect(text).toMatch(/<ol class="sponsored"><li>/);
    // Every app links to its page: an entrant, seen only in the market, has one too.
    expect(text).toContain('<a href="/apps/shop">Shop</a>');
    expect(text).toContain(`href="/apps/${ENTRANT}"`);
    const entrant = await page(`/apps/${ENTRANT}`);
    expectNothingInjected(entrant);
    expect(entrant).toContain('Not a watched app: seen in the tracked categories.');
    expect(entrant).toMatch(/<tr data-category="store-design">.*<strong>#\d+<\/strong>/s);
    await page('/apps/never-seen-anywhere', 404);
  });

  it('shows a shorter span, and answers an unknown category with a page saying what is tracked', async () => {
    expect(await page(`/categories/${MARKET_CATEGORY}?days=7`)).toContain('Ranks, last 7 days');
    const unknown = await page('/categories/productivity', 404);
    expect(unknown).toContain('No such category');
    expect(unknown).toContain(`Tracked: ${MARKET_CATEGORY}, finances.`);
    await page('/categories/Not%20A%20Handle', 404);
    const refused = await page(`/categories/${MARKET_CATEGORY}?days=forever`, 400);
    expect(refused).toContain('days is a whole number of days from 1 to 365, not &quot;forever&quot;');
  });

  it('is the same data in /api/categories/:handle: points per snapshot, gaps, entrants, exits', async () => {
    const body = await api(`/api/categories/${MARKET_CATEGORY}`);
    expect(body.snapshots).toBe(SAMPLE_DAYS - GAP_DAYS.length);
    expect(body.gaps).toEqual([
      {
        from: new Date(sampleDay(NOW, 12)).toISOString(),
        to: new Date(sampleDay(NOW, 13)).toISOString(),
        snapshots: 2,
        status: 'failed',
      },
    ]);
    expect(body.series[0]).toMatchObject({ handle: 'shop', role: 'own' });
    expect(body.series[0].points).toHaveLength(SAMPLE_DAYS - GAP_DAYS.length);
    expect(body.entrants.find((e: { handle: string }) => e.handle === ENTRANT).name).toBe(HOSTILE_TITLE);
    expect(body.sponsored.now.length).toBeGreaterThan(0);
    expect((await api(`/api/categories/${MARKET_CATEGORY}?days=7`)).snapshots).toBe(7);
    expect(await api('/api/categories/productivity', 404)).toEqual({
      error: 'no such category',
      tracked: [MARKET_CATEGORY, 'finances'],
    });
    const bad = await api(`/api/categories/${MARKET_CATEGORY}?days=0&span=1`, 400);
    expect(bad.problems.map((p: { name: string }) => p.name)).toEqual(['days', 'span']);
  });
});

describe('an app’s listing changes', () => {
  it('are a timeline of field diffs on its page, hostile plan names escaped', async () => {
    const text = await page('/apps/rival');
    expectNothingInjected(text);
    const section = text.slice(text.indexOf('<section aria-labelledby="listing-h"'));
    expect(section).toContain('Title: <del>Rival</del> → <ins>Rival &amp; Co</ins>');
    expect(section).toContain(
      '<strong>Growth</strong>: price down <del>$29/month</del> → <ins>$19/month</ins>',
    );
    expect(section).toContain('Plan added: <strong>&lt;img src=x onerror=&quot;');
    expect(section.indexOf('Title:')).toBeLessThan(section.indexOf('price down'));
    expect(await page('/apps/shop')).toContain('No change since the listing was first read.');
  });

  it('come as JSON by version from /api/apps/:handle/changes, a page at a time', async () => {
    const first = await api('/api/apps/rival/changes?limit=1');
    expect(first.url).toBe('https://inbox.example/apps/rival#listing');
    expect(first.versions).toHaveLength(1);
    expect(first.versions[0].changes[0]).toMatchObject({
      kind: 'title',
      change: { from: 'Rival', to: 'Rival & Co' },
    });
    const second = await api(`/api/apps/rival/changes?limit=1&cursor=${first.next}`);
    expect(second.versions[0].changes.map((c: { kind: string }) => c.kind)).toEqual([
      'plan-added',
      'price-down',
    ]);
    expect(second.versions[0].changes[0].change.plan).toBe(HOSTILE_PLAN);
    expect(second.next).toBeNull();
    expect(await api('/api/apps/shop/changes')).toMatchObject({ app: 'shop', versions: [], next: null });
    expect(await api('/api/apps/nobody/changes', 404)).toEqual({ error: 'no such app' });
    const bad = await api('/api/apps/rival/changes?limit=0&cursor=abc', 400);
    expect(bad.problems).toEqual([
      { name: 'limit', message: 'limit is a whole number of listing versions from 1 to 100, not "0"' },
      { name: 'cursor', message: 'cursor is the `next` of the page before, as given, not "abc"' },
    ]);
  });

  it('need the same credentials as the rest of the inbox', async () => {
    for (const path of ['/api/market', `/api/categories/${MARKET_CATEGORY}`, '/api/apps/rival/changes']) {
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(401);
    }
    const res = await fetch(`${server.url}/market`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login?next=%2Fmarket');
  });
});
