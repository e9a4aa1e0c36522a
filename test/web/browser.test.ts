import { existsSync, readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { auditOf, triageOf } from '../../src/store/triage.js';
import { addUser } from '../../src/web/users.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { REDIS_URL, tempStore } from '../helpers/index.js';
import { startWebServer, type WebServer } from '../helpers/web.js';

/**
 * The real pages in Debian's Chromium (`apt-get install chromium`; .ci/run installs it), driven by
 * playwright-core, which downloads no browser of its own. Outside CI, a machine without it skips this file.
 */
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const PASSWORD = 'browser test password';
const HOSTILE_IMG = '<img src=x onerror="window.__xss = (window.__xss || 0) + 1">';
const HOSTILE_SCRIPT = '<script>window.__xss = (window.__xss || 0) + 10</script>';

describe.skipIf(!CHROMIUM && !process.env.CI)('the inbox in a browser', () => {
  let redis: Redis;
  let store: ReturnType<typeof tempStore>;
  let server: WebServer;
  let browser: Browser;
  let page: Page;
  const ids: Record<string, number> = {};
  const dialogs: string[] = [];
  const violations: string[] = [];

  beforeAll(async () => {
    if (!CHROMIUM) throw new Error('Chromium is not installed: apt-get install -y chromium');
    redis = await connectRedis(REDIS_URL);
    store = tempStore();
    const seed = new ReviewSeeder(store);
    const day = Date.now() - 86_400_000;
    ids.refund = seed.review({ content: 'They never sent my refund', rating: 1, createdAt: day });
    ids.slow = seed.review({ content: 'Support is slow', rating: 2, createdAt: day + 1000 });
    ids.hostile = seed.review({
      content: `${HOSTILE_IMG} ${HOSTILE_SCRIPT} <a href="javascript:window.__xss=100">click</a>`,
      reviewer: HOSTILE_IMG,
      rating: 1,
      createdAt: day + 2000,
      appUrl: 'javascript:window.__xss=1000',
    });
    await addUser(store, { name: 'ana', password: PASSWORD });
    server = await startWebServer({ store, redis });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.server.close();
    store?.cleanup();
    await redis?.quit();
  });

  it('logs in with the form and lands on the inbox it was sent away from', async () => {
    await page.goto(`${server.url}/?status=new`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('input[name=name]', 'ana');
    await page.fill('input[name=password]', PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.url}/?status=new`);
    expect(await page.textContent('header .who')).toContain('ana');
    expect(await page.locator('table.inbox tbody tr').count()).toBe(3);
  });

  it('filters with the search box, and the filter stays in the URL', async () => {
    await page.goto(`${server.url}/`);
    // The filters are folded: `/` opens them at the search box.
    await page.keyboard.press('/');
    await page.keyboard.type('refund');
    await page.keyboard.press('Enter');
    await page.waitForURL(/q=refund/);
    const rows = page.locator('table.inbox tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('They never sent my refund');
  });

  it('sets a status with the keyboard alone, and shows it in the audit trail', async () => {
    await page.goto(`${server.url}/reviews/${ids.refund}`);
    await page.focus('button[accesskey=r]');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.url}/reviews/${ids.refund}#triage`);
    // The URL can show #triage before the answer's page has replaced this one: wait for the answer.
    await expect.poll(() => page.textContent('#status'), { timeout: 10_000 }).toBe('resolved');
    await page.waitForLoadState('load');
    expect(await page.textContent('#audit')).toMatch(/ana\s+set the status from new to resolved/);
    expect(triageOf(store.db, ids.refund as number).status).toBe('resolved');
    expect(auditOf(store.db, ids.refund as number).at(-1)?.actor).toBe('ana');

    // A note, typed and sent with the keyboard.
    await page.focus('textarea[name=note]');
    await page.keyboard.type('Refunded by hand.');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    // Sent in the background; the page is replaced with the answer when it comes.
    await expect.poll(() => page.textContent('.note .text'), { timeout: 10_000 }).toBe('Refunded by hand.');
    await page.waitForLoadState('load');
  });

  it('moves with j/k, sets a status with a/r/i, selects with x and searches with / (the script)', async () => {
    // The All view: a row set to any status stays in it.
    await page.goto(`${server.url}/?period=all&view=all`);
    const rows = page.locator('table.inbox tbody tr');
    const order = await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-review-id'))));
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await page.keyboard.press('j');
    expect(await page.locator('tr.current').getAttribute('data-review-id')).toBe(String(order[1]));
    await page.keyboard.press('i');
    await expect.poll(() => page.textContent(`tr[data-review-id="${order[1]}"] .status`)).toBe('ignored');
    expect(triageOf(store.db, order[1] as number).status).toBe('ignored');
    expect(auditOf(store.db, order[1] as number).at(-1)).toMatchObject({ actor: 'ana', newValue: 'ignored' });
    await page.keyboard.press('x');
    expect(await page.isChecked(`input[name=ids][value="${order[1]}"]`)).toBe(true);
    await page.keyboard.press('/');
    expect(await page.locator('#q:focus').count()).toBe(1);
    // Typed into the search box, the same letters are text, not shortcuts.
    await page.keyboard.type('jar');
    expect(await page.inputValue('#q')).toBe('jar');
    expect(triageOf(store.db, order[1] as number).status).toBe('ignored');
    await page.goto(`${server.url}/reviews/${order[1]}`);
    await page.keyboard.press('a');
    await page.waitForURL(/#triage$/);
    expect(await page.textContent('#status')).toBe('acknowledged');
  });

  it('assigns the selected reviews in bulk, and the list shows it', async () => {
    await page.goto(`${server.url}/?period=all&view=all`);
    await page.focus(`input[name=ids][value="${ids.slow}"]`);
    await page.keyboard.press('Space');
    await page.check(`input[name=ids][value="${ids.refund}"]`);
    await page.selectOption('select[name=action]', 'assign:ana');
    await page.click('form.bulk button[type=submit]');
    // The form is sent in the background, then its answer replaces the page: wait for the list it shows
    // (the URL is the same before and after, so it says nothing).
    await expect
      .poll(() => page.locator('table.inbox tbody tr', { hasText: 'Support is slow' }).textContent(), {
        timeout: 10_000,
      })
      .toContain('→ ana');
    await page.waitForLoadState('load');
    for (const id of [ids.slow, ids.refund] as number[]) expect(triageOf(store.db, id).assignee).toBe('ana');
    expect(triageOf(store.db, ids.hostile as number).assignee).toBeNull();
  });

  it('exports the filtered view as CSV', async () => {
    await page.goto(`${server.url}/?q=slow`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('text=Export this view as CSV'),
    ]);
    expect(download.suggestedFilename()).toMatch(/^reviewwatch-inbox-.*\.csv$/);
    const path = await download.path();
    const text = readFileSync(path, 'utf8');
    expect(text).toContain('Support is slow');
    expect(text).not.toContain('never sent my refund');
  });

  it('resolves and opens the next review by key, and Back then returns to the list in one press', async () => {
    const seed = new ReviewSeeder(store);
    const now = Date.now();
    const queued = [1, 2, 3].map((i) =>
      seed.review({ content: `Queued complaint ${i}`, createdAt: now - i * 3_600_000 }),
    ) as [number, number, number];
    await page.goto(`${server.url}/?q=queued`);
    await page.click(`tr[data-review-id="${queued[0]}"] a.excerpt`);
    await page.waitForURL(new RegExp(`/reviews/${queued[0]}\\?list=`));
    await page.keyboard.press('Shift+R');
    await page.waitForURL(new RegExp(`/reviews/${queued[1]}\\?list=`));
    expect(triageOf(store.db, queued[0]).status).toBe('resolved');
    expect(await page.textContent('#undo-notice')).toContain(`Review ${queued[0]} set to resolved.`);
    await page.keyboard.press('Shift+A');
    await page.waitForURL(new RegExp(`/reviews/${queued[2]}\\?list=`));
    expect(triageOf(store.db, queued[1]).status).toBe('acknowledged');
    // Each change replaced the review's history entry: one Back is the list, which the resolved one left.
    await page.goBack();
    expect(page.url()).toBe(`${server.url}/?q=queued`);
    const rows = page.locator('table.inbox tbody tr[data-review-id]:visible');
    expect(
      await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-review-id')))),
    ).toEqual([queued[1], queued[2]]);
  });

  it('goes back to the list with its filters, after status changes that added no history', async () => {
    await page.goto(`${server.url}/?q=queued&sort=seen`);
    const first = page.locator('table.inbox tbody tr a.excerpt').first();
    await first.click();
    await page.waitForURL(/\/reviews\/\d+\?list=/);
    const review = new URL(page.url()).pathname;
    await page.keyboard.press('r');
    await expect.poll(() => page.textContent('#status')).toBe('resolved');
    await page.keyboard.press('a');
    await expect.poll(() => page.textContent('#status')).toBe('acknowledged');
    expect(new URL(page.url()).pathname).toBe(review);
    await page.goBack();
    expect(page.url()).toBe(`${server.url}/?q=queued&sort=seen`);
    await page.goForward();
    await page.click('#back-to-list');
    await page.waitForURL(/\/\?/);
    const back = new URL(page.url());
    expect(Object.fromEntries(back.searchParams)).toEqual({ q: 'queued', view: 'open', sort: 'seen' });
  });

  it('takes a row resolved by key out of the Open view, with an undo that brings it back', async () => {
    await page.goto(`${server.url}/?q=queued`);
    const id = await page.locator('table.inbox tbody tr').first().getAttribute('data-review-id');
    await page.keyboard.press('j');
    await page.keyboard.press('r');
    await expect.poll(() => page.locator(`tr[data-review-id="${id}"]`).isHidden()).toBe(true);
    expect(triageOf(store.db, Number(id)).status).toBe('resolved');
    await page.click('tr.undo-row button');
    await expect.poll(() => triageOf(store.db, Number(id)).status).toBe('acknowledged');
    expect(await page.locator(`tr[data-review-id="${id}"]`).isVisible()).toBe(true);
  });

  it('runs no script from a hostile review, in the list or on its page', async () => {
    await page.goto(`${server.url}/?q=click`);
    expect(await page.locator('table.inbox tbody tr').count()).toBe(1);
    expect(await page.textContent('table.inbox tbody')).toContain(HOSTILE_IMG);
    await page.goto(`${server.url}/reviews/${ids.hostile}`);
    expect(await page.textContent('#review-text')).toContain(HOSTILE_SCRIPT);
    expect(await page.locator('#main img, #main script, a[href^="javascript:"]').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(violations).toEqual([]);
  });
});
