/**
 * Renders the sample weekly digest and a sample alert email, and screenshots them with headless Chromium
 * (Debian's `chromium` package) for the README and docs/, then the triage inbox with sample data, and the
 * market views with a month read from the simulator: `npx tsx scripts/screenshots.ts [docs]`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import express from 'express';
import { chromium } from 'playwright-core';
import type { Notification } from '../src/alerts/types.js';
import { parseConfig } from '../src/config/index.js';
import { createLogger } from '../src/log.js';
import { renderDigestEmail, renderEmail } from '../src/render/index.js';
import { openStore } from '../src/store/db.js';
import { createWeb } from '../src/web/router.js';
import { sampleDigestData } from '../test/fixtures/digest-sample.js';
import { SAMPLE_USER, sampleInboxConfig, seedInboxSample } from '../test/fixtures/inbox-sample.js';
import {
  ENTRANT,
  MARKET_CATEGORY,
  marketSimOptions,
  type SampleApps,
  seedMarketSample,
} from '../test/fixtures/market-sample.js';
import { raiseStoredRankAlert, startMarketSeeder } from '../test/helpers/market.js';

/** The inbox sample's apps in the market: its own apps climbing and falling, its competitor cutting a price. */
const MARKET_APPS: SampleApps = {
  own: 'bundle-builder',
  competitor: 'rival-bundles',
  competitorRenamed: 'Rival Bundles Pro',
  others: [{ handle: 'stock-sync', rank: 21 }],
  entrantTitle: 'Bundle Kit Express',
  newPlan: 'Starter',
};

const outDir = resolve(process.argv[2] ?? 'docs');
const work = mkdtempSync(join(tmpdir(), 'reviewwatch-shot-'));

const sampleAlert: Notification = {
  kind: 'single',
  alert: {
    kind: 'review',
    app: {
      handle: 'bundle-builder',
      name: 'Bundle Builder',
      url: 'https://apps.platform.example/bundle-builder',
    },
    review: {
      reviewId: '2369401',
      reviewer: 'Maple & Oak Goods',
      location: 'Canada',
      rating: 1,
      content:
        'After the update on Tuesday our bundles stopped showing at checkout and customers were charged full price for every item. We had to refund 37 of them by hand. Support has not replied to three emails. Looking at alternatives now.',
      createdDate: '2026-11-18T00:00:00+00:00',
      timeUsingApp: 'Over 1 year using the app',
    },
    severity: {
      score: 100,
      priority: 'critical',
      reasons: [
        '1 star',
        'mentions billing: charged, refund',
        'mentions support: support',
        'mentions churn: alternatives',
        'long-time user: over 1 year using the app',
      ],
    },
  },
};

/** A mail client shows the subject above the body; so does the screenshot. */
function shoot(name: string, subject: string, html: string, height: number): void {
  const page = join(work, `${name}.html`);
  const escaped = subject.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  writeFileSync(
    page,
    `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#e9ecef"><div style="font:600 15px sans-serif;padding:12px 16px;background:#fff;border-bottom:1px solid #ccc">${escaped}</div>${html}</body>`,
  );
  const out = join(outDir, `${name}.png`);
  execFileSync(
    process.env.CHROMIUM ?? '/usr/bin/chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      `--user-data-dir=${join(work, 'profile')}`,
      `--window-size=760,${height}`,
      `--screenshot=${out}`,
      `file://${page}`,
    ],
    { stdio: 'ignore' },
  );
  console.log(`wrote ${out}`);
}

/**
 * The triage inbox from sample data: its list, a review's page and an app's page, logged in through the
 * form like a person, in a browser driven by playwright-core.
 */
async function shootInbox(): Promise<void> {
  const store = openStore(join(work, 'inbox.db'));
  const now = Date.now();
  await seedInboxSample(store, now);
  const seeder = await startMarketSeeder(store, marketSimOptions(MARKET_APPS));
  await seedMarketSample(seeder, MARKET_APPS, now);
  await seeder.close();
  // The alerts the month raised: what the pages' "what moved" feeds and rank stories show.
  raiseStoredRankAlert(store, {
    category: MARKET_CATEGORY,
    own: MARKET_APPS.own,
    ownName: 'Bundle Builder',
    entrant: { handle: ENTRANT, name: MARKET_APPS.entrantTitle ?? ENTRANT },
  });
  const sample = sampleInboxConfig();
  const config = parseConfig(
    {
      catalog: { simulator: true },
      apps: sample.apps.map((a) => ({ handle: a.handle, name: a.name, role: a.role })),
      categories: [{ handle: MARKET_CATEGORY }, { handle: 'inventory-management' }],
    },
    {},
  );
  const web = createWeb({
    store,
    config,
    admin: {},
    logger: createLogger({ level: 'warn' }),
  });
  const app = express();
  app.use(web.router);
  const server = createServer(app);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${base}/login`);
    await page.fill('input[name=name]', SAMPLE_USER.name);
    await page.fill('input[name=password]', SAMPLE_USER.password);
    await Promise.all([page.waitForURL(`${base}/`), page.keyboard.press('Enter')]);
    await page.screenshot({ path: join(outDir, 'inbox.png') });
    console.log(`wrote ${join(outDir, 'inbox.png')}`);
    await page.click('table.inbox tbody tr:first-child a.excerpt');
    await page.screenshot({ path: join(outDir, 'inbox-review.png'), fullPage: true });
    console.log(`wrote ${join(outDir, 'inbox-review.png')}`);
    await page.goto(`${base}/apps/bundle-builder`);
    await page.screenshot({ path: join(outDir, 'inbox-app.png'), fullPage: true });
    console.log(`wrote ${join(outDir, 'inbox-app.png')}`);
    // What reviewers talk about: each app's topics with their trends, own apps against the competitor.
    await page.goto(`${base}/topics?period=30d`);
    await page.screenshot({ path: join(outDir, 'topics.png'), fullPage: true });
    console.log(`wrote ${join(outDir, 'topics.png')}`);
    // The market: a category's ranks over the month (its chart, legend and top ten), and the overview.
    await page.goto(`${base}/categories/${MARKET_CATEGORY}`);
    await page.screenshot({ path: join(outDir, 'market.png') });
    console.log(`wrote ${join(outDir, 'market.png')}`);
    await page.goto(`${base}/market`);
    await page.screenshot({
      path: join(outDir, 'market-overview.png'),
      clip: { x: 0, y: 0, width: 1280, height: 1000 },
    });
    console.log(`wrote ${join(outDir, 'market-overview.png')}`);
    // The same session on a phone (390×844): the list as cards, the filters folded.
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      storageState: await page.context().storageState(),
    });
    const small = await phone.newPage();
    await small.goto(`${base}/`);
    await small.screenshot({ path: join(outDir, 'inbox-phone.png') });
    console.log(`wrote ${join(outDir, 'inbox-phone.png')}`);
    await small.goto(`${base}/apps/bundle-builder`);
    await small.screenshot({ path: join(outDir, 'inbox-app-phone.png'), fullPage: true });
    console.log(`wrote ${join(outDir, 'inbox-app-phone.png')}`);
  } finally {
    await browser.close();
    await new Promise((done) => server.close(done));
    store.close();
  }
}

try {
  const digest = renderDigestEmail(sampleDigestData());
  shoot('digest', digest.subject, digest.html, 2400);
  const alert = renderEmail(sampleAlert);
  shoot('alert', alert.subject, alert.html, 660);
  await shootInbox();
} finally {
  rmSync(work, { recursive: true, force: true });
}
