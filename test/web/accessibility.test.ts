/**
 * Every page of the inbox checked by axe-core inside Chromium, light and dark, on a laptop and a phone: no
 * serious or critical violation (WCAG 2.1 A and AA and axe's best practices: contrast, labels, landmarks).
 * And the skip link: the first Tab reaches it, and it leads past the header.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, DESKTOP, PHONE, type SampleInbox, startSampleInbox } from '../helpers/chromium.js';

// The functions given to page.evaluate run in Chromium; the project is compiled without the DOM's types.
// biome-ignore lint/suspicious/noExplicitAny: the page's own globals, checked by the browser that runs them
declare const document: any;
// biome-ignore lint/suspicious/noExplicitAny: as above
declare function getComputedStyle(element: unknown): any;

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/** axe's serious and critical violations on the page as it is, each with where and why. */
async function audit(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(context: unknown): Promise<{ violations: unknown }> } }
    ).axe;
    return (await axe.run(document)).violations;
  });
  return (violations as Violation[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes
          .slice(0, 3)
          .map((n) => `${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`)
          .join('; ')}`,
    );
}

/**
 * The contrast of the star glyphs against what is behind them. axe leaves them out (they are one image to
 * assistive technology, `role="img"`), but they are text to the eye: 4.5:1 (WCAG 1.4.3).
 */
function starContrasts(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const channels = (css: string) => (css.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = (css: string) => {
      const [r = 0, g = 0, b = 0] = channels(css).map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    // biome-ignore lint/suspicious/noExplicitAny: an element of the page (see the declarations above)
    const background = (el: any): string => {
      for (let e = el; e; e = e.parentElement) {
        const css = getComputedStyle(e).backgroundColor;
        const alpha = channels(css)[3];
        if (alpha === undefined || alpha > 0) return css;
      }
      return 'rgb(255, 255, 255)';
    };
    return [...document.querySelectorAll('.stars')].map((el) => {
      const [a, b] = [luminance(getComputedStyle(el).color), luminance(background(el))].sort((x, y) => y - x);
      return ((a ?? 0) + 0.05) / ((b ?? 0) + 0.05);
    });
  });
}

describe.skipIf(!CHROMIUM && !process.env.CI)('accessibility', () => {
  let inbox: SampleInbox;
  let reviewPath: string;

  beforeAll(async () => {
    inbox = await startSampleInbox();
    const id = inbox.store.db.$client.prepare('select min(id) as id from reviews').get() as { id: number };
    reviewPath = `/reviews/${id.id}`;
  }, 60_000);

  afterAll(async () => {
    await inbox?.close();
  });

  /** The sample's first review, whose id is known once the inbox has started. */
  const FIRST_REVIEW = '/reviews/(the first)';
  const pathOf = (page: string) => (page === FIRST_REVIEW ? reviewPath : page);
  const PAGES = [
    '/',
    '/?status=resolved&period=all&q=support',
    // A status its view does not list: the notice that says so, and where they are.
    '/?view=open&status=resolved&period=all',
    '/?stars=9',
    FIRST_REVIEW,
    '/apps/bundle-builder',
    // Topics: the list filtered by one, and /topics with its tables, arrows and comparison.
    '/?view=all&topic=billing&stars=1,2,3,4,5&period=all',
    '/topics',
    '/topics?period=90d',
    // The inbox's own 404 pages (the ops server answers paths it does not know in JSON, no page).
    '/apps/nobody',
    '/reviews/999999',
  ];

  // One test a page, so a busy machine slows each audit without any one test nearing the timeout; the
  // variant's browser context is shared by its pages.
  for (const scheme of ['light', 'dark'] as const) {
    for (const [screen, viewport] of [
      ['laptop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      describe(`has no serious or critical violation (${scheme}, ${screen})`, () => {
        let page: Page;

        beforeAll(async () => {
          page = await inbox.loggedIn({ viewport, colorScheme: scheme });
        });

        afterAll(async () => {
          await page?.context().close();
        });

        it('on the login page', async () => {
          const anonymous = await inbox.browser.newContext({ viewport, colorScheme: scheme });
          const login = await anonymous.newPage();
          await login.goto(`${inbox.server.url}/login`);
          expect(await audit(login)).toEqual([]);
          await anonymous.close();
        });

        for (const path of PAGES) {
          it(`on ${path}`, async () => {
            const target = pathOf(path);
            await page.goto(`${inbox.server.url}${target}`);
            expect(await audit(page), target).toEqual([]);
            for (const ratio of await starContrasts(page))
              expect(ratio, `stars on ${target}`).toBeGreaterThanOrEqual(4.5);
          });
        }

        it('on / with its folds open and the live banner shown', async () => {
          await page.goto(`${inbox.server.url}/`);
          await page.evaluate(() => {
            for (const details of document.querySelectorAll('details')) details.open = true;
            const banner = document.getElementById('live-banner');
            if (banner) {
              banner.hidden = false;
              banner.innerHTML = '<span>2 new reviews</span> — <a href="/">show</a>';
            }
          });
          expect(await audit(page)).toEqual([]);
        });

        it('on / with the keys dialog (`?`) open over the list', async () => {
          await page.goto(`${inbox.server.url}/`);
          await page.keyboard.press('?');
          await page.getByRole('dialog', { name: 'Keys' }).waitFor({ state: 'visible' });
          expect(await audit(page)).toEqual([]);
        });
      });
    }
  }

  it('lets the keyboard skip the header: the first Tab reaches the skip link, which leads to the content', async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    await page.goto(`${inbox.server.url}/`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the content');
    expect(await page.isVisible('a.skip-link')).toBe(true);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    // The next Tab goes on from the content, not from the header.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('main') !== null)).toBe(true);
    await page.context().close();
  });

  it('labels every field of the list uniquely', async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    const labels = await page.evaluate(() =>
      [...document.querySelectorAll('main label.field')].map((l) => (l.firstChild?.textContent ?? '').trim()),
    );
    expect(labels.length).toBeGreaterThan(5);
    expect(new Set(labels).size).toBe(labels.length);
    await page.context().close();
  });
});
