import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator, type WireReview } from '../../src/simulator/index.js';
import { API, control, get, ids } from './helpers.js';

describe('/__sim control routes', () => {
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({ appCount: 2, apiKey: 'sekret', handles: ['acme-inventory'] });
  });
  afterAll(() => sim.close());
  beforeEach(async () => {
    expect((await control(sim, 'POST', '/reset')).status).toBe(200);
  });

  it('lists handles and adds apps without an API key', async () => {
    expect((await control(sim, 'GET', '/handles')).json).toEqual({
      handles: ['app-00001', 'app-00002', 'acme-inventory'],
    });
    const added = await control(sim, 'POST', '/apps', {
      handle: 'bolt-reviews',
      reviewCount: 0,
      title: 'Bolt',
    });
    expect(added).toEqual({ status: 201, json: { handle: 'bolt-reviews' } });
    const page = await get(sim, `${API}/app/bolt-reviews/reviews`, 'sekret');
    expect(page.json.data.reviews).toEqual([]);
    expect((await control(sim, 'POST', '/apps', { handle: 'bolt-reviews' })).status).toBe(409);
    expect((await control(sim, 'POST', '/apps', { handle: 'Bad Handle' })).status).toBe(400);
  });

  it('adds, edits, archives and restores reviews', async () => {
    const created = await control<{ reviews: WireReview[] }>(sim, 'POST', '/apps/acme-inventory/reviews', [
      { rating: 1, review_content: 'refund please' },
    ]);
    expect(created.status).toBe(201);
    const review = created.json.reviews[0] as WireReview;
    expect(review).toMatchObject({
      rating: 1,
      review_content: 'refund please',
      review_id: expect.any(String),
    });
    expect(
      (await control(sim, 'POST', '/apps/acme-inventory/reviews', { count: 2 })).json.reviews,
    ).toHaveLength(2);
    expect((await control(sim, 'POST', '/apps/acme-inventory/reviews', 1)).json.reviews).toHaveLength(1);

    const listed = await control<{ reviews: WireReview[] }>(sim, 'GET', '/apps/acme-inventory/reviews');
    expect(ids(listed.json.reviews)).toEqual(ids(sim.controls.reviews('acme-inventory')));
    expect(ids(listed.json.reviews)[3]).toBe(review.review_id);

    const edited = await control(sim, 'PATCH', `/apps/acme-inventory/reviews/${review.review_id}`, {
      rating: 2,
      content: 'still waiting',
    });
    expect(edited.json.review).toMatchObject({
      review_id: review.review_id,
      rating: 2,
      review_content: 'still waiting',
    });
    expect(sim.controls.reviews('acme-inventory')[0]?.review_id).toBe(review.review_id);

    await control(sim, 'POST', `/apps/acme-inventory/reviews/${review.review_id}/archive`);
    expect(ids(sim.controls.reviews('acme-inventory'))).not.toContain(review.review_id);
    await control(sim, 'POST', `/apps/acme-inventory/reviews/${review.review_id}/restore`);
    expect(ids(sim.controls.reviews('acme-inventory'))).toContain(review.review_id);

    expect((await control(sim, 'PATCH', '/apps/acme-inventory/reviews/0', { rating: 2 })).status).toBe(404);
    expect(
      (await control(sim, 'PATCH', `/apps/acme-inventory/reviews/${review.review_id}`, { rating: 9 })).status,
    ).toBe(400);
    expect((await control(sim, 'POST', '/apps/unknown/reviews', 1)).status).toBe(404);
    expect((await control(sim, 'POST', '/apps/acme-inventory/reviews', 'lots')).status).toBe(400);
  });

  it('sets the summary, delists and relists', async () => {
    await control(sim, 'PUT', '/apps/acme-inventory/summary', [{ label: '5', count: null }]);
    const page = await get(sim, `${API}/app/acme-inventory/reviews`, 'sekret');
    expect(page.json.data.summary).toEqual([{ label: '5', count: null }]);
    await control(sim, 'PUT', '/apps/acme-inventory/summary', null);
    expect((await get(sim, `${API}/app/acme-inventory/reviews`, 'sekret')).json.data.summary).toHaveLength(5);

    await control(sim, 'POST', '/apps/acme-inventory/delist');
    expect((await get(sim, `${API}/app/acme-inventory`, 'sekret')).status).toBe(404);
    await control(sim, 'POST', '/apps/acme-inventory/relist');
    expect((await get(sim, `${API}/app/acme-inventory`, 'sekret')).status).toBe(200);
  });

  it('queues failures and malformations, sets latency and quirks, and reports stats', async () => {
    await control(sim, 'POST', '/fail', {
      count: 1,
      status: 429,
      retryAfterSec: 7,
      pathIncludes: '/reviews',
    });
    await control(sim, 'POST', '/malform', { kind: 'no-envelope' });
    const limited = await get(sim, `${API}/app/app-00001/reviews`, 'sekret');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect((await get(sim, `${API}/app/app-00001`, 'sekret')).json).toEqual({ foo: 1 });

    expect((await control(sim, 'POST', '/latency', { ms: 5 })).json).toEqual({ ms: 5 });
    expect((await control(sim, 'POST', '/quirks', { emptyIds: true })).json.quirks.emptyIds).toBe(true);
    expect((await control(sim, 'GET', '/quirks')).json.quirks.emptyIds).toBe(true);
    const page = await reviewsPageWithKey(sim);
    expect(page.every((r) => r.review_id === '')).toBe(true);

    const stats = await control(sim, 'GET', '/stats');
    expect(stats.json).toEqual({
      requests: 3,
      byStatus: { '200': 2, '429': 1 },
      byEndpoint: { reviews: 2, app: 1 },
    });
    await control(sim, 'POST', '/stats/reset');
    expect((await control(sim, 'GET', '/stats')).json.requests).toBe(0);
  });

  it('answers bad input with 400, unknown controls with 404 and wrong methods with 405', async () => {
    expect((await control(sim, 'POST', '/fail', { status: 'teapot' })).status).toBe(400);
    expect((await control(sim, 'POST', '/malform', { kind: 'weird' })).status).toBe(400);
    expect((await control(sim, 'POST', '/latency', { ms: -1 })).status).toBe(400);
    expect((await control(sim, 'POST', '/quirks', { bogus: true })).json.message).toMatch(/unknown quirk/);
    const notJson = await fetch(`${sim.url}/__sim/quirks`, { method: 'POST', body: '{nope' });
    expect(notJson.status).toBe(400);
    expect((await control(sim, 'GET', '/nothing-here')).status).toBe(404);
    expect((await control(sim, 'DELETE', '/handles')).status).toBe(405);
    expect(sim.controls.stats().requests).toBe(0);
  });

  it('reset brings back the initial state', async () => {
    const before = ids(sim.controls.reviews('app-00001'));
    sim.controls.addReviews('app-00001', 3);
    sim.controls.addApp('temp-app');
    await control(sim, 'POST', '/reset');
    expect(ids(sim.controls.reviews('app-00001'))).toEqual(before);
    expect(sim.controls.handles()).not.toContain('temp-app');
    const again = sim.controls.addReviews('app-00001', 1);
    sim.controls.reset();
    expect(sim.controls.addReviews('app-00001', 1)).toEqual(again);
  });
});

async function reviewsPageWithKey(sim: Simulator): Promise<WireReview[]> {
  const res = await get(sim, `${API}/app/app-00001/reviews?sortBy=newest`, 'sekret');
  return res.json.data.reviews;
}
