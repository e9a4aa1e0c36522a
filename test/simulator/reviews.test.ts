import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { API, get, ids, reviewsPage } from './helpers.js';

const ISO_MIDNIGHT = /^\d{4}-\d{2}-\d{2}T00:00:00\+00:00$/;

describe('reviews endpoint', () => {
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({ appCount: 5, port: 0 });
  });
  afterAll(() => sim.close());
  beforeEach(() => {
    sim.controls.reset();
    sim.controls.addApp('big-app', { reviewCount: 35, title: 'Big App' });
    sim.controls.addApp('empty-app', { reviewCount: 0 });
  });

  it('pages newest first, 10 a page, and answers a page past the last with an empty page', async () => {
    const all = sim.controls.reviews('big-app');
    expect(all).toHaveLength(35);
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const { data } = await reviewsPage(sim, 'big-app', `sortBy=newest&page=${page}`);
      expect(data.pagination).toEqual({ hasNextPage: page < 4, totalPages: 4, currentPage: page });
      expect(data.reviews).toHaveLength(page < 4 ? 10 : 5);
      seen.push(...ids(data.reviews));
    }
    expect(seen).toEqual(ids(all));
    expect(new Set(seen).size).toBe(35);
    const dates = all.map((r) => Date.parse(r.review_created_date));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));

    const past = await reviewsPage(sim, 'big-app', 'sortBy=newest&page=9');
    expect(past.data.reviews).toEqual([]);
    expect(past.data.pagination).toEqual({ hasNextPage: false, totalPages: 4, currentPage: 9 });
  });

  it('page defaults to 1 and a bad page is a 400', async () => {
    const first = await reviewsPage(sim, 'big-app', 'sortBy=newest');
    expect(first.data.pagination.currentPage).toBe(1);
    for (const bad of ['0', '-1', 'two', '1.5', '']) {
      const res = await get(sim, `${API}/app/big-app/reviews?sortBy=newest&page=${bad}`);
      expect(res.status, `page=${bad}`).toBe(400);
      expect(res.json).toMatchObject({ error: 'Bad Request', message: expect.stringContaining('page') });
    }
  });

  it('returns well-formed reviews with the spec fields', async () => {
    const { data } = await reviewsPage(sim, 'big-app');
    for (const r of data.reviews) {
      expect(Object.keys(r)).toEqual([
        'app_url',
        'app_name',
        'reviewer',
        'review_created_date',
        'reviewer_location',
        'rating',
        'reviewer_latest_used_date',
        'review_content',
        'review_id',
      ]);
      expect(r.app_url).toBe('https://apps.platform.example/big-app');
      expect(r.app_name).toBe('Big App');
      expect(r.review_created_date).toMatch(ISO_MIDNIGHT);
      expect(Number.isInteger(r.rating) && r.rating >= 1 && r.rating <= 5).toBe(true);
      expect(r.review_id).toMatch(/^\d+$/);
      expect(r.reviewer_latest_used_date).toMatch(/^$|using the app$/);
    }
    expect(data.summary.map((s) => s.label)).toEqual(['5', '4', '3', '2', '1']);
    expect(data.summary.reduce((n, s) => n + (s.count ?? 0), 0)).toBe(35);
  });

  it('counts the time using the app in good English: "1 month", never "1 months"', async () => {
    const used: string[] = [];
    for (let page = 1; page <= 4; page++) {
      const { data } = await reviewsPage(sim, 'big-app', `sortBy=newest&page=${page}`);
      used.push(...data.reviews.map((r) => r.reviewer_latest_used_date));
    }
    expect(used.filter(Boolean).length).toBeGreaterThan(20);
    expect(used.filter((u) => /\b1 (hour|day|week|month|year)s\b/.test(u))).toEqual([]);
  });

  it('serves an app with no reviews as one empty page', async () => {
    const { data } = await reviewsPage(sim, 'empty-app');
    expect(data.reviews).toEqual([]);
    expect(data.pagination).toEqual({ hasNextPage: false, totalPages: 1, currentPage: 1 });
    expect(data.summary.every((s) => s.count === 0)).toBe(true);
    const app = await get(sim, `${API}/app/empty-app`);
    expect(app.json.data).toMatchObject({ rating: '0.0', reviewCount: 0 });
  });

  it('uses a non-chronological order by default and for sortBy=relevance', async () => {
    const newest = await reviewsPage(sim, 'big-app', 'sortBy=newest');
    const byDefault = await reviewsPage(sim, 'big-app', '');
    const relevance = await reviewsPage(sim, 'big-app', 'sortBy=relevance');
    expect(ids(byDefault.data.reviews)).not.toEqual(ids(newest.data.reviews));
    expect(ids(relevance.data.reviews)).toEqual(ids(byDefault.data.reviews));
    expect(byDefault.data.pagination.totalPages).toBe(4);
    const bad = await get(sim, `${API}/app/big-app/reviews?sortBy=oldest`);
    expect(bad.status).toBe(400);
  });

  it('addReviews puts new reviews on top, with fresh ids, dated today, and shifts later pages', async () => {
    const before1 = await reviewsPage(sim, 'big-app', 'sortBy=newest&page=1');
    const created = sim.controls.addReviews('big-app', [
      { rating: 1, review_content: 'Charged me twice!' },
      { reviewer: 'Second Shop' },
      {},
    ]);
    expect(created).toHaveLength(3);
    expect(created[0]).toMatchObject({ rating: 1, review_content: 'Charged me twice!' });
    expect(created[1]?.reviewer).toBe('Second Shop');
    const today = new Date().toISOString().slice(0, 10);
    for (const r of created) expect(r.review_created_date).toBe(`${today}T00:00:00+00:00`);
    const allIds = sim.controls.handles().flatMap((h) => ids(sim.controls.reviews(h)));
    expect(new Set(allIds).size).toBe(allIds.length);

    const after1 = await reviewsPage(sim, 'big-app', 'sortBy=newest&page=1');
    const after2 = await reviewsPage(sim, 'big-app', 'sortBy=newest&page=2');
    expect(ids(after1.data.reviews).slice(0, 3)).toEqual(ids(created));
    expect(ids(after1.data.reviews).slice(3)).toEqual(ids(before1.data.reviews).slice(0, 7));
    expect(ids(after2.data.reviews).slice(0, 3)).toEqual(ids(before1.data.reviews).slice(7));
    expect(after1.data.pagination.totalPages).toBe(4);
    expect(after1.data.summary.find((s) => s.label === '1')?.count).toBeGreaterThanOrEqual(1);

    const more = sim.controls.addReviews('big-app', 5);
    expect(more).toHaveLength(5);
    expect((await reviewsPage(sim, 'big-app', 'sortBy=newest&page=4')).data.pagination).toMatchObject({
      totalPages: 5,
      hasNextPage: true,
    });
    expect(() => sim.controls.addReviews('no-such-app', 1)).toThrow(/no app/);
    expect(() => sim.controls.addReviews('big-app', [{ rating: 7 }])).toThrow(/rating/);
  });

  it('editReview changes the review, keeps its id, and moves it to the top', async () => {
    const old = sim.controls.reviews('big-app')[20];
    if (old === undefined) throw new Error('fixture');
    const edited = sim.controls.editReview('big-app', old.review_id, {
      rating: 2,
      content: 'Now it crashes.',
    });
    expect(edited).toMatchObject({ review_id: old.review_id, rating: 2, review_content: 'Now it crashes.' });
    const { data } = await reviewsPage(sim, 'big-app');
    expect(data.reviews[0]).toEqual(edited);
    expect(data.reviews.filter((r) => r.review_id === old.review_id)).toHaveLength(1);
    const total = data.summary.reduce((n, s) => n + (s.count ?? 0), 0);
    expect(total).toBe(35);
    expect(() => sim.controls.editReview('big-app', 'nope', { rating: 3 })).toThrow(/no review/);
  });

  it('archive hides a review from pages and summary, restore puts it back in place', async () => {
    const before = sim.controls.reviews('big-app');
    const target = before[3];
    if (target === undefined) throw new Error('fixture');
    const starsBefore = (await reviewsPage(sim, 'big-app')).data.summary;

    sim.controls.archiveReview('big-app', target.review_id);
    const hidden = await reviewsPage(sim, 'big-app');
    expect(ids(hidden.data.reviews)).not.toContain(target.review_id);
    expect(ids(hidden.data.reviews)[3]).toBe(before[4]?.review_id);
    const label = String(target.rating);
    const count = (s: typeof starsBefore) => s.find((e) => e.label === label)?.count;
    expect(count(hidden.data.summary)).toBe((count(starsBefore) ?? 0) - 1);
    const app = await get(sim, `${API}/app/big-app`);
    expect(app.json.data.reviewCount).toBe(34);

    sim.controls.restoreReview('big-app', target.review_id);
    expect(ids(sim.controls.reviews('big-app'))).toEqual(ids(before));
    expect((await reviewsPage(sim, 'big-app')).data.summary).toEqual(starsBefore);
  });

  it('setSummary overrides the distribution until cleared', async () => {
    sim.controls.setSummary('big-app', [
      { label: '5', count: 1200 },
      { label: '1', count: null },
    ]);
    expect((await reviewsPage(sim, 'big-app')).data.summary).toEqual([
      { label: '5', count: 1200 },
      { label: '1', count: null },
    ]);
    sim.controls.setSummary('big-app', null);
    expect((await reviewsPage(sim, 'big-app')).data.summary).toHaveLength(5);
  });

  it('app detail rating is the average of the visible reviews, as a one-decimal string', async () => {
    const reviews = sim.controls.reviews('big-app');
    const avg = reviews.reduce((n, r) => n + r.rating, 0) / reviews.length;
    const app = await get(sim, `${API}/app/big-app`);
    expect(app.json.data.rating).toBe(avg.toFixed(1));
    expect(app.json.data.reviewCount).toBe(35);
  });
});
