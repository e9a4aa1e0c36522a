/**
 * Topics in the inbox: the chips on each row from the stored topics, the `topic=` filter in the URL and
 * the form, the CSV's `topics` column, and `topics` on every review of the JSON API.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { REDIS_URL, tempStore } from '../helpers/index.js';
import { ADMIN_TOKEN, startWebServer, type WebServer } from '../helpers/web.js';

let redis: Redis;
let store: ReturnType<typeof tempStore>;
let server: WebServer;
const ids: Record<string, number> = {};
const DAY = 86_400_000;

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
  store = tempStore();
  const seed = new ReviewSeeder(store);
  const now = Date.now();
  ids.billing = seed.review({
    rating: 1,
    content: 'They charged me twice. Refund please!',
    createdAt: now - DAY,
  });
  ids.both = seed.review({
    rating: 2,
    content: 'Charged twice and the app crashes on every sync.',
    createdAt: now - 2 * DAY,
  });
  ids.bugs = seed.review({ rating: 1, content: 'It crashes all the time.', createdAt: now - 3 * DAY });
  ids.none = seed.review({ rating: 1, content: 'Meh.', createdAt: now - 4 * DAY });
  // Billing praise: five stars, outside the inbox's default stars, inside a topic's list.
  ids.happy = seed.review({
    rating: 5,
    content: 'Got a refund within a day, thanks.',
    createdAt: now - 5 * DAY,
  });
  server = await startWebServer({ store, redis });
});
afterAll(async () => {
  await server.server.close();
  store.cleanup();
  await redis.quit();
});

const get = (path: string) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

async function listed(query: string): Promise<number[]> {
  const body = (await (await get(`/api/reviews${query}`)).json()) as { reviews: Array<{ id: number }> };
  return body.reviews.map((r) => r.id).sort((a, b) => a - b);
}

describe('the topic filter', () => {
  it('lists only the reviews with the topic, with the other filters', async () => {
    expect(await listed('?topic=billing')).toEqual([ids.billing, ids.both]);
    expect(await listed('?topic=billing&stars=1,2,3,4,5')).toEqual([ids.billing, ids.both, ids.happy]);
    expect(await listed('?topic=bugs&stars=2')).toEqual([ids.both]);
    expect(await listed('?topic=data-loss')).toEqual([]);
    // The start of another topic's name is not that topic.
    expect(await listed('?topic=bill')).toEqual([]);
  });

  it('refuses a name that cannot be a topic, saying what one looks like', async () => {
    const res = await get('/api/reviews?topic=Bad%20Name');
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toMatch(/topic name such as billing/);
  });

  it('is in the page: chips linking to it, a Topic select, the list narrowed', async () => {
    const page = await (await get('/?view=all&topic=bugs')).text();
    expect(page).toMatch(/<select name="topic">.*<option value="bugs" selected>bugs<\/option>/s);
    const rows = [...page.matchAll(/data-review-id="(\d+)"/g)].map((m) => Number(m[1])).sort((a, b) => a - b);
    expect(rows).toEqual([ids.both, ids.bugs].sort((a, b) => (a ?? 0) - (b ?? 0)));
    const both = page.slice(page.indexOf(`data-review-id="${ids.both}"`));
    const row = both.slice(0, both.indexOf('</tr>'));
    expect(row).toMatch(
      /<a class="topic-chip" href="[^"]*topic=billing[^"]*"[^>]*><span class="chip-kind">topic<\/span> billing<\/a>/,
    );
    expect(row).toMatch(/class="topic-chip"[^>]*title="Topic, from the words: [^"]*crashes/);
  });
});

describe('topics going out', () => {
  it('every review of /api/reviews and /api/reviews/:id carries its topics with their words', async () => {
    const body = (await (await get('/api/reviews?view=all&stars=1,2,3,4,5&period=all')).json()) as {
      reviews: Array<{ id: number; topics: Array<{ name: string; words: string[] }> }>;
    };
    expect(body.reviews).toHaveLength(5);
    for (const review of body.reviews) expect(Array.isArray(review.topics)).toBe(true);
    const both = body.reviews.find((r) => r.id === ids.both);
    expect(both?.topics.map((t) => t.name).sort()).toEqual(['billing', 'bugs']);
    expect(body.reviews.find((r) => r.id === ids.none)?.topics).toEqual([]);
    const detail = (await (await get(`/api/reviews/${ids.billing}`)).json()) as {
      topics: Array<{ name: string; words: string[] }>;
    };
    expect(detail.topics).toEqual([{ name: 'billing', words: expect.arrayContaining(['charged me twice']) }]);
  });

  it('the CSV has a topics column: each topic with its words', async () => {
    const text = await (await get('/export.csv?view=all&topic=billing')).text();
    const [header, ...lines] = text
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    const columns = header?.split(',') ?? [];
    expect(columns).toContain('topics');
    expect(lines).toHaveLength(2);
    const both = lines.find((l) => l.startsWith(`${ids.both},`));
    expect(both).toMatch(/billing: [^;]*charged twice[^;]*; bugs: crashes/i);
  });
});
