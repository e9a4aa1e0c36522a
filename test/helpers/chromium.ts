/**
 * The inbox with sample data in Debian's Chromium (`apt-get install chromium`; .ci/run installs it), driven
 * by playwright-core, which downloads no browser of its own: for the tests of screens, live updates and
 * accessibility. Outside CI, a machine without Chromium skips them (`describe.skipIf(!CHROMIUM && !CI)`).
 */
import { existsSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { connectRedis } from '../../src/queue/connection.js';
import { SAMPLE_USER, sampleInboxConfig, seedInboxSample } from '../fixtures/inbox-sample.js';
import { REDIS_URL, tempStore } from './index.js';
import { startWebServer, type WebServer } from './web.js';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));

export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };

export interface SampleInbox {
  store: ReturnType<typeof tempStore>;
  server: WebServer;
  browser: Browser;
  /** A new page in a context of its own, logged in as the sample user. */
  loggedIn(options?: BrowserContextOptions): Promise<Page>;
  close(): Promise<void>;
}

/** The sample inbox (test/fixtures/inbox-sample.ts) on a real server, and Chromium to look at it. */
export async function startSampleInbox(options: { livePollMs?: number } = {}): Promise<SampleInbox> {
  if (!CHROMIUM) throw new Error('Chromium is not installed: apt-get install -y chromium');
  const redis: Redis = await connectRedis(REDIS_URL);
  const store = tempStore();
  await seedInboxSample(store, Date.now());
  const server = await startWebServer({
    store,
    redis,
    config: sampleInboxConfig(),
    ...(options.livePollMs ? { livePollMs: options.livePollMs } : {}),
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  return {
    store,
    server,
    browser,
    async loggedIn(contextOptions = {}) {
      const context = await browser.newContext({ viewport: DESKTOP, ...contextOptions });
      const page = await context.newPage();
      await page.goto(`${server.url}/login`);
      await page.fill('input[name=name]', SAMPLE_USER.name);
      await page.fill('input[name=password]', SAMPLE_USER.password);
      await Promise.all([page.waitForURL(`${server.url}/`), page.keyboard.press('Enter')]);
      return page;
    },
    async close() {
      await browser.close();
      await server.server.close();
      store.cleanup();
      await redis.quit();
    },
  };
}
