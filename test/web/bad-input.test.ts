import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { auditOf, triageOf } from '../../src/store/triage.js';
import { addUser } from '../../src/web/users.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { REDIS_URL, tempStore } from '../helpers/index.js';
import { ADMIN_TOKEN, Browser, hiddenField, startWebServer, type WebServer } from '../helpers/web.js';

const PASSWORD = 'a long enough password';
const AUTH = { authorization: `Bearer ${ADMIN_TOKEN}` };

let redis: Redis;
let store: ReturnType<typeof tempStore>;
let server: WebServer;
let reviewId: number;

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
  store = tempStore();
  const seed = new ReviewSeeder(store);
  reviewId = seed.review({ createdAt: Date.now() - 86_400_000 });
  seed.review({ createdAt: Date.now() - 2 * 86_400_000 });
  await addUser(store, { name: 'ana', password: PASSWORD });
  server = await startWebServer({ store, redis });
});
afterAll(async () => {
  await server.server.close();
  store.cleanup();
  await redis.quit();
});

interface Refusal {
  error: string;
  problems?: Array<{ name: string; message: string }>;
  hint?: string;
}

async function api(path: string, init: RequestInit = {}): Promise<{ status: number; body: Refusal }> {
  const res = await fetch(`${server.url}${path}`, { ...init, headers: { ...AUTH, ...init.headers } });
  expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
  return { status: res.status, body: (await res.json()) as Refusal };
}

function postJson(path: string, body: string, headers: Record<string, string> = {}) {
  return api(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

/** The audit rows of the review: a refused change must write none. */
const auditCount = () => auditOf(store.db, reviewId).length;

describe('what the operator found', () => {
  it('refuses ?limit=abc on /api/reviews with a 400 that names limit and what it accepts', async () => {
    const { status, body } = await api('/api/reviews?limit=abc');
    expect(status).toBe(400);
    expect(body.error).toBe('bad query parameter');
    expect(body.problems).toEqual([
      { name: 'limit', message: 'limit is a whole number from 1 to 500, not "abc"' },
    ]);
  });

  it('refuses a made-up ?cursor= with a 400 that names cursor', async () => {
    const { status, body } = await api('/api/reviews?cursor=not-a-cursor');
    expect(status).toBe(400);
    expect(body.problems).toEqual([
      { name: 'cursor', message: 'cursor is the `next` of the page before, as given, not "not-a-cursor"' },
    ]);
    // The `next` the API gives is taken back.
    const first = await api('/api/reviews?limit=1&period=all');
    const next = (first.body as unknown as { next: string }).next;
    expect((await api(`/api/reviews?limit=1&period=all&cursor=${next}`)).status).toBe(200);
  });

  it('refuses a truncated JSON body with a 400 saying so, and changes nothing', async () => {
    const before = auditCount();
    const { status, body } = await postJson(`/api/reviews/${reviewId}/triage`, '{"status": "ackno');
    expect(status).toBe(400);
    expect(body.error).toMatch(/^the body is not valid JSON \(/);
    expect(body.hint).toContain('application/json');
    expect(auditCount()).toBe(before);
    expect(triageOf(store.db, reviewId).status).toBe('new');
  });
});

describe('query parameters', () => {
  it('are each checked, every wrong one named with what it accepts', async () => {
    const { status, body } = await api(
      '/api/reviews?stars=0,2&priority=urgent&status=open&from=2026-02-30&period=forever&role=boss&removed=maybe&app=Not%20A%20Handle&assignee=%40token&tag=%21%21&limit=501',
    );
    expect(status).toBe(400);
    expect(body.problems?.map((p) => p.name)).toEqual([
      'stars',
      'priority',
      'status',
      'from',
      'period',
      'role',
      'removed',
      'app',
      'assignee',
      'tag',
      'limit',
    ]);
    expect(body.problems?.[0]?.message).toBe('stars is whole numbers from 1 to 5 (stars=1,2), not "0"');
    expect(body.problems?.[4]?.message).toBe('period is one of 7d, 30d, 90d, 365d, all, not "forever"');
  });

  it('refuse a parameter no route takes, a single one given twice, and dates out of order', async () => {
    const misspelt = await api('/api/reviews?stauts=new');
    expect(misspelt.status).toBe(400);
    expect(misspelt.body.problems?.[0]?.message).toMatch(
      /^"stauts" is not a parameter of this page: it takes app, role/,
    );
    const twice = await api('/api/reviews?limit=1&limit=2');
    expect(twice.body.problems).toEqual([{ name: 'limit', message: 'limit is given once, not 2 times' }]);
    const reversed = await api('/api/reviews?from=2026-11-10&to=2026-11-01');
    expect(reversed.body.problems).toEqual([
      { name: 'from', message: 'from (2026-11-10) is after to (2026-11-01)' },
    ]);
    const badViews = await api('/api/reviews?view=inbox&sort=oldest');
    expect(badViews.body.problems).toEqual([
      {
        name: 'view',
        message: 'view is one of open, new, mine, resolved, ignored, competitors, all, not "inbox"',
      },
      { name: 'sort', message: 'sort is one of newest, seen, severity, app, not "oldest"' },
    ]);
    // A cursor of one order handed to another would start the page anywhere.
    const mixed = await api('/api/reviews?sort=severity&cursor=1764000000000_42');
    expect(mixed.body.problems?.map((p) => p.name)).toEqual(['cursor']);
    const undo = await fetch(`${server.url}/?undo=1;2`, { headers: AUTH });
    expect(undo.status).toBe(400);
    expect(await undo.text()).toContain('undo is the audit row numbers of a change');
    const none = await api(`/api/reviews/${reviewId}?verbose=1`);
    expect(none.status).toBe(400);
    expect(none.body.problems?.[0]?.message).toContain('it takes no query parameters');
  });

  it("of /api/live are the list's and the page's mark, each checked the same way", async () => {
    const { status, body } = await api(
      '/api/live?after=soon&events=1e3&stars=9&from=2026-11-10&to=2026-11-01',
    );
    expect(status).toBe(400);
    expect(body.problems).toEqual([
      {
        name: 'after',
        message:
          'after is the newest review the page shows: a whole number, as the page\'s live URL gives it, not "soon"',
      },
      {
        name: 'events',
        message:
          'events is the newest triage event the page knows: a whole number, as the page\'s live URL gives it, not "1e3"',
      },
      { name: 'stars', message: 'stars is whole numbers from 1 to 5 (stars=1,2), not "9"' },
    ]);
    const reversed = await api('/api/live?from=2026-11-10&to=2026-11-01&events=0');
    expect(reversed.body.problems).toEqual([
      { name: 'from', message: 'from (2026-11-10) is after to (2026-11-01)' },
    ]);
    expect((await api('/api/live?events=0&after=0&period=all')).status).toBe(200);
  });

  it('are the same for the CSV export, and empty values (what a form sends for "any") are absent', async () => {
    const res = await fetch(`${server.url}/export.csv?limit=abc`, {
      headers: { ...AUTH, accept: 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('limit is a whole number from 1 to 500');
    const empty = await fetch(`${server.url}/api/reviews?role=&assignee=&q=&removed=show&period=all`, {
      headers: AUTH,
    });
    expect(empty.status).toBe(200);
  });

  it('on a page, show the filter form again with what was wrong, and a 400', async () => {
    const browser = new Browser(server.url);
    expect((await browser.login('ana', PASSWORD)).status).toBe(303);
    const res = await browser.get('/?limit=abc&q=refund&stars=1,9');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('These filters cannot be applied; correct them above:');
    expect(page).toContain('<li>limit is a whole number from 1 to 500, not &quot;abc&quot;</li>');
    expect(page).toContain('<li>stars is whole numbers from 1 to 5 (stars=1,2), not &quot;9&quot;</li>');
    // The form keeps what was valid, so it can be corrected and sent again without JavaScript.
    expect(page).toContain('<form class="filters" method="get" action="/"');
    expect(page).toContain('name="q" value="refund"');
    expect(page).not.toContain('<table class="inbox">');

    const review = await browser.get(`/reviews/${reviewId}?x=1`);
    expect(review.status).toBe(400);
    const text = await review.text();
    expect(text).toContain('&quot;x&quot; is not a parameter of this page: it takes list, undo');
    expect(text).toContain('<a href="/">Back</a>');
  });

  it('on the login page, still show the form', async () => {
    const res = await fetch(`${server.url}/login?next=/&next=/x`);
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('next is given once, not 2 times');
    expect(hiddenField(page, 'next')).toBe('/');
  });
});

describe('bodies', () => {
  it('of the wrong type or shape are a 400 naming what is wrong', async () => {
    const before = auditCount();
    const text = await api(`/api/reviews/${reviewId}/triage`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"status":"resolved"}',
    });
    expect(text.status).toBe(400);
    expect(text.body.problems).toEqual([
      {
        name: 'content-type',
        message: 'the body is of type text/plain; this takes application/json',
      },
    ]);
    const shape = await postJson(`/api/reviews/${reviewId}/triage`, '{"status":"closed","color":"red"}');
    expect(shape.status).toBe(400);
    expect(shape.body.problems?.map((p) => p.name)).toEqual(['status', 'color']);
    const list = await postJson(`/api/reviews/${reviewId}/triage`, '[1, 2]');
    expect(list.status).toBe(400);
    expect(list.body.problems?.[0]?.name).toBe('body');
    const bulk = await postJson('/api/reviews/triage', '{"ids": "all", "status": "resolved"}');
    expect(bulk.status).toBe(400);
    expect(bulk.body.problems?.[0]?.name).toBe('ids');
    expect(auditCount()).toBe(before);
  });

  it('larger than 64 KB are a 413 that says so', async () => {
    const big = JSON.stringify({ note: 'x'.repeat(70_000) });
    const { status, body } = await postJson(`/api/reviews/${reviewId}/triage`, big);
    expect(status).toBe(413);
    expect(body.error).toBe('the body is larger than 64 KB, the most accepted');
  });

  it('posted by a form are answered with a page that keeps the forms working', async () => {
    const browser = new Browser(server.url);
    await browser.login('ana', PASSWORD);
    const page = await (await browser.get(`/reviews/${reviewId}`)).text();
    const csrf = hiddenField(page, '_csrf');
    const before = auditCount();
    const bad = await browser.post(`/reviews/${reviewId}/triage`, { _csrf: csrf, action: 'paint' });
    expect(bad.status).toBe(400);
    const text = await bad.text();
    expect(text).toContain('Nothing was changed: action: Invalid discriminator value.');
    // The review's page itself, with its forms, to try again.
    expect(text).toContain(`action="/reviews/${reviewId}/triage"`);

    const huge = await browser.post(`/reviews/${reviewId}/triage`, {
      _csrf: csrf,
      action: 'note',
      note: 'x'.repeat(70_000),
    });
    expect(huge.status).toBe(413);
    expect(huge.headers.get('content-type')).toMatch(/^text\/html/);
    const hugeText = await huge.text();
    expect(hugeText).toContain('the body is larger than 64 KB');
    expect(hugeText).toContain(`<a href="/reviews/${reviewId}">Back</a>`);

    const json = await browser.request(`/reviews/${reviewId}/triage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify({ action: 'status', status: 'resolved' }),
    });
    expect(json.status).toBe(400);
    expect(await json.text()).toContain('this takes application/x-www-form-urlencoded');
    const ids = await browser.post('/reviews/bulk', { _csrf: csrf, ids: 'all', action: 'status:resolved' });
    expect(ids.status).toBe(400);
    expect(await ids.text()).toContain('Nothing was changed');
    expect(auditCount()).toBe(before);
  });
});

describe('a failure of the server', () => {
  it('is logged with its stack and answered with a 500 that shows nothing of the insides', async () => {
    const broken = tempStore();
    new ReviewSeeder(broken).review();
    const web = await startWebServer({ store: broken, redis });
    try {
      broken.db.$client.close();
      const json = await fetch(`${web.url}/api/reviews`, { headers: AUTH });
      expect(json.status).toBe(500);
      const body = await json.text();
      expect(JSON.parse(body)).toEqual({
        error: 'internal error',
        hint: 'the server logged what went wrong; try again later',
      });
      const page = await fetch(`${web.url}/`, { headers: AUTH });
      expect(page.status).toBe(500);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html).toContain('<h1>Something went wrong</h1>');
      for (const text of [body, html]) {
        expect(text).not.toMatch(/database|connection|\bat \w|\.ts\b|\.js\b:|\/work\/|node_modules/i);
      }
      const errors = web.log.lines().filter((l) => l.level >= 50);
      expect(errors).toHaveLength(2);
      const err = errors[0]?.err as { message: string; stack: string };
      expect(err.message).toBe('The database connection is not open');
      expect(err.stack).toMatch(/\n\s+at /);
      expect(errors[0]).toMatchObject({ msg: 'inbox request failed', method: 'GET', path: '/api/reviews' });
    } finally {
      await web.server.close();
      broken.cleanup();
    }
  });
});

describe("the market's routes", () => {
  it('refuse a bad or unknown query parameter with a 400 before looking the handle up', async () => {
    const market = await api('/api/market?category=store-design');
    expect(market.status).toBe(400);
    expect(market.body.problems?.[0]?.message).toContain('it takes no query parameters');
    const days = await api('/api/categories/store-design?days=1e3&days=2');
    expect(days.status).toBe(400);
    expect(days.body.problems).toEqual([{ name: 'days', message: 'days is given once, not 2 times' }]);
    const range = await api('/api/categories/nowhere?days=366');
    expect(range.body.problems).toEqual([
      { name: 'days', message: 'days is a whole number of days from 1 to 365, not "366"' },
    ]);
    const changes = await api('/api/apps/shop/changes?limit=-1&cursor=0');
    expect(changes.body.problems?.map((p) => p.name)).toEqual(['limit', 'cursor']);
    // Valid parameters, unknown handles: 404.
    expect((await api('/api/categories/nowhere?days=30')).status).toBe(404);
    expect((await api('/api/apps/nobody/changes?limit=5')).status).toBe(404);
  });

  it('answer a browser with the page of what to correct', async () => {
    const res = await fetch(`${server.url}/categories/store-design?days=soon`, { headers: AUTH });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('days is a whole number of days from 1 to 365, not &quot;soon&quot;');
  });
});
