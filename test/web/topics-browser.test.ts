/**
 * Topics in Chromium, as a reader meets them: a row's topic chip leads to the list of that topic, the
 * filter form shows it chosen and can change it, and /topics, reached from the header, links each topic
 * to its reviews.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, DESKTOP, type SampleInbox, startSampleInbox } from '../helpers/chromium.js';

describe.skipIf(!CHROMIUM && !process.env.CI)('topics in a browser', () => {
  let inbox: SampleInbox;

  beforeAll(async () => {
    inbox = await startSampleInbox();
  }, 60_000);

  afterAll(async () => {
    await inbox?.close();
  });

  it("a row's topic chip lists every review with that topic, and the form shows it chosen", async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    const chip = page.locator('table.inbox a.topic-chip', { hasText: 'billing' }).first();
    expect(await chip.getAttribute('title')).toMatch(
      /^Topic, from the words: .+\. Lists every review with it\.$/,
    );
    await Promise.all([page.waitForURL(/topic=billing/), chip.click()]);
    const rows = page.locator('table.inbox tbody tr');
    const count = await rows.count();
    expect(count).toBeGreaterThan(0);
    for (let i = 0; i < count; i++) {
      expect(await rows.nth(i).locator('a.topic-chip', { hasText: 'billing' }).count()).toBe(1);
    }
    expect(await page.textContent('summary')).toMatch(/topic/);
    await page.click('summary:has-text("Filters")');
    expect(await page.locator('select[name="topic"]').inputValue()).toBe('billing');
    // Another topic from the form: the list follows it.
    await page.selectOption('select[name="topic"]', 'bugs');
    await Promise.all([page.waitForURL(/topic=bugs/), page.click('form.filters button[type="submit"]')]);
    const after = page.locator('table.inbox tbody tr');
    for (let i = 0; i < (await after.count()); i++) {
      expect(await after.nth(i).locator('a.topic-chip', { hasText: 'bugs' }).count()).toBe(1);
    }
    await page.context().close();
  });

  it('/topics is in the header, and each topic opens the list of its reviews', async () => {
    const page = await inbox.loggedIn({ viewport: DESKTOP });
    await Promise.all([page.waitForURL(/\/topics$/), page.click('header.top a.nav:has-text("Topics")')]);
    expect(await page.textContent('h1')).toBe('Topics');
    const section = page.locator('section[aria-labelledby="app-bundle-builder"]');
    const link = section.locator('table.topics-table tbody th a').first();
    const topic = String(await link.textContent());
    const reviews = Number(
      await section.locator('table.topics-table tbody tr').first().locator('td').first().textContent(),
    );
    await Promise.all([page.waitForURL(new RegExp(`topic=${topic}`)), link.click()]);
    const rows = page.locator('table.inbox tbody tr');
    expect(await rows.count()).toBe(reviews);
    expect(await rows.first().locator('a.topic-chip', { hasText: topic }).count()).toBe(1);
    await page.context().close();
  });
});
