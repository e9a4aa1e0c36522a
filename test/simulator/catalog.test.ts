import { afterEach, describe, expect, it, vi } from 'vitest';
import { CATEGORIES, type Simulator, startSimulator } from '../../src/simulator/index.js';
import { API, get, ids, reviewsPage } from './helpers.js';

const started: Simulator[] = [];
async function start(opts: Parameters<typeof startSimulator>[0] = {}): Promise<Simulator> {
  const sim = await startSimulator(opts);
  started.push(sim);
  return sim;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

describe('determinism', () => {
  it('gives identical data for the same seed and different data for another seed', async () => {
    const a = await start({ seed: 7, appCount: 20 });
    const b = await start({ seed: 7, appCount: 20 });
    const c = await start({ seed: 8, appCount: 20 });
    // Request other apps first on one of them: lazy generation must not depend on access order.
    await get(b, `${API}/app/app-00009/reviews`);
    const path = `${API}/app/app-00003/reviews?sortBy=newest`;
    const [pa, pb, pc] = await Promise.all([get(a, path), get(b, path), get(c, path)]);
    expect(pa.text).toBe(pb.text);
    expect(pa.text).not.toBe(pc.text);
    expect((await get(a, `${API}/app/app-00003`)).text).toBe((await get(b, `${API}/app/app-00003`)).text);
    expect((await get(a, `${API}/developers`)).text).toBe((await get(b, `${API}/developers`)).text);
  });

  it('skews ratings high with real low ones, has apps without reviews, and tricky reviewer names', async () => {
    const sim = await start({ appCount: 400 });
    let zero = 0;
    const stars = [0, 0, 0, 0, 0];
    const reviewers = new Set<string>();
    let emptyContent = 0;
    let total = 0;
    for (const h of sim.controls.handles()) {
      const reviews = sim.controls.reviews(h);
      if (reviews.length === 0) zero++;
      for (const r of reviews) {
        stars[r.rating - 1] = (stars[r.rating - 1] ?? 0) + 1;
        reviewers.add(r.reviewer);
        if (r.review_content === '') emptyContent++;
        total++;
      }
      expect(reviews.length).toBeLessThanOrEqual(120);
    }
    expect(zero).toBeGreaterThan(5);
    expect(zero).toBeLessThan(45);
    const [one = 0, two = 0, , four = 0, five = 0] = stars;
    expect(four + five).toBeGreaterThan(total * 0.6);
    expect(one + two).toBeGreaterThan(total * 0.05);
    expect(emptyContent).toBeGreaterThan(0);
    expect([...reviewers].some((r) => r.includes('<!channel>'))).toBe(true);
    expect([...reviewers].some((r) => r.includes('&'))).toBe(true);
    const ids = sim.controls.handles().flatMap((h) => sim.controls.reviews(h).map((r) => r.review_id));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('catalog endpoints', () => {
  it('pages a category 24 at a time with positions from 1 on each page', async () => {
    const sim = await start({ appCount: 300 });
    const list = await get(sim, `${API}/categories`);
    expect(list.json.data.total).toBe(CATEGORIES.length);
    expect(list.json.data.urls[0]).toEqual({
      url: expect.stringMatching(/^https:\/\//),
      handle: expect.any(String),
    });

    let members = 0;
    for (const { handle } of list.json.data.urls as Array<{ handle: string }>) {
      const first = await get(sim, `${API}/category/${handle}`);
      expect(first.status).toBe(200);
      members += first.json.data.appCount;
    }
    expect(members).toBe(300);

    const handle = CATEGORIES[0]?.handle as string;
    const p1 = (await get(sim, `${API}/category/${handle}`)).json.data;
    expect(p1).toMatchObject({ name: CATEGORIES[0]?.name, pageType: 'category' });
    const pages = p1.pagination.totalPages;
    expect(pages).toBe(Math.ceil(p1.appCount / 24));
    expect(p1.apps).toHaveLength(24);
    expect(p1.apps.map((a: { position: number }) => a.position)).toEqual(
      Array.from({ length: 24 }, (_, i) => i + 1),
    );
    const p2 = (await get(sim, `${API}/category/${handle}?page=2`)).json.data;
    expect(p2.apps[0].position).toBe(1);
    expect(p2.pagination).toEqual({ hasNextPage: pages > 2, totalPages: pages, currentPage: 2 });
    const entry = p1.apps[0];
    expect(entry).toEqual({
      name: expect.any(String),
      url: `https://apps.platform.example/${entry.handle}`,
      handle: expect.stringMatching(/^app-\d{5}$/),
      developer: expect.any(String),
      rating: expect.any(Number),
      isSponsored: expect.any(Boolean),
      isBuiltForPlatform: expect.any(Boolean),
      position: 1,
    });
    const past = (await get(sim, `${API}/category/${handle}?page=99`)).json.data;
    expect(past.apps).toEqual([]);
    expect(past.pagination.hasNextPage).toBe(false);
    expect((await get(sim, `${API}/category/${handle}?page=x`)).status).toBe(400);
  });

  it('app detail and developer detail agree with each other', async () => {
    const sim = await start({ appCount: 30, handles: ['acme-inventory'] });
    const app = (await get(sim, `${API}/app/acme-inventory`)).json.data;
    expect(app).toMatchObject({
      title: 'Acme Inventory',
      rating: expect.stringMatching(/^\d\.\d$/),
      reviewCount: sim.controls.reviews('acme-inventory').length,
      developer: {
        name: expect.any(String),
        address: expect.any(String),
        url: expect.any(String),
        website: expect.any(String),
      },
      categories: [{ name: expect.any(String), url: expect.any(String) }],
    });
    expect(Array.isArray(app.pricings)).toBe(true);
    const devHandle = String(app.developer.url).split('/').pop();
    const dev = (await get(sim, `${API}/developer/${devHandle}`)).json.data;
    expect(dev.name).toBe(app.developer.name);
    expect(dev.appCount).toBe(dev.apps.length);
    expect(dev.apps).toContainEqual({
      name: 'Acme Inventory',
      url: 'https://apps.platform.example/acme-inventory',
      category: app.categories[0].name,
      rating: Number(app.rating),
    });
    const devs = (await get(sim, `${API}/developers`)).json.data;
    expect(devs.urls).toContainEqual({ url: app.developer.url, handle: devHandle });
    expect(devs.total).toBe(devs.urls.length);
  });

  it('starts 10,000 apps fast and lists them all', async () => {
    const t = performance.now();
    const sim = await start({ appCount: 10_000, handles: ['acme-inventory'] });
    // Lazy: tens of ms even on a loaded machine. Generating every app's reviews up front takes 10 s or more.
    expect(performance.now() - t).toBeLessThan(5_000);
    const res = await get(sim, `${API}/apps`);
    expect(res.json.data.total).toBe(10_001);
    expect(res.json.data.apps).toHaveLength(10_001);
    expect(res.json.data.apps[0]).toEqual({
      url: 'https://apps.platform.example/app-00001',
      handle: 'app-00001',
    });
    expect(res.json.data.apps[9_999].handle).toBe('app-10000');
    sim.controls.addApp('late-app', { reviewCount: 2 });
    expect((await get(sim, `${API}/apps`)).json.data.total).toBe(10_002);
    const page = await reviewsPage(sim, 'app-07777');
    expect(page.data.pagination.totalPages).toBeGreaterThanOrEqual(1);
  });
});

describe('arrivals', () => {
  it('adds seeded reviews on a timer to the chosen apps, with the asked share of low ratings', async () => {
    const sim = await start({
      appCount: 3,
      handles: ['acme-inventory'],
      arrival: { everyMs: 5, lowShare: 1 },
    });
    const before = ids(sim.controls.reviews('acme-inventory'));
    const grown = () => sim.controls.reviews('acme-inventory').length >= before.length + 3;
    await vi.waitFor(() => expect(grown()).toBe(true), { timeout: 15_000, interval: 10 });
    const after = sim.controls.reviews('acme-inventory');
    const fresh = after.filter((r) => !before.includes(r.review_id));
    expect(fresh.every((r) => r.rating <= 2)).toBe(true);
    expect(ids(after).slice(0, fresh.length)).toEqual(ids(fresh));
    await sim.close();
    const count = sim.controls.reviews('acme-inventory').length;
    // Timers run in the order they fall due, so by the time ours has fired three times a 5 ms arrival
    // timer left running would have fired too, however late the event loop runs.
    let ticks = 0;
    const marker = setInterval(() => ticks++, 5);
    await vi.waitFor(() => expect(ticks).toBeGreaterThanOrEqual(3), { timeout: 15_000, interval: 5 });
    clearInterval(marker);
    expect(sim.controls.reviews('acme-inventory')).toHaveLength(count);
  });

  it('rejects arrival handles that are not apps', async () => {
    await expect(
      startSimulator({ appCount: 1, arrival: { everyMs: 10, handles: ['ghost'] } }),
    ).rejects.toThrow(/ghost/);
  });
});
