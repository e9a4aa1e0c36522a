/**
 * Live updates in Chromium, with a review added and one triaged while the page is open: the banner offers
 * the new review without moving anything the reader is looking at, the title and icon follow the open count,
 * a triaged row changes in place; and without JavaScript the pages still say the count.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { triageOf } from '../../src/store/triage.js';
import { CHROMIUM, DESKTOP, type SampleInbox, startSampleInbox } from '../helpers/chromium.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { ADMIN_TOKEN } from '../helpers/web.js';

// The functions given to page.evaluate run in Chromium; the project is compiled without the DOM's types.
// biome-ignore lint/suspicious/noExplicitAny: the page's own globals, checked by the browser that runs them
declare const window: any;

/** The open count in the tab's title: "(21) Inbox · reviewwatch" gives 21. */
async function titleCount(page: Page): Promise<number> {
  const match = /^\((\d+)\) /.exec(await page.title());
  return match ? Number(match[1]) : 0;
}

describe.skipIf(!CHROMIUM && !process.env.CI)('live updates in a browser', () => {
  let inbox: SampleInbox;

  beforeAll(async () => {
    // Pages poll every 200 ms here instead of 15 s, so that the test waits for the condition briefly.
    inbox = await startSampleInbox({ livePollMs: 200 });
  }, 60_000);

  afterAll(async () => {
    await inbox?.close();
  });

  async function triage(id: number, status: string): Promise<void> {
    const res = await fetch(`${inbox.server.url}/api/reviews/${id}/triage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status }),
    });
    expect(res.status).toBe(200);
  }

  it('offers a review that arrives in a banner, moves nothing, and keeps the title and icon on the count', async () => {
    const page = await inbox.loggedIn({ viewport: { width: DESKTOP.width, height: 500 } });
    const rows = page.locator('table.inbox tbody tr');
    const before = await rows.count();
    const open = await titleCount(page);
    expect(open).toBeGreaterThan(0);
    expect(await page.getAttribute('#favicon', 'href')).toBe(`/favicon.svg?open=${open}`);
    // The reader has scrolled to the third review and is reading it.
    const third = rows.nth(2);
    await third.scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, 40));
    const scrolled = await page.evaluate(() => window.scrollY);
    const where = await third.boundingBox();

    new ReviewSeeder(inbox.store).review({
      app: 'bundle-builder',
      rating: 1,
      reviewer: 'Late Night Candles',
      content: 'Checkout broke again after tonight’s update.',
      createdAt: Date.now(),
    });
    const banner = page.locator('#live-banner');
    await banner.waitFor({ state: 'visible' });
    expect(await banner.textContent()).toBe('1 new review — show');
    await expect.poll(() => titleCount(page)).toBe(open + 1);
    expect(await page.title()).toBe(`(${open + 1}) Inbox · reviewwatch`);
    expect(await page.getAttribute('#favicon', 'href')).toBe(`/favicon.svg?open=${open + 1}`);
    // Nothing moved under the reader: the same rows, the same scroll, the third review where it was.
    expect(await rows.count()).toBe(before);
    expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);
    expect(await third.boundingBox()).toEqual(where);
    // The banner covers no row's text: it sits over the page's foot, and says it to a screen reader.
    expect(await page.textContent('#live')).toBe('1 new review.');

    // A colleague resolves a review on the page: its row says so in place, and the count drops.
    const id = Number(await rows.nth(3).getAttribute('data-review-id'));
    const wasOpen = ['new', 'acknowledged'].includes(
      (await rows.nth(3).locator('.status').textContent()) ?? '',
    );
    await triage(id, 'resolved');
    await expect.poll(() => rows.nth(3).locator('.status').textContent()).toBe('resolved');
    await expect.poll(() => titleCount(page)).toBe(wasOpen ? open : open + 1);
    expect(await third.boundingBox()).toEqual(where);

    // "show" draws the list afresh, with the new review on top.
    await banner.locator('a').click();
    await page.waitForLoadState();
    expect(await rows.count()).toBe(before + 1);
    expect(await rows.first().textContent()).toContain('Checkout broke again');
    expect(await banner.isVisible()).toBe(false);
    await page.context().close();
  });

  it("says on a review's page when someone else changes that review", async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    const id = Number(await page.locator('table.inbox tbody tr').nth(1).getAttribute('data-review-id'));
    await page.goto(`${inbox.server.url}/reviews/${id}`);
    const banner = page.locator('#live-banner');
    // Another review changing says nothing here.
    const { other } = inbox.store.db.$client
      .prepare('select min(id) as other from reviews where id <> ?')
      .get(id) as { other: number };
    await triage(other, 'ignored');
    await page.waitForResponse((res) => res.url().includes('/api/live') && res.status() === 200);
    expect(await banner.isVisible()).toBe(false);
    const status = triageOf(inbox.store.db, id).status === 'ignored' ? 'resolved' : 'ignored';
    await triage(id, status);
    await banner.waitFor({ state: 'visible' });
    expect(await banner.textContent()).toBe('This review was changed since the page was opened — show');
    await banner.locator('a').click();
    await page.waitForLoadState();
    expect(await page.textContent('#status')).toBe(status);
    await page.context().close();
  });

  it('without JavaScript, the title and icon still carry the count, and the list works', async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP, javaScriptEnabled: false });
    const open = await titleCount(page);
    expect(open).toBeGreaterThan(0);
    expect(await page.getAttribute('#favicon', 'href')).toBe(`/favicon.svg?open=${open}`);
    new ReviewSeeder(inbox.store).review({
      app: 'stock-sync',
      rating: 2,
      content: 'Sync lost a day of orders.',
      createdAt: Date.now(),
    });
    await page.reload();
    expect(await titleCount(page)).toBe(open + 1);
    expect(await page.isVisible('#live-banner')).toBe(false);
    await page.context().close();
  });
});
