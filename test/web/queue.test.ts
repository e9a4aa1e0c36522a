/**
 * A day of triage over HTTP, as a browser without JavaScript has it: the Open view empties as reviews are
 * resolved, with counts per view and an undo; a review's page keeps the list it came from, with previous,
 * next and "resolve & next"; times say when each review was posted and first seen.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { triageOf } from '../../src/store/triage.js';
import { addUser } from '../../src/web/users.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { REDIS_URL, tempStore } from '../helpers/index.js';
import { Browser, hiddenField, inboxConfig, startWebServer, type WebServer } from '../helpers/web.js';

const PASSWORD = 'a long enough password';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let redis: Redis;
let store: ReturnType<typeof tempStore>;
let server: WebServer;
let browser: Browser;
const ids: Record<string, number> = {};

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
  store = tempStore();
  const seed = new ReviewSeeder(store);
  const now = Date.now();
  // Newest first: a, b, c, d of the own app; the rival's review is the newest of all.
  ids.rival = seed.review({ app: 'rival', content: 'Rival is broken', createdAt: now - HOUR });
  ids.a = seed.review({ content: 'Refund never came', createdAt: now - DAY, firstSeenAt: now - 3 * 60_000 });
  ids.b = seed.review({ content: 'Crashes on start', createdAt: now - 2 * DAY });
  ids.c = seed.review({ content: 'Slow support', createdAt: now - 3 * DAY });
  ids.d = seed.review({ content: 'Billing wrong', createdAt: now - 4 * DAY });
  seed.alert(ids.c, 'critical');
  await addUser(store, { name: 'ana', password: PASSWORD });
  server = await startWebServer({ store, redis });
  browser = new Browser(server.url);
  expect((await browser.login('ana', PASSWORD)).status).toBe(303);
});
afterAll(async () => {
  await server.server.close();
  store.cleanup();
  await redis.quit();
});

const rowsOf = (page: string) => [...page.matchAll(/<tr data-review-id="(\d+)"/g)].map((m) => Number(m[1]));
const unescaped = (text: string) => text.replace(/&amp;/g, '&');

async function text(path: string): Promise<string> {
  const res = await browser.get(path);
  expect(res.status, path).toBe(200);
  return res.text();
}

/** The tabs' counts, by label. */
function tabCounts(page: string): Record<string, string> {
  const nav = /<nav class="views"[\s\S]*?<\/nav>/.exec(page)?.[0] ?? '';
  return Object.fromEntries(
    [...nav.matchAll(/>(\w+) <span class="count">([\d,+]+)<\/span>/g)].map((m) => [m[1], m[2]]),
  );
}

async function post(path: string, fields: Record<string, string>, page: string): Promise<Response> {
  return browser.post(path, { ...fields, _csrf: hiddenField(page, '_csrf') });
}

describe('a queue that empties', () => {
  it('opens on the Open view of own apps, with a count per view and the list’s total', async () => {
    const page = await text('/');
    expect(rowsOf(page)).toEqual([ids.a, ids.b, ids.c, ids.d]);
    expect(page).toContain('<a href="/?view=open" aria-current="page">Open');
    expect(tabCounts(page)).toEqual({
      Open: '4',
      New: '4',
      Mine: '0',
      Resolved: '0',
      Ignored: '0',
      Competitors: '1',
      All: '5',
    });
    expect(page).toContain('<p class="total" id="total">4 reviews in Open</p>');
    expect(page).toMatch(/<title>(\(\d+\) )?Open · Inbox · reviewwatch<\/title>/);
    // Competitors' reviews are a view of their own.
    expect(rowsOf(await text('/?view=competitors'))).toEqual([ids.rival]);
    expect(rowsOf(await text('/?view=all'))).toEqual([ids.rival, ids.a, ids.b, ids.c, ids.d]);
  });

  it('takes a resolved review out of the Open view, and offers to undo it', async () => {
    const list = await text('/?q=crashes');
    const res = await post(
      '/reviews/bulk',
      { ids: String(ids.b), action: 'status:resolved', back: hiddenField(list, 'back') },
      list,
    );
    expect(res.status).toBe(303);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(/^\/\?q=crashes&undo=\d+$/);
    const after = await text(location);
    expect(rowsOf(after)).toEqual([]);
    expect(after).toContain(`Review ${ids.b} set to resolved.`);
    expect(tabCounts(after)).toMatchObject({ Open: '0', Resolved: '1' });
    expect(tabCounts(await text('/'))).toMatchObject({ Open: '3', Resolved: '1' });

    const undo = await post(
      '/reviews/undo',
      { events: hiddenField(after, 'events'), back: hiddenField(after, 'back') },
      after,
    );
    expect(undo.status).toBe(303);
    expect(undo.headers.get('location')).toBe('/?q=crashes');
    expect(triageOf(store.db, ids.b as number).status).toBe('new');
    expect(rowsOf(await text('/?q=crashes'))).toEqual([ids.b]);
  });

  it('sorts by severity, app or first seen, and keeps the order in its pages', async () => {
    expect(rowsOf(await text('/?sort=severity'))[0]).toBe(ids.c);
    expect(rowsOf(await text('/?view=all&sort=app'))).toEqual([ids.rival, ids.a, ids.b, ids.c, ids.d]);
    expect(rowsOf(await text('/?sort=seen'))[0]).toBe(ids.a);
    const first = await text('/?sort=severity&limit=2');
    const next = unescaped(/<a rel="next" href="([^"]+)">/.exec(first)?.[1] ?? '');
    expect(next).toMatch(/^\/\?sort=severity&limit=2&cursor=severity./);
    expect(rowsOf(await text(next))).toEqual([ids.b, ids.d]);
  });

  it('shows the marketplace’s date as a day, and when reviewwatch first saw it as an age', async () => {
    const page = await text('/');
    const row = page.slice(page.indexOf(`<tr data-review-id="${ids.a}"`));
    const day = new Date(Date.now() - DAY).toISOString().slice(0, 10);
    expect(row).toContain(`<time datetime="${day}" title="the date the marketplace gives">${day}</time>`);
    expect(row).toMatch(
      /first seen <time class="seen" datetime="[^"]+Z" title="\d{4}-\d\d-\d\d \d\d:\d\d UTC">3 min ago<\/time>/,
    );
    expect(row).not.toContain('00:00 UTC');
  });

  it('says on the list what an empty bulk action lacks, keeping the list', async () => {
    const list = await text('/?q=refund');
    const res = await post(
      '/reviews/bulk',
      { action: 'status:resolved', back: hiddenField(list, 'back') },
      list,
    );
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('Nothing was changed: select at least one review (tick its box), then apply.');
    expect(rowsOf(page)).toEqual([ids.a]);
    expect(page).toContain('value="refund"');
  });
});

describe('a review’s place in its list', () => {
  it('links back to the list it came from, with its filters, and to the previous and next', async () => {
    const page1 = await text('/?stars=1&period=all&limit=2');
    const second = unescaped(/<a rel="next" href="([^"]+)">/.exec(page1)?.[1] ?? '');
    const page2 = await text(second);
    const row = page2.slice(page2.indexOf(`data-review-id="${ids.c}"`));
    const href = unescaped(/<a class="excerpt" href="([^"]+)"/.exec(row)?.[1] ?? '');
    const ref = new URLSearchParams(href.split('?')[1]).get('list') ?? '';
    expect(ref).toMatch(/^stars=1&period=all&view=open&limit=2&cursor=\d+_\d+$/);
    const page = await text(href);
    // Back to the same page of the same list.
    expect(unescaped(/id="back-to-list" href="([^"]+)"/.exec(page)?.[1] ?? '')).toBe(`/?${ref}`);
    // Previous and next in the list, across its pages.
    expect(unescaped(/id="previous-review" rel="prev" href="([^"]+)"/.exec(page)?.[1] ?? '')).toBe(
      `/reviews/${ids.b}?${new URLSearchParams({ list: ref })}`,
    );
    expect(unescaped(/id="next-review" rel="next" href="([^"]+)"/.exec(page)?.[1] ?? '')).toBe(
      `/reviews/${ids.d}?${new URLSearchParams({ list: ref })}`,
    );
  });

  it('resolves and opens the next review of the list, with an undo, and the last goes back to the list', async () => {
    const list = 'view=open';
    const page = await text(`/reviews/${ids.a}?list=${encodeURIComponent(list)}`);
    expect(page).toContain('Resolve &amp; next');
    const res = await post(
      `/reviews/${ids.a}/triage`,
      { action: 'status', status: 'resolved', advance: 'next', list },
      page,
    );
    expect(res.status).toBe(303);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^/reviews/${ids.b}\\?list=view%3Dopen&undo=\\d+$`));
    expect(triageOf(store.db, ids.a as number).status).toBe('resolved');
    const next = await text(location);
    expect(next).toContain(`Review ${ids.a} set to resolved.`);
    // Its previous is still the one before where the resolved review stood.
    expect(next).toContain('first in the list');

    const last = await text(`/reviews/${ids.d}?list=${encodeURIComponent(list)}`);
    const done = await post(
      `/reviews/${ids.d}/triage`,
      { action: 'status', status: 'acknowledged', advance: 'next', list },
      last,
    );
    expect(done.headers.get('location')).toMatch(/^\/\?view=open&undo=\d+$/);
  });

  it('links each review to the marketplace listing’s reviews, where a reply goes', async () => {
    const page = await text(`/reviews/${ids.b}`);
    expect(page).toContain(
      '<a class="reply" href="https://apps.example.com/shop/reviews" rel="noopener noreferrer">',
    );
  });

  it('refuses a list that is not one, naming the parameter', async () => {
    const res = await browser.get(`/reviews/${ids.b}?list=stars%3D9`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('list is the query of the inbox list');
  });
});

describe('polish', () => {
  it('answers an unknown page with a page of its own, never a list of the server’s paths', async () => {
    for (const path of ['/apps', '/nowhere', '/reviews']) {
      const res = await browser.get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      const page = await res.text();
      expect(page).toContain('<h1>Nothing here</h1>');
      expect(page).toContain('<a href="/apps/shop">Shop</a>');
      expect(page).not.toMatch(/healthz|metrics|admin\/queues/);
    }
    const api = await browser.get('/api/nothing', { accept: 'application/json' });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: 'not found' });
  });

  it('counts in words through one helper: "1 hour ago", not "1 hours ago"', async () => {
    const page = await text(`/reviews/${ids.rival}?list=view%3Dall`);
    expect(page).toMatch(/first seen <time[^>]*>1 hour ago<\/time>/);
  });
});

describe('with web.publicUrl', () => {
  it('exports absolute review links and first-seen times in the CSV', async () => {
    const config = inboxConfig({ publicUrl: 'https://inbox.example.com' });
    const other = await startWebServer({ store, redis, config });
    try {
      const visitor = new Browser(other.url);
      await visitor.login('ana', PASSWORD);
      const csv = await (await visitor.get('/export.csv?view=all&period=all')).text();
      const [header, first] = csv.replace(/^\uFEFF/, '').split('\r\n');
      expect(header?.split(',').slice(0, 8)).toEqual([
        'id',
        'url',
        'app',
        'app_handle',
        'role',
        'rating',
        'date',
        'first_seen_at',
      ]);
      expect(first).toMatch(/^\d+,https:\/\/inbox\.example\.com\/reviews\/\d+,/);
    } finally {
      await other.server.close();
    }
  });
});
