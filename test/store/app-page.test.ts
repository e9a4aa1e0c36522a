import { afterEach, beforeEach, expect, it } from 'vitest';
import { appPage } from '../../src/store/app-page.js';
import { applyTriage } from '../../src/store/triage.js';
import { ReviewSeeder } from '../helpers/inbox.js';
import { tempStore } from '../helpers/index.js';

let store: ReturnType<typeof tempStore>;
let seed: ReviewSeeder;
const DAY = 86_400_000;
// A Wednesday.
const NOW = new Date('2026-11-25T12:00:00Z');

beforeEach(() => {
  store = tempStore();
  seed = new ReviewSeeder(store);
});
afterEach(() => store.cleanup());

function snapshot(at: number, average: number | null, stars: Array<number | null>) {
  store.db.$client
    .prepare(
      `insert into rating_snapshots (app_handle, taken_at, average, count, stars_1, stars_2, stars_3, stars_4,
       stars_5, poll_run_id) values ('shop', ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
    )
    .run(
      at,
      average,
      stars.every((s) => s !== null) ? stars.reduce((a, n) => (a ?? 0) + (n ?? 0), 0) : null,
      ...stars,
    );
}

it('gathers the rating by day, the distributions, the weekly volume, the open count and the alerts', () => {
  seed.review({ rating: 1, createdAt: NOW.getTime() - DAY });
  const resolved = seed.review({ rating: 2, createdAt: NOW.getTime() - 2 * DAY });
  seed.review({ rating: 5, createdAt: NOW.getTime() - 9 * DAY });
  seed.review({ rating: 4, createdAt: NOW.getTime() - 200 * DAY });
  seed.user('ana');
  applyTriage(store.db, resolved, { status: 'resolved' }, 'ana', NOW);
  const t = NOW.getTime();
  snapshot(t - 40 * DAY, 4.5, [1, 0, 0, 1, 8]);
  snapshot(t - 3 * DAY - 3_600_000, 4.4, [1, 1, 0, 1, 8]);
  snapshot(t - 3 * DAY, 4.3, [2, 1, 0, 1, 8]);
  snapshot(t - DAY, null, [null, null, null, null, null]);
  store.db.$client
    .prepare(
      `insert into alerts (app_handle, kind, dedupe_key, priority, payload, created_at)
       values ('shop', 'rating-drop', 'd1', 'high', '{}', ?), ('shop', 'incident', 'i1', 'critical', '{}', ?),
              ('shop', 'review', 'r1', 'low', '{}', ?)`,
    )
    .run(t - 3 * DAY, t - 2 * DAY, t - 2 * DAY);

  const page = appPage(store.db, 'shop', { now: NOW, days: 90, weeks: 3, compareWeeks: 4, maxRating: 3 });
  expect(page.known).toBe(true);
  // Two snapshots on one day: the later one; one without an average: none.
  expect(page.ratings.map((r) => [r.at.getTime(), r.average])).toEqual([
    [t - 40 * DAY, 4.5],
    [t - 3 * DAY, 4.3],
  ]);
  expect(page.distributionNow?.stars).toEqual([2, 1, 0, 1, 8]);
  expect(page.distributionBefore?.stars).toEqual([1, 0, 0, 1, 8]);
  expect(page.weeks.map((w) => [w.week.toISOString().slice(0, 10), w.stars])).toEqual([
    ['2026-11-09', [0, 0, 0, 0, 0]],
    ['2026-11-16', [0, 0, 0, 0, 1]],
    ['2026-11-23', [1, 1, 0, 0, 0]],
  ]);
  expect(page.open).toBe(1);
  expect(page.alerts.map((a) => [a.kind, a.priority])).toEqual([
    ['rating-drop', 'high'],
    ['incident', 'critical'],
  ]);
  expect(
    appPage(store.db, 'nothing', { now: NOW, days: 90, weeks: 3, compareWeeks: 4, maxRating: 3 }).known,
  ).toBe(false);
});
