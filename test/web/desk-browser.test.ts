/**
 * The desk in Chromium, as someone working the queue meets it: the tabs' counts follow a key's change,
 * Undo leaves one current row, `?` shows the keys, the filters fold and stay as they were left, topics do
 * not pass for tags, and a review only assigned does not claim a status change.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { triageOf } from '../../src/store/triage.js';
import { CHROMIUM, DESKTOP, type SampleInbox, startSampleInbox } from '../helpers/chromium.js';

// The functions given to page.evaluate run in Chromium; the project is compiled without the DOM's types.
// biome-ignore lint/suspicious/noExplicitAny: the page's own globals, checked by the browser that runs them
declare const document: any;
// biome-ignore lint/suspicious/noExplicitAny: as above
declare function getComputedStyle(element: unknown): any;

/** A tab's count as it reads: "New 10" gives 10. */
async function tabCount(page: Page, view: string): Promise<number> {
  return Number((await page.textContent(`nav.views [data-view="${view}"] .count`))?.replace(/\D/g, ''));
}

/** The rows drawn highlighted as the current one, visible or not. */
function currentRows(page: Page): Promise<string[]> {
  return page
    .locator('table.inbox tbody tr.current')
    .evaluateAll((trs) => trs.map((tr) => String(tr.getAttribute('data-review-id'))));
}

/** Presses j until the current row is `id`. */
async function moveTo(page: Page, id: string): Promise<void> {
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press('j');
    if ((await currentRows(page)).includes(id)) return;
  }
  throw new Error(`review ${id} never became the current row`);
}

/** The page's storage, as the fold test reads it in the browser (the tests' types have no DOM). */
type PageStorage = { localStorage: { getItem(key: string): string | null } };

describe.skipIf(!CHROMIUM && !process.env.CI)('the desk in a browser', () => {
  let inbox: SampleInbox;

  beforeAll(async () => {
    // The pages poll at the usual 15 s: a count that moves within seconds moved because of the key.
    inbox = await startSampleInbox();
  }, 60_000);

  afterAll(async () => {
    await inbox?.close();
  });

  it('says when a review’s status was set, not when it was assigned', async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    // The sample's "Inventory went negative" review was only assigned (to jonas, by maya).
    const row = page.locator('table.inbox tbody tr', { hasText: 'Inventory went negative' });
    await row.locator('a.excerpt').click();
    await page.waitForURL(/\/reviews\/\d+/);
    expect(await page.textContent('#status')).toBe('new');
    const since = await page.textContent('#status-since');
    expect(since).toMatch(/^since it was first seen, \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    expect(since).not.toContain('maya');
    expect(await page.textContent('#audit')).toMatch(/maya\s+assigned it to\s+jonas/);
    await page.context().close();
  });

  it('moves the tabs’ counts and the total when a key changes a status, without a reload', async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    const id = String(
      await page.locator('table.inbox tbody tr[data-status="new"]').last().getAttribute('data-review-id'),
    );
    const row = page.locator(`tr[data-review-id="${id}"]`);
    const [open, fresh, all] = [
      await tabCount(page, 'open'),
      await tabCount(page, 'new'),
      await tabCount(page, 'all'),
    ];
    await moveTo(page, id);
    await page.keyboard.press('a');
    await expect.poll(() => row.locator('.status').textContent()).toBe('acknowledged');
    // Acknowledged is still open: New loses it, Open and All keep it.
    await expect.poll(() => tabCount(page, 'new'), { timeout: 5_000 }).toBe(fresh - 1);
    expect(await tabCount(page, 'open')).toBe(open);
    expect(await tabCount(page, 'all')).toBe(all);

    // Resolved, it leaves Open: the tab, the total and the title's count all drop.
    const resolved = await tabCount(page, 'resolved');
    const title = await page.title();
    await page.keyboard.press('r');
    await expect.poll(() => tabCount(page, 'open'), { timeout: 5_000 }).toBe(open - 1);
    expect(await tabCount(page, 'resolved')).toBe(resolved + 1);
    expect(await page.textContent('#total')).toBe(`${open - 1} reviews in Open`);
    expect(await page.title()).not.toBe(title);
    // The line that says why the title's count and the Open tab's differ follows both.
    const queue = Number(/^\((\d+)\)/.exec(await page.title())?.[1]);
    expect(queue).not.toBe(open - 1);
    await expect.poll(() => page.textContent('#open-note [data-count="queue"]')).toBe(String(queue));
    expect(await page.textContent('#open-note [data-count="open"]')).toBe(String(open - 1));
    expect(await page.isVisible('#open-note')).toBe(true);
    expect(triageOf(inbox.store.db, Number(id)).status).toBe('resolved');
    await page.context().close();
  });

  it('leaves one current row after an Undo, the row that came back', async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    const rows = page.locator('table.inbox tbody tr[data-review-id]');
    const id = String(await rows.nth(1).getAttribute('data-review-id'));
    await moveTo(page, id);
    await page.keyboard.press('i');
    await expect.poll(() => page.locator(`tr[data-review-id="${id}"]`).isHidden()).toBe(true);
    await page.click('tr.undo-row button');
    await expect.poll(() => page.locator(`tr[data-review-id="${id}"]`).isVisible()).toBe(true);
    expect(await currentRows(page)).toEqual([id]);
    // And the keys go on from it: j moves to the next row, still one highlighted.
    await page.keyboard.press('j');
    const after = await currentRows(page);
    expect(after).toHaveLength(1);
    expect(after).not.toEqual([id]);
    await page.context().close();
  });

  it('shows the keys on ?, in a dialog that Escape closes; typed into a field, ? is text', async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    const dialog = page.getByRole('dialog', { name: 'Keys' });
    expect(await dialog.isVisible()).toBe(false);
    await page.keyboard.press('?');
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.textContent()).toMatch(/j \/ k\s*next \/ previous review/);
    // A modal: the list's keys do nothing underneath it.
    const before = await currentRows(page);
    await page.keyboard.press('j');
    expect(await currentRows(page)).toEqual(before);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.keyboard.press('/');
    await page.keyboard.type('?');
    expect(await page.inputValue('#q')).toBe('?');
    expect(await dialog.isVisible()).toBe(false);
    // A review's page has its own keys.
    const id = await page.locator('table.inbox tbody tr').first().getAttribute('data-review-id');
    await page.goto(`${inbox.server.url}/reviews/${id}`);
    await page.keyboard.press('?');
    await dialog.waitFor({ state: 'visible' });
    expect(await dialog.textContent()).toContain('resolve and open the next review');
    await page.click('dialog button');
    await dialog.waitFor({ state: 'hidden' });
    await page.context().close();
  });

  it('folds the filters on a laptop, the first review high up, and keeps them as they were left', async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    const form = page.locator('form.filters');
    expect(await form.isVisible()).toBe(false);
    const first = await page.locator('table.inbox tbody tr').first().boundingBox();
    expect(first?.y).toBeLessThan(400);
    // The fold's state is stored just after the click's toggle: reload once it is, as a reader would.
    const remembered = (state: 'open' | 'closed') =>
      page.waitForFunction(
        (s) => (globalThis as unknown as PageStorage).localStorage.getItem('reviewwatch.fold.filters') === s,
        state,
      );
    await page.click('summary:has-text("Filters")');
    expect(await form.isVisible()).toBe(true);
    await remembered('open');
    await page.reload();
    expect(await form.isVisible()).toBe(true);
    await page.click('summary:has-text("Filters")');
    await remembered('closed');
    await page.reload();
    expect(await form.isVisible()).toBe(false);
    // Filters that cannot be applied open the form, to correct them; the button says what is set.
    await page.goto(`${inbox.server.url}/?stars=9`);
    expect(await form.isVisible()).toBe(true);
    await page.goto(`${inbox.server.url}/?q=sync&period=7d`);
    expect(await page.textContent('summary')).toBe('Filters (2 set: search, period)');
    await page.context().close();
  });

  it('draws topics apart from tags, labelled as such, and says so when a tag filter finds none', async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    const chip = page.locator('.topic-chip', { hasText: 'billing' }).first();
    expect(await chip.textContent()).toBe('topic billing');
    expect(await chip.getAttribute('title')).toMatch(/^Topic, from the words: .*Lists every review with it/);
    const tag = page.locator('table.inbox a.tag').first();
    const look = (el: typeof chip) =>
      el.evaluate((e) => {
        const css = getComputedStyle(e);
        return { radius: css.borderTopLeftRadius, background: css.backgroundColor };
      });
    const [chipLook, tagLook] = [await look(chip), await look(tag)];
    expect(chipLook.radius).not.toBe(tagLook.radius);
    expect(chipLook.background).not.toBe(tagLook.background);
    await page.goto(`${inbox.server.url}/?tag=refund`);
    expect(await page.textContent('main')).toContain('topics (the chips marked "topic") are not tags');
    await page.context().close();
  });

  it('lands a status filter from before views in the view that lists it, and says so', async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    await page.goto(`${inbox.server.url}/?status=resolved&period=all`);
    expect(await page.textContent('nav.views a[aria-current="page"]')).toMatch(/^Resolved \d+$/);
    expect(await page.textContent('#view-notice')).toBe(
      'Showing Resolved: the Open view lists no resolved reviews.',
    );
    expect(await page.locator('table.inbox tbody tr').count()).toBeGreaterThan(0);
    // Named, the Open view stays, and says why it is empty and where they are.
    await page.goto(`${inbox.server.url}/?view=open&status=resolved&period=all`);
    expect(await page.textContent('#view-notice')).toMatch(/^The Open view lists no resolved reviews/);
    await page.click('#view-notice a');
    await page.waitForURL(/view=resolved/);
    expect(await page.locator('table.inbox tbody tr').count()).toBeGreaterThan(0);
    await page.context().close();
  });
});
