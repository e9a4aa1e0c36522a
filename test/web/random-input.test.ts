/**
 * Random query strings and bodies, from a seeded generator, sent to every route of the inbox and the ops
 * server, as a logged-in user (with the CSRF token, so changes get past it) and with the admin token. Whatever
 * arrives, the server answers it with something other than a 5xx, logs no error, the API answers in JSON,
 * and it still answers afterwards. A failure names the seed and the request, so it can be replayed.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { Rng } from '../../src/simulator/random.js';
import { addUser } from '../../src/web/users.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { REDIS_URL, tempStore } from '../helpers/index.js';
import { marketInboxConfig, seedMarketHistory } from '../helpers/market.js';
import { ADMIN_TOKEN, Browser, hiddenField, startWebServer, type WebServer } from '../helpers/web.js';

const SEED = 20261123;
const REQUESTS_PER_CLIENT = 600;
const PASSWORD = 'a long enough password';

let redis: Redis;
let store: ReturnType<typeof tempStore>;
let server: WebServer;
let reviewId: number;
let identity: string;

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
  store = tempStore();
  const seed = new ReviewSeeder(store);
  for (let i = 0; i < 30; i++) {
    reviewId = seed.review({ rating: 1 + (i % 5), createdAt: Date.now() - i * 3_600_000 });
  }
  ({ identity } = store.db.$client.prepare('select identity from reviews where id = ?').get(reviewId) as {
    identity: string;
  });
  await addUser(store, { name: 'ana', password: PASSWORD });
  // The market's routes show a category with a gap, an entrant and a listing change.
  seedMarketHistory(store, Date.now());
  // Random logins fail by the hundred: the throttle must not lock out the test's own logins.
  server = await startWebServer({
    store,
    redis,
    config: marketInboxConfig(),
    loginLimits: { perName: 1_000_000, perAddress: 1_000_000, windowMs: 60_000 },
  });
});
afterAll(async () => {
  await server.server.close();
  store.cleanup();
  await redis.quit();
});

const PARAMS = [
  'app',
  'role',
  'stars',
  'priority',
  'status',
  'assignee',
  'tag',
  'from',
  'to',
  'period',
  'q',
  'removed',
  'view',
  'sort',
  'days',
  'limit',
  'cursor',
  'next',
  'after',
  'events',
  'open',
  'undo',
  'list',
];

/** Texts that have broken parsers somewhere: valid values, their neighbours, and junk. */
const VALUES = [
  '',
  ' ',
  'shop',
  'rival',
  'own',
  'competitor',
  '1',
  '1,2',
  '0',
  '-1',
  '5',
  '6',
  '500',
  '501',
  '1e3',
  '0x10',
  '99999999999999999999',
  'NaN',
  'Infinity',
  'critical',
  'high,low',
  'new',
  'acknowledged,resolved',
  'ana',
  '@token',
  'billing',
  'Billing Issue',
  '2026-11-23',
  '2026-02-30',
  '2026-13-01',
  '0000-00-00',
  '7d',
  'all',
  'forever',
  'show',
  'hide',
  'only',
  '1764000000000_42',
  '-1_-1',
  '99999999999999999_1',
  '1_',
  '_1',
  'refund',
  '/',
  '//evil.example',
  '/\\evil.example',
  'https://evil.example/',
  'javascript:alert(1)',
  '<script>alert(1)</script>',
  '"quoted"',
  "' or 1=1 --",
  'refund* OR NEAR(a b)',
  '"unbalanced',
  'NOT',
  '^*:',
  'שלום',
  '\u202Egnp.exe',
  '\u0000',
  '%',
  '%ZZ',
  '%00',
  '%C0%80',
  '%F0%9F%98%80',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'x'.repeat(300),
  'a,'.repeat(200),
  'open',
  'mine',
  'competitors',
  'severity',
  'seen',
  'app',
  'severity.-950_1764000000000_42',
  'seen.1764000000000_42',
  'app.shop.1764000000000_42',
  'app.Not A Handle.1_1',
  '12,13',
  '1,,2',
  'view=open&q=refund',
  'stars=9',
  'view%3Dall%26sort%3Dseverity',
];

function pick<T>(rng: Rng, items: readonly T[]): T {
  return rng.pick(items);
}

/** A value as it goes into a URL: usually encoded, sometimes raw (a `%ZZ` the server must decode itself). */
function urlText(rng: Rng, text: string): string {
  return rng.chance(0.8) ? encodeURIComponent(text) : text.replace(/[#&\s]/g, '');
}

function randomKey(rng: Rng): string {
  const roll = rng.next();
  if (roll < 0.75) return pick(rng, PARAMS);
  if (roll < 0.85) return pick(rng, ['stauts', 'x', 'a[b]', '__proto__', 'constructor', 'limit[]', '']);
  return urlText(rng, pick(rng, VALUES));
}

function randomQuery(rng: Rng): string {
  if (rng.chance(0.15)) return '';
  const parts: string[] = [];
  const count = rng.int(1, 6);
  for (let i = 0; i < count; i++) {
    const key = randomKey(rng);
    const roll = rng.next();
    if (roll < 0.05) parts.push(key);
    else parts.push(`${key}=${urlText(rng, pick(rng, VALUES))}`);
  }
  return `?${parts.join('&')}`;
}

function randomId(rng: Rng): string {
  return urlText(
    rng,
    pick(rng, [
      String(reviewId),
      String(reviewId),
      '1',
      '0',
      '-1',
      '999999',
      '1e3',
      'abc',
      '9'.repeat(40),
      '%ZZ',
    ]),
  );
}

/** A path of the server, its parameters random but usually real. */
function randomGet(rng: Rng): string {
  const handle = urlText(rng, pick(rng, ['shop', 'rival', 'nobody', 'Not A Handle', '..%2F..', '%ZZ']));
  const review = urlText(rng, pick(rng, [identity, 'r1', 'nothing', '%ZZ', '']));
  return pick(rng, [
    '/',
    '/',
    '/api/reviews',
    '/api/reviews',
    '/export.csv',
    `/api/reviews/${randomId(rng)}`,
    `/reviews/${randomId(rng)}`,
    `/apps/${handle}`,
    `/apps/${handle}/reviews/${review}`,
    '/market',
    '/api/market',
    `/categories/${urlText(rng, pick(rng, ['store-design', 'finances', 'productivity', 'Not A Handle']))}`,
    `/api/categories/${urlText(rng, pick(rng, ['store-design', 'finances', 'nowhere', '%ZZ']))}`,
    `/api/apps/${handle}/changes`,
    '/login',
    '/favicon.ico',
    '/favicon.svg',
    '/api/live',
    '/api/live',
    '/healthz',
    '/readyz',
    '/metrics',
    '/nowhere',
  ]);
}

function randomPostPath(rng: Rng): string {
  return pick(rng, [
    `/api/reviews/${randomId(rng)}/triage`,
    `/api/reviews/${randomId(rng)}/triage`,
    '/api/reviews/triage',
    '/api/reviews/triage',
    `/reviews/${randomId(rng)}/triage`,
    `/reviews/${randomId(rng)}/triage`,
    '/reviews/bulk',
    '/reviews/bulk',
    '/reviews/undo',
    '/login',
    '/logout',
    '/api/reviews',
    '/',
  ]);
}

const FIELDS = [
  'status',
  'assignee',
  'addTags',
  'removeTags',
  'note',
  'ids',
  'action',
  'tag',
  'back',
  'events',
  'list',
  'advance',
  'name',
  'password',
  'next',
  '_csrf',
  'color',
];

/** A JSON value of any type, nested a little. */
function randomJsonValue(rng: Rng, depth = 0): unknown {
  const roll = rng.int(0, depth > 2 ? 5 : 7);
  switch (roll) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return pick(rng, [0, -1, 1, reviewId, 1.5, 1e308, -0, 2 ** 53 + 1]);
    case 3:
    case 4:
    case 5:
      return pick(rng, VALUES);
    case 6:
      return Array.from({ length: rng.int(0, 4) }, () => randomJsonValue(rng, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: rng.int(0, 4) }, () => [pick(rng, FIELDS), randomJsonValue(rng, depth + 1)]),
      );
  }
}

/** A body the API would take, with its values sometimes swapped for random ones. */
function plausibleJson(rng: Rng): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (rng.chance(0.5)) body.status = pick(rng, ['new', 'acknowledged', 'resolved', 'ignored', 'closed']);
  if (rng.chance(0.3)) body.assignee = pick(rng, ['ana', null, 'nobody', '', 3]);
  if (rng.chance(0.3)) body.addTags = [pick(rng, VALUES)];
  if (rng.chance(0.2)) body.removeTags = pick(rng, [['billing'], 'billing', []]);
  if (rng.chance(0.3)) body.note = pick(rng, VALUES);
  if (rng.chance(0.5)) body.ids = pick(rng, [[reviewId], [reviewId, 999_999], [], 'all', [0], [-1], [1.5]]);
  for (const key of Object.keys(body)) if (rng.chance(0.1)) body[key] = randomJsonValue(rng);
  if (rng.chance(0.1)) body[pick(rng, FIELDS)] = randomJsonValue(rng);
  return body;
}

function randomForm(rng: Rng, csrf: string | undefined): URLSearchParams {
  const form = new URLSearchParams();
  if (csrf && rng.chance(0.7)) form.append('_csrf', csrf);
  const action = pick(rng, [
    'status',
    'assign',
    'tag',
    'untag',
    'note',
    'paint',
    'status:resolved',
    'assign:ana',
    'assign:',
    'status:x',
  ]);
  if (rng.chance(0.9)) form.append('action', action);
  const count = rng.int(0, 5);
  for (let i = 0; i < count; i++) form.append(pick(rng, FIELDS), pick(rng, VALUES));
  if (rng.chance(0.4)) form.append('ids', String(reviewId));
  return form;
}

interface RandomBody {
  body: string | Uint8Array | undefined;
  headers: Record<string, string>;
  describe: string;
}

function randomBody(rng: Rng, csrf: string | undefined): RandomBody {
  const json = JSON.stringify(rng.chance(0.7) ? plausibleJson(rng) : randomJsonValue(rng));
  const form = randomForm(rng, csrf).toString();
  const roll = rng.int(0, 11);
  const type = (t: string) => ({ 'content-type': t });
  switch (roll) {
    case 0:
    case 1:
      return { body: json, headers: type('application/json'), describe: `json ${json.slice(0, 200)}` };
    case 2: {
      const cut = json.slice(0, rng.int(0, Math.max(0, json.length - 1)));
      return {
        body: cut,
        headers: type('application/json'),
        describe: `truncated json ${cut.slice(0, 200)}`,
      };
    }
    case 3:
    case 4:
      return {
        body: form,
        headers: type('application/x-www-form-urlencoded'),
        describe: `form ${form.slice(0, 200)}`,
      };
    case 5: {
      const bytes = Uint8Array.from({ length: rng.int(0, 300) }, () => rng.int(0, 255));
      const t = pick(rng, [
        'application/json',
        'application/x-www-form-urlencoded',
        'text/plain',
        'application/octet-stream',
      ]);
      return { body: bytes, headers: type(t), describe: `${bytes.length} random bytes as ${t}` };
    }
    case 6: {
      const size = pick(rng, [65_536, 70_000, 200_000]);
      const big = rng.chance(0.5)
        ? JSON.stringify({ note: 'x'.repeat(size) })
        : `note=${'x'.repeat(size)}&action=note`;
      const t = big.startsWith('{') ? 'application/json' : 'application/x-www-form-urlencoded';
      return { body: big, headers: type(t), describe: `${big.length} bytes as ${t}` };
    }
    case 7: {
      const t = pick(rng, [
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/x-www-form-urlencoded; charset=koi8-r',
        'application/xml',
        'json',
        ';;;',
      ]);
      const body = rng.chance(0.5) ? json : form;
      return { body, headers: type(t), describe: `${t}: ${body.slice(0, 200)}` };
    }
    case 8: {
      const encoding = pick(rng, ['gzip', 'deflate', 'br', 'identity', 'compress', 'x-unknown']);
      return {
        body: json,
        headers: { ...type('application/json'), 'content-encoding': encoding },
        describe: `json claimed ${encoding}`,
      };
    }
    case 9:
      return { body: undefined, headers: {}, describe: 'no body' };
    case 10:
      return { body: json, headers: {}, describe: `json without a type: ${json.slice(0, 200)}` };
    default: {
      const many = Array.from({ length: 1_200 }, (_, i) => `f${i}=1`).join('&');
      return {
        body: many,
        headers: type('application/x-www-form-urlencoded'),
        describe: '1,200 form fields',
      };
    }
  }
}

interface Client {
  name: string;
  /** Headers every request carries: the credentials, and what a browser adds. */
  headers(): Promise<Record<string, string>>;
  csrf(): string | undefined;
  browser: Browser;
}

async function userClient(): Promise<Client> {
  const browser = new Browser(server.url);
  browser.headers['sec-fetch-site'] = 'same-origin';
  let csrf: string | undefined;
  const ensureSession = async () => {
    if (browser.cookies.has('rw_session') && csrf) return;
    const res = await browser.login('ana', PASSWORD);
    expect(res.status, 'logging in again').toBe(303);
    csrf = hiddenField(await (await browser.get(`/reviews/${reviewId}`)).text(), '_csrf');
  };
  await ensureSession();
  return {
    name: 'user',
    browser,
    csrf: () => csrf,
    headers: async () => {
      // A random post may have logged out, or logged in anew (a new session, a new token).
      if (!browser.cookies.has('rw_session')) csrf = undefined;
      await ensureSession();
      return { 'x-csrf-token': csrf ?? '' };
    },
  };
}

function tokenClient(): Client {
  return {
    name: 'token',
    browser: new Browser(server.url),
    csrf: () => undefined,
    headers: async () => ({ authorization: `Bearer ${ADMIN_TOKEN}` }),
  };
}

/** Requests `from` to `from + count - 1` of a client's sequence, drawn from its own `rng`. */
async function hammer(client: Client, rng: Rng, from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) {
    const headers = await client.headers();
    const post = rng.chance(0.5);
    const path = `${post ? randomPostPath(rng) : randomGet(rng)}${randomQuery(rng)}`;
    const body = post ? randomBody(rng, client.csrf()) : undefined;
    if (body && !rng.chance(0.8)) delete headers['x-csrf-token'];
    const what = `seed ${SEED}, ${client.name} request ${i}: ${post ? 'POST' : 'GET'} ${path}${body ? ` with ${body.describe}` : ''}`;
    const res = await client.browser.request(path, {
      method: post ? 'POST' : 'GET',
      headers: { ...headers, ...body?.headers },
      ...(body?.body !== undefined ? { body: body.body } : {}),
    });
    const text = await res.text();
    expect(res.status, what).toBeLessThan(500);
    if (path.startsWith('/api/') && res.status !== 303) {
      expect(res.headers.get('content-type'), what).toMatch(/^application\/json/);
      expect(() => JSON.parse(text), what).not.toThrow();
    }
    if (res.status === 400 || res.status === 413) expect(text, what).toMatch(/body|is |not |given|form/);
  }
}

/**
 * Each client's sequence runs in batches, each its own test: on a busy machine a batch slows down, but no
 * test nears the timeout the way all 1,200 requests in one did. The batches of a client share its session
 * and its random sequence, in order, so the requests are the same as in one run.
 */
const BATCH = 100;

describe('random input', () => {
  let user: Client | undefined;

  for (const who of ['user', 'token'] as const) {
    describe(`never makes the server fail, ${who === 'user' ? 'as a user' : 'with the token'}`, () => {
      let client: Client;
      const rng = Rng.from(SEED, who);

      beforeAll(async () => {
        client = who === 'user' ? await userClient() : tokenClient();
        if (who === 'user') user = client;
      });

      for (let from = 0; from < REQUESTS_PER_CLIENT; from += BATCH) {
        it(`in requests ${from + 1} to ${from + BATCH}`, async () => {
          await hammer(client, rng, from, BATCH);
        });
      }
    });
  }

  it('logs no error, and answers afterwards, the user still signed in', async () => {
    expect(server.log.lines().filter((l) => l.level >= 50)).toEqual([]);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const list = await fetch(`${server.url}/api/reviews?period=all&stars=1,2,3,4,5`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { reviews: unknown[] }).reviews).toHaveLength(30);
    if (user === undefined) throw new Error('the user batches did not run');
    await user.headers();
    expect((await user.browser.get('/')).status).toBe(200);
  });
});
