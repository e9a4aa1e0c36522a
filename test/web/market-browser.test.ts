import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { addUser } from '../../src/web/users.js';
import {
  ENTRANT,
  HOSTILE_PLAN,
  HOSTILE_TITLE,
  MARKET_CATEGORY,
  marketSimOptions,
  seedMarketSample,
  TEST_APPS,
} from '../fixtures/market-sample.js';
import { REDIS_URL, tempStore } from '../helpers/index.js';
import {
  type MarketSeeder,
  marketInboxConfig,
  raiseStoredRankAlert,
  startMarketSeeder,
} from '../helpers/market.js';
import { startWebServer, type WebServer } from '../helpers/web.js';

/**
 * The market's pages in Debian's Chromium, driven by playwright-core (as test/web/browser.test.ts): the
 * overview and a category's chart render under the inbox's Content-Security-Policy, the failed snapshots
 * show as a hatched band that breaks the lines, and the hostile titles and plan names of the simulator
 * stay text: nothing runs. A machine without Chromium skips this file outside CI.
 */
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const PASSWORD = 'market browser password';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe's serious and critical violations on the page (as test/web/accessibility.test.ts audits the inbox's). */
async function audit(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(AXE);
  const violations = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown }> } }).axe;
    return (await axe.run()).violations;
  })) as Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>;
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}) at ${v.nodes
          .slice(0, 3)
          .map((n) => JSON.stringify(n.target))
          .join('; ')}`,
    );
}

/** How far the page is wider than its viewport, in CSS pixels (0: nothing to scroll sideways). */
function overflow(page: Page): Promise<number> {
  type Doc = { documentElement: { scrollWidth: number; clientWidth: number } };
  return page.evaluate(() => {
    const root = (globalThis as unknown as { document: Doc }).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

/** A computed style of an element, read in the page (the test itself has no DOM types). */
function css(locator: Locator, property: string): Promise<string> {
  type Styles = { getComputedStyle(el: unknown): { getPropertyValue(p: string): string } };
  return locator.evaluate(
    (el, name) => (globalThis as unknown as Styles).getComputedStyle(el).getPropertyValue(name),
    property,
  );
}

describe.skipIf(!CHROMIUM && !process.env.CI)('the market pages in a browser', () => {
  let redis: Redis;
  let store: ReturnType<typeof tempStore>;
  let seeder: MarketSeeder;
  let server: WebServer;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  const violations: string[] = [];

  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('Chromium is not installed: apt-get install -y chromium');
    redis = await connectRedis(REDIS_URL);
    store = tempStore();
    seeder = await startMarketSeeder(store, marketSimOptions(TEST_APPS));
    await seedMarketSample(seeder, TEST_APPS, Date.now());
    raiseStoredRankAlert(store, {
      category: MARKET_CATEGORY,
      own: 'shop',
      ownName: 'Shop',
      entrant: { handle: ENTRANT, name: HOSTILE_TITLE },
    });
    await addUser(store, { name: 'ana', password: PASSWORD });
    server = await startWebServer({ store, redis, config: marketInboxConfig() });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${server.url}/market`);
    await page.fill('input[name=name]', 'ana');
    await page.fill('input[name=password]', PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.url}/market`);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await server?.server.close();
    await seeder?.close();
    store?.cleanup();
    await redis?.quit();
  });

  const nothingRan = async () => {
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(violations).toEqual([]);
  };

  it('lists the watched apps with their ranks, moves and last changes, styled', async () => {
    const rows = page.locator('table.market tbody tr');
    expect(await rows.count()).toBe(2);
    const shop = page.locator('tr[data-app="shop"]');
    expect(await shop.locator('ul.ranks li').textContent()).toMatch(
      /^Store design #\d+ ▼\d+ This week: #\d+, ▼\d+ .*Rank alert: fell #\d+ → #\d+ on \d+ \w+$/,
    );
    // The stylesheet reached the page: a fall is red, not the text's colour.
    const fall = shop.locator('.move.down');
    expect(await css(fall, 'color')).toBe('rgb(198, 40, 40)');
    expect(await page.locator('tr[data-app="rival"] a.change').textContent()).toBe(
      'Title: "Rival" → "Rival & Co"',
    );
    await nothingRan();
  });

  it('is reached from every page’s header', async () => {
    await page.goto(`${server.url}/`);
    await page.click('header.top a.nav');
    await page.waitForURL(`${server.url}/market`);
  });

  it('draws a category’s ranks with the failed snapshots as a hatched break, the entrant as text', async () => {
    await page.click(`a[href="/categories/${MARKET_CATEGORY}"]`);
    await page.waitForURL(`${server.url}/categories/${MARKET_CATEGORY}`);
    const gap = page.locator('svg.chart.ranks rect.gap');
    expect(await gap.count()).toBe(1);
    const band = await gap.boundingBox();
    expect(band?.width).toBeGreaterThan(3);
    expect(await css(gap, 'fill')).toMatch(/url\(.*#gap-hatch/);
    // The own app's line is drawn thick, in two pieces, one each side of the band.
    const own = page.locator('svg.chart.ranks g.series.own path');
    expect(await css(own, 'stroke-width')).toBe('3px');
    const d = (await own.getAttribute('d')) ?? '';
    const starts = [...d.matchAll(/M([\d.]+)/g)].map((m) => Number(m[1]));
    expect(starts).toHaveLength(2);
    const ownBox = await own.boundingBox();
    expect(ownBox?.width).toBeGreaterThan(100);
    // The entrant's hostile title is a name, shown as typed.
    const entrant = page.locator('table.entrants td', { hasText: 'Kid' });
    expect(await entrant.first().textContent()).toBe(HOSTILE_TITLE);
    expect(await page.locator('table.entrants').textContent()).not.toContain(ENTRANT);
    await nothingRan();
  });

  for (const scheme of ['light', 'dark'] as const) {
    for (const [screen, viewport] of [
      ['laptop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      it(`has no serious or critical accessibility violation, nor sideways scrolling (${scheme}, ${screen})`, async () => {
        const context = await browser.newContext({
          viewport,
          colorScheme: scheme,
          storageState: await page.context().storageState(),
        });
        const tab = await context.newPage();
        for (const path of [
          '/market',
          `/categories/${MARKET_CATEGORY}`,
          '/apps/rival',
          '/apps/shop',
          `/apps/${ENTRANT}`,
          '/categories/nowhere',
        ]) {
          await tab.goto(`${server.url}${path}`);
          expect(await audit(tab), path).toEqual([]);
          expect(await overflow(tab), path).toBe(0);
        }
        await context.close();
      });
    }
  }

  it('lists what moved, each alert with its why, linking to the category and the apps', async () => {
    await page.goto(`${server.url}/market`);
    const rank = page.locator('#moved-h ~ ol.feed li[data-kind="rank"]');
    expect(await rank.count()).toBe(1);
    expect(await rank.locator('.move-title').textContent()).toMatch(/^▼ Shop fell from #\d+ to #\d+ in /);
    expect(await rank.locator('ul.why li').count()).toBeGreaterThan(0);
    expect(await rank.locator(`a[href="/categories/${MARKET_CATEGORY}"]`).count()).toBe(1);
    const entrants = page.locator('ol.feed li[data-kind="entrants"]');
    expect(await entrants.locator('.tag.new').textContent()).toBe('new');
    expect(await entrants.locator(`a[href="/apps/${ENTRANT}"]`).textContent()).toBe(HOSTILE_TITLE);
    // The rank alert's side of the shop's story jumps to the alert in the feed.
    await page.locator('tr[data-app="shop"] .story-alert a').click();
    expect(page.url()).toMatch(/#move-\d+$/);
    // An entrant seen only in the market has a page of its own.
    await entrants.locator(`a[href="/apps/${ENTRANT}"]`).click();
    await page.waitForURL(`${server.url}/apps/${ENTRANT}`);
    expect(await page.locator('h1').textContent()).toContain(HOSTILE_TITLE);
    expect(await page.locator('#ranks table.ranks-now tbody tr').count()).toBe(1);
    await nothingRan();
  });

  it('gives the app’s page a rank section: rating, rank story, chart and its alerts', async () => {
    await page.goto(`${server.url}/apps/shop`);
    const section = page.locator('section#ranks');
    expect(await section.locator('.rating-now').textContent()).toMatch(/^(\d\.\d\d|no rating)$/);
    const row = section.locator(`tr[data-category="${MARKET_CATEGORY}"]`);
    expect(await row.locator('.story-week').textContent()).toMatch(/^This week: #\d+, ▼\d+ against/);
    expect(await row.locator('.story-alert').textContent()).toMatch(/^Rank alert: fell #\d+ → #\d+ on /);
    const line = section.locator('svg.chart.ranks g.series path');
    expect((await line.boundingBox())?.width).toBeGreaterThan(50);
    expect(await section.locator('ol.feed li[data-kind="rank"] ul.why li').count()).toBeGreaterThan(0);
    await nothingRan();
  });

  it('marks on the category chart the events that explain the moves', async () => {
    await page.goto(`${server.url}/categories/${MARKET_CATEGORY}`);
    const events = page.locator('svg.chart.ranks g.event');
    expect(await events.count()).toBeGreaterThan(2);
    const kinds = await events.evaluateAll((els) =>
      els.map((el) => (el as unknown as { getAttribute(n: string): string }).getAttribute('class')),
    );
    expect(kinds).toEqual(expect.arrayContaining(['event ev-rank', 'event ev-sponsored']));
    const marker = page.locator('svg.chart.ranks g.ev-rank line').first();
    expect(await css(marker, 'stroke')).toBe('rgb(179, 38, 30)');
    // The chart takes the page's width at 1280 px, and its axis reads.
    expect((await page.locator('svg.chart.ranks').boundingBox())?.width).toBeGreaterThan(800);
    const ticks = await page.locator('svg.chart.ranks text.axis').allTextContents();
    expect(ticks).toEqual(expect.arrayContaining(['#1', '#5', '#10']));
    expect(ticks.some((t) => /^\d{1,2} [A-Z][a-z]{2}/.test(t))).toBe(true);
    // The entrant passed nobody here, but the rank alert's passers have lines.
    expect(await page.locator('ul.series-legend li', { hasText: 'passed your app' }).count()).toBeGreaterThan(
      0,
    );
    await nothingRan();
  });

  it('shows a competitor’s listing timeline with its hostile plan name as text', async () => {
    await page.goto(`${server.url}/apps/rival`);
    const changes = page.locator('#listing ul.changes li');
    expect(await changes.count()).toBe(3);
    expect(await changes.nth(0).textContent()).toBe('Title: Rival → Rival & Co');
    expect(await changes.nth(1).textContent()).toBe(`Plan added: ${HOSTILE_PLAN} ($9/month)`);
    expect(await changes.nth(2).textContent()).toBe('Growth: price down $29/month → $19/month');
    await nothingRan();
  });
});
