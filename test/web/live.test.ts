/**
 * Live updates over HTTP against a real server and SQLite file: the open count in each page's title and
 * icon, and `/api/live`, which the pages poll (the browser test watches the banner itself).
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { applyTriage } from '../../src/store/triage.js';
import { addUser } from '../../src/web/users.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { REDIS_URL, tempStore } from '../helpers/index.js';
import { ADMIN_TOKEN, Browser, startWebServer, type WebServer } from '../helpers/web.js';

const AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };
const PASSWORD = 'a long enough password';
const DAY = 86_400_000;

interface Live {
  open: number;
  review: number;
  event: number;
  newer: number;
  changed: Array<{ id: number; status: string; assignee: string | null }>;
  tabs?: { counts: Record<string, number>; capped: boolean; total: number };
}

let redis: Redis;
let store: ReturnType<typeof tempStore>;
let server: WebServer;
let seed: ReviewSeeder;
const ids: Record<string, number> = {};

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
  store = tempStore();
  seed = new ReviewSeeder(store);
  const day = Date.now() - DAY;
  ids.open = seed.review({ app: 'shop', rating: 1, content: 'Crashes on start', createdAt: day });
  ids.resolved = seed.review({ app: 'shop', rating: 2, content: 'Was slow', createdAt: day + 1000 });
  ids.happy = seed.review({ app: 'shop', rating: 5, content: 'Lovely', createdAt: day + 2000 });
  ids.rival = seed.review({ app: 'rival', rating: 1, content: 'Their bug', createdAt: day + 3000 });
  applyTriage(store.db, ids.resolved, { status: 'resolved' }, 'ana', new Date());
  await addUser(store, { name: 'ana', password: PASSWORD });
  server = await startWebServer({ store, redis });
});
afterAll(async () => {
  await server.server.close();
  store.cleanup();
  await redis.quit();
});

async function loggedIn(): Promise<Browser> {
  const browser = new Browser(server.url);
  expect((await browser.login('ana', PASSWORD)).status).toBe(303);
  return browser;
}

/** The live URL a page was drawn with, as its script reads it. */
function liveUrlOf(page: string): string {
  const url = /data-live-url="([^"]+)"/.exec(page)?.[1];
  if (!url) throw new Error('the page has no data-live-url');
  return url.replace(/&amp;/g, '&');
}

async function live(path: string, etag?: string): Promise<{ status: number; etag: string; body?: Live }> {
  const res = await fetch(`${server.url}${path}`, {
    headers: { ...AUTH, ...(etag ? { 'if-none-match': etag } : {}) },
  });
  const text = await res.text();
  return {
    status: res.status,
    etag: res.headers.get('etag') ?? '',
    ...(text ? { body: JSON.parse(text) as Live } : {}),
  };
}

describe('the open count', () => {
  it('is in the title and the icon of the list, an app and a review, without any script', async () => {
    const browser = await loggedIn();
    // Open: low-rated, new or acknowledged, of own apps; not the resolved one, the 5 stars or the competitor's.
    for (const path of ['/', '/apps/shop', `/reviews/${ids.happy}`]) {
      const page = await (await browser.get(path)).text();
      expect(page, path).toMatch(/<title>\(1\) [^<]+ · reviewwatch<\/title>/);
      expect(page, path).toContain(
        '<link rel="icon" id="favicon" type="image/svg+xml" href="/favicon.svg?open=1">',
      );
    }
    const login = await (await new Browser(server.url).get('/login')).text();
    expect(login).toContain('<title>Log in · reviewwatch</title>');
    expect(login).toContain('href="/favicon.svg"');
  });

  it('is drawn on the icon, which anyone may fetch, and /favicon.ico is a real icon', async () => {
    const svg = await fetch(`${server.url}/favicon.svg?open=12`);
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await svg.text()).toMatch(/>12<\/text><\/svg>$/);
    expect(await (await fetch(`${server.url}/favicon.svg?open=1234`)).text()).toContain('>99+</text>');
    expect(await (await fetch(`${server.url}/favicon.svg`)).text()).not.toContain('<text');
    const ico = await fetch(`${server.url}/favicon.ico`);
    expect(ico.status).toBe(200);
    expect(ico.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await ico.arrayBuffer());
    // An ICO header: reserved 0, type 1 (icon), one 32×32 image of 32 bits.
    expect([...bytes.subarray(0, 8)]).toEqual([0, 0, 1, 0, 1, 0, 32, 32]);
    expect(bytes.length).toBe(6 + 16 + 40 + 32 * 32 * 4 + 128);
    const bad = await fetch(`${server.url}/favicon.svg?open=lots`, {
      headers: { accept: 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain('open is a whole number of open reviews');
  });
});

describe('/api/live', () => {
  it('says nothing changed with a 304 until a review arrives, then counts it on the view', async () => {
    const browser = await loggedIn();
    const url = liveUrlOf(await (await browser.get('/')).text());
    // The list opens on the Open view, and its live URL says so: without a view /api/live means All.
    expect(url).toMatch(/^\/api\/live\?view=open&after=\d+&events=\d+&tabs=1$/);
    const first = await live(url);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ open: 1, newer: 0, changed: [] });
    expect(first.etag).toMatch(/^W\/"/);
    const again = await live(url, first.etag);
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();

    seed.review({ app: 'shop', rating: 1, content: 'Lost my data', createdAt: Date.now() - 60_000 });
    const after = await live(url, first.etag);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ open: 2, newer: 1 });
    expect(after.etag).not.toBe(first.etag);
    expect((await live(url, after.etag)).status).toBe(304);
  });

  it("counts only what the view's first page would show: its filters apply", async () => {
    const browser = await loggedIn();
    const rivalUrl = liveUrlOf(await (await browser.get('/?app=rival&view=competitors')).text());
    expect(rivalUrl).toMatch(/^\/api\/live\?app=rival&view=competitors&after=\d+&events=\d+&tabs=1$/);
    const openUrl = liveUrlOf(await (await browser.get('/')).text());
    seed.review({ app: 'shop', rating: 1, content: 'Another shop complaint', createdAt: Date.now() - 1000 });
    expect((await live(rivalUrl)).body?.newer).toBe(0);
    seed.review({ app: 'rival', rating: 2, content: 'Rival complaint', createdAt: Date.now() - 1000 });
    const body = (await live(rivalUrl)).body;
    expect(body?.newer).toBe(1);
    // A competitor's review is never waiting on the team, and the Open view offers no banner for it.
    expect(body?.open).toBe(3);
    expect((await live(openUrl)).body).toMatchObject({ open: 3, newer: 1 });
    // Five stars are not on the default view (low ratings only).
    const shopUrl = liveUrlOf(await (await browser.get('/')).text());
    seed.review({ app: 'shop', rating: 5, content: 'Fine now', createdAt: Date.now() - 500 });
    expect((await live(shopUrl)).body?.newer).toBe(0);
  });

  it('counts the whole queue the Open view lists over any period, an app dropped from the config too', async () => {
    const browser = await loggedIn();
    const url = liveUrlOf(await (await browser.get('/')).text());
    const open = (await live(url)).body?.open ?? 0;
    // An app no longer in the config keeps its open reviews in the Open view, and in the count.
    seed.review({ app: 'dropped', rating: 1, content: 'Still broken', createdAt: Date.now() - 400 });
    // Older than the list's default 30 days: still waiting on the team.
    seed.review({ app: 'shop', rating: 2, content: 'Old complaint', createdAt: Date.now() - 90 * DAY });
    const body = (await live(url)).body;
    expect(body?.open).toBe(open + 2);
    const queue = await fetch(`${server.url}/api/reviews?view=open&period=all&limit=500`, { headers: AUTH });
    const { reviews } = (await queue.json()) as { reviews: unknown[] };
    expect(reviews.length).toBe(body?.open);
  });

  it('names the reviews triaged since the page was drawn, as they are now, and the count follows', async () => {
    const browser = await loggedIn();
    const page = await (await browser.get('/')).text();
    const url = liveUrlOf(page);
    const before = await live(url);
    const open = before.body?.open ?? 0;
    const res = await fetch(`${server.url}/api/reviews/${ids.open}/triage`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'resolved', assignee: 'ana' }),
    });
    expect(res.status).toBe(200);
    const after = await live(url, before.etag);
    expect(after.status).toBe(200);
    expect(after.body?.changed).toEqual([{ id: ids.open, status: 'resolved', assignee: 'ana' }]);
    expect(after.body?.open).toBe(open - 1);
    // The list's tabs follow: one fewer open, one more resolved, the list's own total with them.
    const tabs = (b: Live | undefined) => b?.tabs?.counts ?? {};
    expect(tabs(after.body).open).toBe((tabs(before.body).open ?? 0) - 1);
    expect(tabs(after.body).resolved).toBe((tabs(before.body).resolved ?? 0) + 1);
    expect(after.body?.tabs?.total).toBe(tabs(after.body).open);
    // The next page drawn starts from the new mark: nothing has changed since it.
    const fresh = await live(liveUrlOf(await (await browser.get('/')).text()));
    expect(fresh.body).toMatchObject({ newer: 0, changed: [] });
  });

  it('on a review page counts no new reviews (it shows no banner for them)', async () => {
    const browser = await loggedIn();
    const page = await (await browser.get(`/reviews/${ids.happy}`)).text();
    expect(page).toContain(`data-live-review="${ids.happy}"`);
    expect(page).not.toContain('data-live-show');
    const url = liveUrlOf(page);
    expect(url).toMatch(/^\/api\/live\?events=\d+$/);
    seed.review({ app: 'shop', rating: 1, content: 'Yet another', createdAt: Date.now() - 100 });
    expect((await live(url)).body?.newer).toBe(0);
  });

  it('refuses what it does not take, naming it', async () => {
    const res = await fetch(`${server.url}/api/live?after=soon&events=-1&colour=red`, { headers: AUTH });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { problems: Array<{ name: string; message: string }> };
    expect(body.problems.map((p) => p.name)).toEqual(['after', 'events', 'colour']);
    expect(body.problems[2]?.message).toMatch(/it takes app, role, .*, after, events, tabs$/);
  });
});
