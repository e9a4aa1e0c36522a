import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { getApp } from '../../src/store/apps.js';
import { openGaps } from '../../src/store/gaps.js';
import { reviewsOf } from '../../src/store/reviews.js';
import { waitFor } from '../helpers/index.js';
import { type Harness, startHarness } from '../helpers/runtime.js';

let sim: Simulator;
let harness: Harness;

beforeAll(async () => {
  sim = await startSimulator({ appCount: 0, handles: [] });
  sim.controls.addApp('busy-app', { reviewCount: 20 });
  harness = await startHarness(
    {
      catalog: { baseUrl: sim.url, apiKey: 'k', maxRequestsPerSecond: 100 },
      // Polls an hour apart: only the read-on poll can close the gap within the test.
      poll: { every: '1h', maxPages: 2, baselinePages: 2 },
      apps: [{ handle: 'busy-app', notify: [] }],
    },
    {},
    { mode: 'service' },
  );
});
afterAll(async () => {
  await harness?.close();
  await sim.close();
});

it('a long-running worker reads a burst gap on within seconds, not at the next scheduled poll', {
  timeout: 45_000,
}, async () => {
  const { store } = harness.worker;
  await waitFor(
    () => getApp(store.db, 'busy-app')?.baselineAt != null,
    15_000,
    () => 'no baseline',
  );
  sim.controls.addReviews('busy-app', 25);
  const [first] = await harness.poll(['busy-app']);
  expect(first?.gap).toMatchObject({ state: 'opened', unread: 5 });
  await waitFor(
    () => openGaps(store.db).length === 0,
    30_000,
    () => 'the gap is still open',
  );
  const stored = new Set(reviewsOf(store.db, 'busy-app').map((r) => r.reviewId));
  expect(sim.controls.reviews('busy-app').filter((r) => !stored.has(r.review_id))).toEqual([]);
  expect(harness.log.text()).toMatch(/busy-app: burst read to its end/);
});
