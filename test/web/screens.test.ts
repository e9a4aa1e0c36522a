/**
 * The inbox on a phone (390×844) and a laptop (1280×800) in Chromium: nothing wider than the screen, the
 * review's text readable, the filters folded on the phone and the first review above the fold, every
 * control a thumb can hit (44 px), and the charts' labels legible.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, DESKTOP, PHONE, type SampleInbox, startSampleInbox } from '../helpers/chromium.js';

// The functions given to page.evaluate run in Chromium; the project is compiled without the DOM's types.
// biome-ignore lint/suspicious/noExplicitAny: the page's own globals, checked by the browser that runs them
declare const document: any;
// biome-ignore lint/suspicious/noExplicitAny: as above
declare const window: any;
// biome-ignore lint/suspicious/noExplicitAny: as above
declare function getComputedStyle(element: unknown): any;

/** How far the page is wider than the screen, in px (0 when nothing overflows). */
function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** The visible controls a finger must hit, with their size: buttons, summaries, fields, checkbox labels. */
function targets(page: Page): Promise<Array<{ what: string; width: number; height: number }>> {
  return page.evaluate(() =>
    [
      ...document.querySelectorAll(
        'main button, main summary, main select, main input[type=text], main input[type=search], main input[type=date], label.select, form.filters fieldset label',
      ),
    ]
      .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
      .map((el) => {
        const box = el.getBoundingClientRect();
        return { what: el.outerHTML.slice(0, 80), width: box.width, height: box.height };
      }),
  );
}

describe.skipIf(!CHROMIUM && !process.env.CI)('the inbox on any screen', () => {
  let inbox: SampleInbox;

  beforeAll(async () => {
    inbox = await startSampleInbox();
  }, 60_000);

  afterAll(async () => {
    await inbox?.close();
  });

  it('on a phone, the list is cards with the text first, above the fold, and big enough to touch', async () => {
    const page = await inbox.loggedIn({ viewport: PHONE, hasTouch: true, isMobile: true });
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    // The filters and bulk actions are folded behind buttons: the first review shows without scrolling.
    expect(await page.isVisible('form.filters')).toBe(false);
    expect(await page.isVisible('summary:has-text("Filters")')).toBe(true);
    const first = page.locator('table.inbox tbody tr').first().locator('a.excerpt');
    const box = await first.boundingBox();
    expect(box?.width).toBeGreaterThanOrEqual(250);
    expect((box?.y ?? Number.POSITIVE_INFINITY) + 40).toBeLessThan(PHONE.height);
    // Text first: the excerpt is the card's top line, above its stars.
    const stars = await page.locator('table.inbox tbody tr').first().locator('.stars').boundingBox();
    expect(box?.y ?? 0).toBeLessThan(stars?.y ?? 0);
    for (const target of await targets(page)) {
      expect(target.height, target.what).toBeGreaterThanOrEqual(44);
      expect(target.width, target.what).toBeGreaterThanOrEqual(44);
    }
    // The fold opens without a script, and what it holds fits the screen and the thumb too.
    await page.click('summary:has-text("Filters")');
    expect(await page.isVisible('form.filters')).toBe(true);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    for (const target of await targets(page)) {
      expect(target.height, target.what).toBeGreaterThanOrEqual(44);
      expect(target.width, target.what).toBeGreaterThanOrEqual(44);
    }
    await page.context().close();
  });

  it('on a phone, a review and an app fit the screen, and the charts stay legible', async () => {
    const page = await inbox.loggedIn({ viewport: PHONE, hasTouch: true, isMobile: true });
    await page.click('table.inbox tbody tr:first-child a.excerpt');
    // A review opened from the list keeps its place in it (`?list=view%3Dopen`).
    await page.waitForURL(/\/reviews\/\d+\?list=/);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    for (const target of await targets(page)) {
      expect(target.height, target.what).toBeGreaterThanOrEqual(44);
    }
    await page.goto(`${inbox.server.url}/apps/bundle-builder`);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    const labels = await page.evaluate(() =>
      [...document.querySelectorAll('svg.chart text.axis')]
        .filter((t) => t.getClientRects().length > 0)
        .map((t) => ({ text: t.textContent ?? '', height: t.getBoundingClientRect().height })),
    );
    expect(labels.length).toBeGreaterThan(10);
    // 11 px on a 640-unit chart drawn 366 px wide would be 6 px; the phone's are at least 10.
    for (const label of labels) expect(label.height, label.text).toBeGreaterThanOrEqual(10);
    // Each label stays inside its chart.
    const outside = await page.evaluate(
      () =>
        [...document.querySelectorAll('svg.chart text.axis')].filter((t) => {
          const svg = t.ownerSVGElement?.getBoundingClientRect();
          const box = t.getBoundingClientRect();
          return svg && box.width > 0 && (box.left < svg.left - 1 || box.right > svg.right + 1);
        }).length,
    );
    expect(outside).toBe(0);
    await page.context().close();
  });

  it('on a laptop, the list is a table under its folded filters, and nothing overflows', async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    // The filters fold (the first review was at y≈478 under them); the bulk actions stay open.
    expect(await page.isVisible('form.filters')).toBe(false);
    expect(await page.isVisible('summary:has-text("Filters")')).toBe(true);
    expect(await page.isVisible('form.bulk')).toBe(true);
    expect(await page.isVisible('table.inbox thead')).toBe(true);
    const box = await page.locator('table.inbox tbody tr').first().locator('a.excerpt').boundingBox();
    expect(box?.width).toBeGreaterThanOrEqual(250);
    expect(box?.y).toBeLessThan(400);
    await page.goto(`${inbox.server.url}/apps/bundle-builder`);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await page.context().close();
  });
});
