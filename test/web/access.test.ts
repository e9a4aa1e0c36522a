import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { auditOf, triageOf } from '../../src/store/triage.js';
import { addUser } from '../../src/web/users.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { REDIS_URL, tempStore } from '../helpers/index.js';
import {
  ADMIN_TOKEN,
  Browser,
  hiddenField,
  inboxConfig,
  startWebServer,
  type WebServer,
} from '../helpers/web.js';

const PASSWORD = 'a long enough password';
const SECRET_TEXT = 'Private review text 7d1f';

let redis: Redis;
let store: ReturnType<typeof tempStore>;
let reviewId: number;
let web: WebServer | undefined;

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
  store = tempStore();
  reviewId = new ReviewSeeder(store).review({ content: SECRET_TEXT, createdAt: Date.now() - 86_400_000 });
  await addUser(store, { name: 'ana', password: PASSWORD });
});
afterAll(async () => {
  store.cleanup();
  await redis.quit();
});
beforeEach(() => {
  web = undefined;
});
afterEach(async () => {
  await web?.server.close();
});

async function start(options: Partial<Parameters<typeof startWebServer>[0]> = {}): Promise<WebServer> {
  web = await startWebServer({ store, redis, ...options });
  return web;
}

async function loggedIn(server: WebServer): Promise<Browser> {
  const browser = new Browser(server.url);
  const res = await browser.login('ana', PASSWORD);
  expect(res.status).toBe(303);
  return browser;
}

/** The CSRF token the review's page puts in its forms. */
async function csrfOf(browser: Browser): Promise<string> {
  return hiddenField(await (await browser.get(`/reviews/${reviewId}`)).text(), '_csrf');
}

describe('without credentials', () => {
  it('answers only /healthz, /readyz, the login page and its stylesheet', async () => {
    const { url } = await start();
    const anonymous = new Browser(url);
    expect((await anonymous.get('/healthz')).status).toBe(200);
    expect((await anonymous.get('/readyz')).status).toBe(200);
    const login = await anonymous.get('/login');
    expect(login.status).toBe(200);
    const stylesheet = /<link rel="stylesheet" href="([^"]+)">/.exec(await login.text())?.[1];
    expect((await anonymous.get(stylesheet ?? 'none')).status).toBe(200);

    const pages = [
      '/',
      '/?status=new&q=refund',
      `/reviews/${reviewId}`,
      '/reviews/999',
      '/export.csv?period=all',
      '/apps/shop',
      '/admin/queues',
      '/nowhere',
    ];
    for (const path of pages) {
      const res = await anonymous.get(path);
      expect(res.status, path).toBe(303);
      expect(res.headers.get('location'), path).toBe(`/login?next=${encodeURIComponent(path)}`);
      expect(await res.text()).not.toContain(SECRET_TEXT);
    }
    const api = [
      '/api/reviews',
      `/api/reviews/${reviewId}`,
      '/api/live?events=0',
      '/admin/queues/api/queues',
    ];
    for (const path of api) {
      const res = await anonymous.get(path, { accept: 'application/json' });
      expect(res.status, path).toBe(401);
      expect(await res.text()).not.toContain(SECRET_TEXT);
    }
    expect((await anonymous.get('/api/reviews')).headers.get('www-authenticate')).toContain('Bearer');
    for (const path of [`/reviews/${reviewId}/triage`, `/api/reviews/${reviewId}/triage`, '/logout']) {
      const res = await anonymous.post(path, { action: 'status', status: 'resolved' });
      expect(res.status, path).toBe(401);
    }
    expect(triageOf(store.db, reviewId).status).toBe('new');
    // A scraper is told so with a 401, not sent to a login page it would take for malformed metrics.
    const metrics = await anonymous.get('/metrics');
    expect(metrics.status).toBe(401);
    expect(metrics.headers.get('www-authenticate')).toContain('Bearer');
    expect(await metrics.text()).not.toContain('reviewwatch_');
  });

  it('refuses a wrong bearer token and a session cookie made up by the client', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/api/reviews`, { headers: { authorization: 'Bearer wrong' } });
    expect(res.status).toBe(401);
    // The right token with anything after it is not the credential that was issued.
    for (const authorization of [`Bearer ${ADMIN_TOKEN} extra`, `Bearer ${ADMIN_TOKEN}x`]) {
      expect((await fetch(`${url}/api/reviews`, { headers: { authorization } })).status).toBe(401);
    }
    expect(
      (await fetch(`${url}/api/reviews`, { headers: { authorization: `bearer ${ADMIN_TOKEN}` } })).status,
    ).toBe(200);
    const forged = await fetch(`${url}/api/reviews`, { headers: { cookie: 'rw_session=made-up' } });
    expect(forged.status).toBe(401);
  });
});

describe('logging in', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie (not Secure over http) and goes where it was asked', async () => {
    const { url } = await start();
    const browser = new Browser(url);
    const res = await browser.login('ana', PASSWORD, `/reviews/${reviewId}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/reviews/${reviewId}`);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('rw_session='));
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Max-Age=43200/);
    expect(cookie).not.toMatch(/Secure/);
    const page = await browser.get(`/reviews/${reviewId}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(SECRET_TEXT);
    // Only the token's hash is stored.
    const token = browser.cookies.get('rw_session') ?? '';
    const stored = store.db.$client.prepare('select token_hash as h from web_sessions').all() as Array<{
      h: string;
    }>;
    expect(stored.some((s) => s.h === token)).toBe(false);
  });

  it('makes the cookie Secure and __Host- when the public URL is https', async () => {
    const { url } = await start({ config: inboxConfig({ publicUrl: 'https://inbox.example.com' }) });
    const browser = new Browser(url);
    const res = await browser.login('ana', PASSWORD);
    expect(res.status).toBe(303);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('__Host-rw_session='));
    expect(cookie).toMatch(/; Path=\/; .*HttpOnly; SameSite=Lax; Secure$/);
  });

  it('refuses a wrong password, a form without its CSRF cookie, and never redirects off the site', async () => {
    const { url } = await start();
    const browser = new Browser(url);
    const wrong = await browser.login('ana', 'not the password');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('Wrong name or password.');
    expect(wrong.headers.getSetCookie().some((c) => c.startsWith('rw_session='))).toBe(false);

    const noCookie = await new Browser(url).post('/login', { _csrf: 'x', name: 'ana', password: PASSWORD });
    expect(noCookie.status).toBe(403);

    for (const next of ['//evil.example/', '/\\evil.example', 'https://evil.example/']) {
      const res = await new Browser(url).login('ana', PASSWORD, next);
      expect(res.headers.get('location')).toBe('/');
    }
  });

  it('keeps a login form valid when the login page is loaded again (a second tab, a favicon redirect)', async () => {
    const { url } = await start();
    const browser = new Browser(url);
    const first = await (await browser.get('/login')).text();
    await browser.get('/login?next=%2Ffavicon.ico');
    const icon = await browser.get('/favicon.ico');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/x-icon');
    const res = await browser.post('/login', {
      _csrf: hiddenField(first, '_csrf'),
      next: '/',
      name: 'ana',
      password: PASSWORD,
    });
    expect(res.status).toBe(303);
  });

  it('rate-limits failed logins per name, even with the right password, until the window passes', async () => {
    const server = await start({ loginLimits: { perName: 3, perAddress: 100, windowMs: 60_000 } });
    const browser = new Browser(server.url);
    for (let i = 0; i < 3; i++) expect((await browser.login('ana', `wrong ${i}`)).status).toBe(401);
    const refused = await browser.login('ana', PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toContain('Too many failed logins');
    expect(browser.cookies.has('rw_session')).toBe(false);
    server.advance(61_000);
    expect((await browser.login('ana', PASSWORD)).status).toBe(303);
  });

  it('rate-limits per address across names', async () => {
    const server = await start({ loginLimits: { perName: 100, perAddress: 2, windowMs: 60_000 } });
    const browser = new Browser(server.url);
    expect((await browser.login('x1', 'wrong password')).status).toBe(401);
    expect((await browser.login('x2', 'wrong password')).status).toBe(401);
    expect((await browser.login('ana', PASSWORD)).status).toBe(429);
  });
});

describe('sessions', () => {
  it('expire after web.sessionTtl', async () => {
    const server = await start({ config: inboxConfig({ sessionTtl: '1h' }) });
    const browser = await loggedIn(server);
    expect((await browser.get('/')).status).toBe(200);
    server.advance(3_600_000 + 1000);
    const res = await browser.get('/');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login?next=%2F');
    expect((await browser.get('/api/reviews')).status).toBe(401);
  });

  it('end at logout, which needs the CSRF token too', async () => {
    const server = await start();
    const browser = await loggedIn(server);
    const csrf = await csrfOf(browser);
    const cookie = browser.cookies.get('rw_session');
    expect((await browser.post('/logout', {})).status).toBe(403);
    const out = await browser.post('/logout', { _csrf: csrf });
    expect(out.status).toBe(303);
    expect(browser.cookies.has('rw_session')).toBe(false);
    const replay = await fetch(`${server.url}/`, {
      headers: { cookie: `rw_session=${cookie}` },
      redirect: 'manual',
    });
    expect(replay.status).toBe(303);
  });
});

describe('state-changing requests', () => {
  it('from a form need the session’s CSRF token and this site', async () => {
    const server = await start();
    const browser = await loggedIn(server);
    const csrf = await csrfOf(browser);
    const path = `/reviews/${reviewId}/triage`;
    const change = { action: 'status', status: 'acknowledged' };
    expect((await browser.post(path, change)).status).toBe(403);
    expect((await browser.post(path, { ...change, _csrf: `${csrf}x` })).status).toBe(403);
    expect(
      (await browser.post(path, { ...change, _csrf: csrf }, { origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect(
      (await browser.post(path, { ...change, _csrf: csrf }, { 'sec-fetch-site': 'cross-site' })).status,
    ).toBe(403);
    expect(triageOf(store.db, reviewId).status).toBe('new');

    const ok = await browser.post(
      path,
      { ...change, _csrf: csrf },
      { 'sec-fetch-site': 'same-origin', origin: server.url },
    );
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe(`/reviews/${reviewId}#triage`);
    expect(triageOf(store.db, reviewId).status).toBe('acknowledged');
    expect(auditOf(store.db, reviewId).at(-1)).toMatchObject({ actor: 'ana', newValue: 'acknowledged' });
    await browser.post(path, { action: 'status', status: 'new', _csrf: csrf });
  });

  it('from the API with a session need the X-CSRF-Token header', async () => {
    const server = await start();
    const browser = await loggedIn(server);
    const csrf = await csrfOf(browser);
    const send = (headers: Record<string, string>) =>
      browser.request(`/api/reviews/${reviewId}/triage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ addTags: ['api'] }),
      });
    expect((await send({})).status).toBe(403);
    const ok = await send({ 'x-csrf-token': csrf });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { triage: { tags: string[] } }).triage.tags).toContain('api');
    const removed = await browser.request(`/api/reviews/${reviewId}/triage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify({ removeTags: ['api'] }),
    });
    expect(removed.status).toBe(200);
  });

  it('with the bearer token need no CSRF token, and are audited as the token', async () => {
    const { url } = await start();
    const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const list = await fetch(`${url}/api/reviews?period=all`, { headers: auth });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { reviews: Array<{ id: number }> }).reviews.map((r) => r.id)).toContain(
      reviewId,
    );
    const res = await fetch(`${url}/api/reviews/${reviewId}/triage`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'from a script' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { events: unknown[] };
    expect(body.events).toEqual([expect.objectContaining({ actor: '@token', field: 'note' })]);
    const bad = await fetch(`${url}/api/reviews/${reviewId}/triage`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'closed' }),
    });
    expect(bad.status).toBe(400);
    const missing = await fetch(`${url}/api/reviews/999999/triage`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'resolved' }),
    });
    expect(missing.status).toBe(404);
  });
});

describe('bulk changes', () => {
  it('from the list’s form apply to the selected reviews, need the CSRF token, and go back to the list', async () => {
    const seed = new ReviewSeeder(store);
    const ids = [seed.review({ createdAt: Date.now() }), seed.review({ createdAt: Date.now() })];
    const server = await start();
    const browser = await loggedIn(server);
    const list = await (await browser.get('/?status=new')).text();
    const csrf = hiddenField(list, '_csrf');
    const back = hiddenField(list, 'back');
    expect(back).toBe('/?status=new');
    const form = new URLSearchParams({ action: 'assign:ana', back });
    for (const id of ids) form.append('ids', String(id));
    const post = (body: URLSearchParams) =>
      browser.request('/reviews/bulk', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
      });
    expect((await post(form)).status).toBe(403);
    form.set('_csrf', csrf);
    const res = await post(form);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/?status=new');
    expect(ids.map((id) => triageOf(store.db, id).assignee)).toEqual(['ana', 'ana']);

    form.set('action', 'status:closed');
    const bad = await post(form);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Nothing was changed');
  });

  it('from the API apply to the ids given, all or nothing', async () => {
    const seed = new ReviewSeeder(store);
    const ids = [seed.review(), seed.review()];
    const { url } = await start();
    const send = (body: unknown) =>
      fetch(`${url}/api/reviews/triage`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await send({ ids: [...ids, 999_999], status: 'ignored' })).status).toBe(400);
    expect(ids.map((id) => triageOf(store.db, id).status)).toEqual(['new', 'new']);
    const res = await send({ ids, status: 'ignored' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: Array<{ id: number; triage: { status: string } }> };
    expect(body.results.map((r) => [r.id, r.triage.status])).toEqual(ids.map((id) => [id, 'ignored']));
    expect((await send({ ids })).status).toBe(400);
  });
});

describe('/metrics', () => {
  it('opens to a logged-in user and to the token', async () => {
    const server = await start();
    const browser = await loggedIn(server);
    const page = await browser.get('/metrics');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('# TYPE reviewwatch_polls_total');
    const token = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(token.status).toBe(200);
    // Ended sessions open nothing.
    await browser.post('/logout', { _csrf: await csrfOf(browser) });
    expect((await browser.get('/metrics')).status).toBe(401);
  });
});

describe('Bull Board', () => {
  it('opens to a logged-in user and to the token, and its changes refuse other sites', async () => {
    const server = await start();
    const browser = await loggedIn(server);
    expect((await browser.get('/admin/queues')).status).toBe(200);
    const token = await fetch(`${server.url}/admin/queues/api/queues`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(token.status).toBe(200);
    const cross = await browser.request('/admin/queues/api/queues/pause', {
      method: 'PUT',
      headers: { origin: 'https://evil.example' },
    });
    expect(cross.status).toBe(403);
  });
});

describe('every page', () => {
  it('carries a strict Content-Security-Policy and no inline script or style', async () => {
    const server = await start();
    const browser = await loggedIn(server);
    for (const path of ['/login', '/', `/reviews/${reviewId}`]) {
      const res = await (path === '/login' ? new Browser(server.url) : browser).get(path);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const text = await res.text();
      const scripts = [...text.matchAll(/<script[^>]*>/g)].map((m) => m[0]);
      expect(scripts).toEqual(
        path === '/login'
          ? []
          : [expect.stringMatching(/^<script src="\/assets\/inbox\.[0-9a-f]{12}\.js" defer>$/)],
      );
      expect(text).not.toMatch(/<script>|<style|\sstyle=|\son[a-z]+=/i);
    }
  });
});
