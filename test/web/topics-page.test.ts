/**
 * `/topics` and `/api/topics`: each app's topics over the period with the trend the rule allows, own
 * apps against competitors, each linking to the reviews behind it; and the header's link to it.
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
const DAY = 86_400_000;
const BILLING = 'I want a refund for this.';
const PLAIN = 'Nice app overall.';

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
  store = tempStore();
  const seed = new ReviewSeeder(store);
  const now = Date.now();
  store.db.$client.transaction(() => {
    // Eight weeks before: one review in ten about billing. This week: six in ten.
    for (let week = 1; week <= 8; week++) {
      for (let i = 0; i < 10; i++) {
        const createdAt = now - week * 7 * DAY - DAY - i * 3_600_000;
        seed.review({ app: 'shop', rating: 2, content: i === 0 ? BILLING : PLAIN, createdAt });
      }
    }
    for (let i = 0; i < 10; i++) {
      const createdAt = now - DAY - i * 3_600_000;
      // Three more low ones, by three reviewers, about what no topic names: an emerging phrase.
      const shop = i < 6 ? BILLING : i < 9 ? 'The dark mode looks odd now.' : PLAIN;
      seed.review({ app: 'shop', rating: i < 6 ? 1 : i < 9 ? 2 : 4, content: shop, createdAt });
      seed.review({ app: 'rival', rating: 2, content: i < 2 ? BILLING : PLAIN, createdAt });
    }
  })();
  server = await startWebServer({ store, redis });
});
afterAll(async () => {
  await server.server.close();
  store.cleanup();
  await redis.quit();
});

const get = (path: string) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

interface TopicsJson {
  apps: Array<{
    app: string;
    role: string;
    reviews: number;
    topics: Array<{
      topic: string;
      reviews: number;
      share: number;
      averageStars: number;
      trend: string;
      trendText: string | null;
    }>;
  }>;
  comparisons: Array<{ topic: string; text: string }>;
}

describe('/api/topics', () => {
  it("gives each app's topics this period, with a trend only where the rule finds one", async () => {
    const body = (await (await get('/api/topics')).json()) as TopicsJson;
    const shop = body.apps.find((a) => a.app === 'shop');
    expect(shop).toMatchObject({ role: 'own', reviews: 10 });
    expect(shop?.topics).toEqual([
      expect.objectContaining({ topic: 'billing', reviews: 6, share: 0.6, averageStars: 1, trend: 'up' }),
    ]);
    expect(shop?.topics[0]?.trendText).toMatch(/^billing: up \d/);
    // Two in ten with no history: too few to call a trend.
    const rival = body.apps.find((a) => a.app === 'rival');
    expect(rival?.topics).toEqual([expect.objectContaining({ topic: 'billing', reviews: 2, trend: 'flat' })]);
    expect(body.comparisons.map((c) => c.text)).toEqual(["billing: 60% of your reviews, 20% of rival's"]);
  });

  it('narrows to one app and to a period since a date, and refuses what it cannot read', async () => {
    const since = new Date(Date.now() - 30 * DAY).toISOString();
    const body = (await (await get(`/api/topics?app=rival&since=${since}`)).json()) as TopicsJson;
    expect(body.apps.map((a) => a.app)).toEqual(['rival']);
    expect((await get('/api/topics?period=2y')).status).toBe(400);
  });
});

describe('/topics', () => {
  it('shows the trend arrow, the comparison, and links each figure to the reviews behind it', async () => {
    const res = await get('/topics');
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('<a class="nav" href="/topics">Topics</a>');
    expect(page).toMatch(/<span class="move up"[^>]*>▲ up \d+(\.\d)?x<\/span>/);
    expect(page).toContain('billing: 60% of your reviews, 20% of rival&#39;s');
    expect(page).toMatch(
      /href="\/\?view=all&amp;topic=billing&amp;stars=1,2,3,4,5&amp;period=7d&amp;app=shop"/,
    );
    // The rival's two: a dash, no arrow.
    const rival = page.slice(page.indexOf('id="app-rival"'));
    expect(rival).toContain('title="no change the trend rule would call one"');
    expect(rival).not.toContain('class="move');
  });

  it("a topic's link lists exactly the app's reviews with it in the period", async () => {
    const res = await get('/api/reviews?view=all&topic=billing&stars=1,2,3,4,5&period=7d&app=shop');
    const body = (await res.json()) as { reviews: Array<{ topics: Array<{ name: string }> }> };
    expect(body.reviews).toHaveLength(6);
    expect(body.reviews.every((r) => r.topics.some((t) => t.name === 'billing'))).toBe(true);
  });
});

describe("an app's page", () => {
  it('shows its topics per week, the phrases emerging in its low reviews with quotes, and its competitors', async () => {
    const res = await get('/apps/shop');
    expect(res.status).toBe(200);
    const page = await res.text();
    const topics = page.slice(page.indexOf('id="topics-h"'));
    expect(topics).toMatch(/Topics, last 8 weeks/);
    // This week's billing: its six reviews at 1 star (in one or two weeks' cells, as the Monday falls).
    expect(topics).toMatch(
      /<th scope="row"><a href="[^"]*topic=billing[^"]*app=shop[^"]*">billing<\/a><\/th>/,
    );
    expect(topics).toMatch(/\d+% <span class="muted small">\([1-6], 1\.0★\)<\/span>/);
    expect(topics).toMatch(
      /<strong>“dark mode[^”]*”<\/strong> <span class="muted small">3 reviews by 3 reviewers, new<\/span>/,
    );
    expect(topics).toMatch(/<a href="\/reviews\/\d+">“The dark mode looks odd now\.”<\/a>/);
    expect(topics).toContain('Against its competitors, last 30 days');
    expect(topics).toMatch(/billing: \d+% of your reviews, \d+% of rival&#39;s/);
  });
});
