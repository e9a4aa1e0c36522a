import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { API, get, reviewsPage } from './helpers.js';

describe('quirks', () => {
  let sim: Simulator;
  let devHandle: string;

  beforeAll(async () => {
    sim = await startSimulator({ appCount: 3 });
  });
  afterAll(() => sim.close());
  beforeEach(async () => {
    sim.controls.reset();
    sim.controls.addApp('q-app', { reviewCount: 30 });
    const app = await get(sim, `${API}/app/q-app`);
    devHandle = String(app.json.data.developer.url).split('/').pop() as string;
  });

  it('are all off by default', async () => {
    expect(Object.values(sim.controls.quirks()).every((v) => v === false)).toBe(true);
    const { data } = await reviewsPage(sim, 'q-app');
    expect(data.reviews.every((r) => r.review_id !== '' && r.review_created_date !== 'Invalid Date')).toBe(
      true,
    );
  });

  it('emptyIds blanks review_id on the wire but keeps the stored ids', async () => {
    sim.controls.setQuirks({ emptyIds: true });
    const { data } = await reviewsPage(sim, 'q-app');
    expect(data.reviews.map((r) => r.review_id)).toEqual(Array(10).fill(''));
    expect(sim.controls.reviews('q-app').every((r) => /^\d+$/.test(r.review_id))).toBe(true);
  });

  it('invalidDates turns some dates (ids divisible by 7) into "Invalid Date"', async () => {
    sim.controls.setQuirks({ invalidDates: true });
    const { data } = await reviewsPage(sim, 'q-app');
    const bad = data.reviews.filter((r) => r.review_created_date === 'Invalid Date');
    expect(bad.length).toBeGreaterThan(0);
    expect(bad.length).toBeLessThan(data.reviews.length);
    for (const r of bad) expect(Number(r.review_id) % 7).toBe(0);
  });

  it('nullCounts nulls the 4 and 5 star counts; starLabels relabels the summary', async () => {
    sim.controls.setQuirks({ nullCounts: true });
    let { data } = await reviewsPage(sim, 'q-app');
    expect(data.summary.map((s) => s.count === null)).toEqual([true, true, false, false, false]);
    sim.controls.setQuirks({ nullCounts: false, starLabels: true });
    ({ data } = await reviewsPage(sim, 'q-app'));
    expect(data.summary.map((s) => s.label)).toEqual(['5 stars', '4 stars', '3 stars', '2 stars', '1 star']);
  });

  it('reducedShapes drops developer.website and reduces the developer detail to name and apps', async () => {
    expect((await get(sim, `${API}/app/q-app`)).json.data.developer.website).toEqual(expect.any(String));
    const full = await get(sim, `${API}/developer/${devHandle}`);
    expect(Object.keys(full.json.data).sort()).toEqual(
      ['appCount', 'apps', 'description', 'location', 'name', 'socialLinks', 'url', 'website'].sort(),
    );
    sim.controls.setQuirks({ reducedShapes: true });
    const app = await get(sim, `${API}/app/q-app`);
    expect(app.json.data.developer).not.toHaveProperty('website');
    expect(app.json.data.developer).toHaveProperty('name');
    const reduced = await get(sim, `${API}/developer/${devHandle}`);
    expect(Object.keys(reduced.json.data).sort()).toEqual(['apps', 'name']);
  });

  it('extraFields adds unknown fields to the envelope and data objects', async () => {
    sim.controls.setQuirks({ extraFields: true });
    const res = await get(sim, `${API}/app/q-app/reviews?sortBy=newest`);
    expect(res.json).toHaveProperty('meta');
    expect(res.json.data.reviews[0]).toHaveProperty('helpful_count');
    expect(res.json.data.summary[0]).toHaveProperty('percentage');
    expect(res.json.data.pagination).toHaveProperty('perPage');
    expect((await get(sim, `${API}/app/q-app`)).json.data).toHaveProperty('badges');
    expect((await get(sim, `${API}/apps`)).json).toHaveProperty('meta');
  });

  it('missingOptional omits reviewer_location and reviewer_latest_used_date on some reviews', async () => {
    sim.controls.setQuirks({ missingOptional: true });
    const { data } = await reviewsPage(sim, 'q-app');
    const missing = data.reviews.filter((r) => !('reviewer_location' in r));
    expect(missing.length).toBeGreaterThan(0);
    expect(missing.length).toBeLessThan(data.reviews.length);
    for (const r of missing) expect(r).not.toHaveProperty('reviewer_latest_used_date');
  });

  it('rejects unknown quirks and non-boolean values; reset() turns them off', async () => {
    expect(() => sim.controls.setQuirks({ nope: true } as never)).toThrow(/unknown quirk/);
    expect(() => sim.controls.setQuirks({ emptyIds: 'yes' } as never)).toThrow(/true or false/);
    sim.controls.setQuirks({ emptyIds: true, starLabels: true });
    sim.controls.reset();
    sim.controls.addApp('q-app', { reviewCount: 30 });
    const { data } = await reviewsPage(sim, 'q-app');
    expect(data.reviews[0]?.review_id).not.toBe('');
    expect(data.summary[0]?.label).toBe('5');
  });
});
