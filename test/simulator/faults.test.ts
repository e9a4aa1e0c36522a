import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { waitFor } from '../helpers/index.js';
import { API, get } from './helpers.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const REVIEWS = `${API}/app/app-00001/reviews?sortBy=newest`;

describe('API key and credits', () => {
  it('without a configured key accepts any non-empty key, and 401s a missing or empty one', async () => {
    sim = await startSimulator({ appCount: 2 });
    expect((await get(sim, REVIEWS, 'anything')).status).toBe(200);
    const missing = await get(sim, REVIEWS, null);
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({ error: 'Unauthorized', message: expect.stringContaining('x-api-key') });
    expect((await get(sim, REVIEWS, '')).status).toBe(401);
    expect(missing.headers.get('content-type')).toBe('application/json');
  });

  it('with a configured key: missing 401, wrong 403, right 200; the check comes before routing', async () => {
    sim = await startSimulator({ appCount: 2, apiKey: 'sekret' });
    expect((await get(sim, REVIEWS, null)).status).toBe(401);
    const wrong = await get(sim, REVIEWS, 'nope');
    expect(wrong.status).toBe(403);
    expect(wrong.json).toMatchObject({ error: 'Forbidden' });
    expect(wrong.text).not.toContain('sekret');
    expect((await get(sim, REVIEWS, 'sekret')).status).toBe(200);
    expect((await get(sim, `${API}/nowhere`, 'nope')).status).toBe(403);
    expect((await get(sim, `${API}/nowhere`, 'sekret')).status).toBe(404);
  });

  it('charges one credit per authenticated request and answers 402 when they run out', async () => {
    sim = await startSimulator({ appCount: 2, credits: 2 });
    expect((await get(sim, REVIEWS, null)).status).toBe(401);
    expect((await get(sim, REVIEWS)).status).toBe(200);
    expect((await get(sim, `${API}/apps`)).status).toBe(200);
    const broke = await get(sim, REVIEWS);
    expect(broke.status).toBe(402);
    expect(broke.json).toEqual({
      error: 'Payment Required',
      message: expect.stringContaining('out of credits'),
    });
    expect(sim.controls.credits()).toBe(0);
    sim.controls.setCredits(1);
    expect((await get(sim, REVIEWS)).status).toBe(200);
    expect((await get(sim, REVIEWS)).status).toBe(402);
    sim.controls.reset();
    expect(sim.controls.credits()).toBe(2);
  });
});

describe('routing', () => {
  it('404s unknown paths and handles, 405s other methods, and delist/relist toggles 404', async () => {
    sim = await startSimulator({ appCount: 3 });
    expect((await get(sim, '/v2/scrape/platform/apps')).status).toBe(404);
    expect((await get(sim, `${API}/app/app-00001/reviews/extra`)).status).toBe(404);
    const unknown = await get(sim, `${API}/app/no-such-app/reviews`);
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ error: 'Not Found', message: expect.stringContaining('no-such-app') });
    expect((await get(sim, `${API}/app/no-such-app`)).status).toBe(404);
    expect((await get(sim, `${API}/category/no-such-category`)).status).toBe(404);
    expect((await get(sim, `${API}/developer/no-such-dev`)).status).toBe(404);

    const post = await fetch(`${sim.url}${API}/apps`, { method: 'POST', headers: { 'x-api-key': 'k' } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');

    sim.controls.delist('app-00002');
    expect((await get(sim, `${API}/app/app-00002/reviews`)).status).toBe(404);
    expect((await get(sim, `${API}/app/app-00002`)).status).toBe(404);
    const list = await get(sim, `${API}/apps`);
    expect(list.json.data.apps.map((a: { handle: string }) => a.handle)).toEqual(['app-00001', 'app-00003']);
    expect(sim.controls.handles()).toContain('app-00002');
    sim.controls.relist('app-00002');
    expect((await get(sim, `${API}/app/app-00002/reviews`)).status).toBe(200);
    expect((await get(sim, `${API}/apps`)).json.data.total).toBe(3);
  });
});

describe('failNext', () => {
  it('fails the next N requests with the status, Retry-After and an error body, then recovers', async () => {
    sim = await startSimulator({ appCount: 2 });
    sim.controls.failNext(2, { status: 429, retryAfterSec: 3 });
    for (let i = 0; i < 2; i++) {
      const res = await get(sim, REVIEWS);
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('3');
      expect(res.json).toEqual({ error: 'Too Many Requests', message: expect.any(String) });
    }
    expect((await get(sim, REVIEWS)).status).toBe(200);
  });

  it('honours pathIncludes, custom bodies, and queues rules in order', async () => {
    sim = await startSimulator({ appCount: 2 });
    sim.controls.failNext(1, { status: 503, pathIncludes: 'page=2' });
    sim.controls.failNext(1, { status: 502, body: '<html>Bad gateway</html>' });
    sim.controls.failNext(1, { status: 500, body: { oops: true } });
    // The first rule only matches page 2, so this request takes the second one.
    const html = await get(sim, `${API}/apps`);
    expect(html.status).toBe(502);
    expect(html.text).toBe('<html>Bad gateway</html>');
    expect(html.headers.get('retry-after')).toBeNull();
    expect((await get(sim, `${REVIEWS}&page=2`)).status).toBe(503);
    const custom = await get(sim, REVIEWS);
    expect(custom.status).toBe(500);
    expect(custom.json).toEqual({ oops: true });
    expect((await get(sim, REVIEWS)).status).toBe(200);
    expect(() => sim?.controls.failNext(0, { status: 500 })).toThrow(/count/);
    expect(() => sim?.controls.failNext(1, { status: 99 })).toThrow(/status/);
  });

  it('comes after the key check, so an unauthenticated request does not use it up', async () => {
    sim = await startSimulator({ appCount: 2 });
    sim.controls.failNext(1, { status: 500 });
    expect((await get(sim, REVIEWS, null)).status).toBe(401);
    expect((await get(sim, REVIEWS)).status).toBe(500);
  });
});

describe('malformNext', () => {
  it("'bad-field' (default) keeps the envelope and breaks one field's type", async () => {
    sim = await startSimulator({ appCount: 2 });
    sim.controls.addApp('many', { reviewCount: 12 });
    sim.controls.malformNext(1);
    const res = await get(sim, `${API}/app/many/reviews?sortBy=newest`);
    expect(res.status).toBe(200);
    expect(res.json.success).toBe(true);
    expect(res.json.data.reviews[3].rating).toBe('five');
    expect(res.json.data.reviews[2].rating).toEqual(expect.any(Number));
    // The stored data is untouched.
    expect((await get(sim, `${API}/app/many/reviews?sortBy=newest`)).json.data.reviews[3].rating).toEqual(
      expect.any(Number),
    );

    sim.controls.malformNext(3, { kind: 'bad-field' });
    expect((await get(sim, `${API}/app/many`)).json.data.reviewCount).toBe('many');
    expect(typeof (await get(sim, `${API}/apps`)).json.data.total).toBe('string');
    expect(typeof (await get(sim, `${API}/category/finances`)).json.data.appCount).toBe('string');
  });

  it("'not-json' is a truncated body with status 200; 'no-envelope' is {foo:1}", async () => {
    sim = await startSimulator({ appCount: 2 });
    sim.controls.malformNext(1, { kind: 'not-json', pathIncludes: '/reviews' });
    sim.controls.malformNext(1, { kind: 'no-envelope' });
    const envelopeLess = await get(sim, `${API}/apps`);
    expect(envelopeLess.status).toBe(200);
    expect(envelopeLess.json).toEqual({ foo: 1 });
    const truncated = await get(sim, REVIEWS);
    expect(truncated.status).toBe(200);
    expect(truncated.json).toBeUndefined();
    expect(truncated.text.startsWith('{"success":true')).toBe(true);
    expect((await get(sim, REVIEWS)).json.success).toBe(true);
  });

  it('is not used up by error responses', async () => {
    sim = await startSimulator({ appCount: 2 });
    sim.controls.malformNext(1, { kind: 'no-envelope' });
    expect((await get(sim, `${API}/app/missing/reviews`)).status).toBe(404);
    expect((await get(sim, REVIEWS)).json).toEqual({ foo: 1 });
  });
});

describe('latency and stats', () => {
  it('delays API responses but not controls, and counts API requests by status and endpoint', async () => {
    // A latency far above what a local request takes on a loaded machine, so "not delayed" needs no luck.
    sim = await startSimulator({ appCount: 2, latencyMs: 600 });
    let t = performance.now();
    await get(sim, REVIEWS);
    expect(performance.now() - t).toBeGreaterThanOrEqual(590);
    sim.controls.setLatency(0);
    t = performance.now();
    await get(sim, REVIEWS);
    expect(performance.now() - t).toBeLessThan(590);

    await get(sim, `${API}/app/app-00001`);
    await get(sim, `${API}/app/none/reviews`);
    await get(sim, `${API}/nowhere`);
    await fetch(`${sim.url}/__sim/stats`);
    expect(sim.controls.stats()).toEqual({
      requests: 5,
      byStatus: { '200': 3, '404': 2 },
      byEndpoint: { reviews: 3, app: 1 },
    });
    sim.controls.resetStats();
    expect(sim.controls.stats().requests).toBe(0);
  });

  it('close() returns promptly with a delayed request in flight and keep-alive sockets open', async () => {
    const s = await startSimulator({ appCount: 1, latencyMs: 10_000 });
    // The server reads the latency when a request arrives: once it has, the request is in flight.
    const arrived = vi.spyOn(s.controls, 'latencyMs', 'get');
    const pending = fetch(`${s.url}${API}/apps`, { headers: { 'x-api-key': 'k' } }).catch((e: unknown) => e);
    await waitFor(
      () => arrived.mock.calls.length > 0,
      15_000,
      () => 'the request never reached the server',
    );
    const t = performance.now();
    await s.close();
    // Far below the 10 s the request would otherwise hold it open.
    expect(performance.now() - t).toBeLessThan(5_000);
    expect(await pending).toBeInstanceOf(Error);
  });
});
