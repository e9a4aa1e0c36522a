import { describe, expect, it } from 'vitest';
import { recordIncident } from '../../src/store/apps.js';
import { appArrivals } from '../../src/store/arrivals.js';
import type { Store } from '../../src/store/db.js';
import { storeReview } from '../helpers/reviews.js';
import { storesPerTest } from '../helpers/stores.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 5, 15, 12);
const TODAY = Math.floor(NOW / DAY) * DAY;

const store = storesPerTest();

interface Review {
  createdAt: number | null;
  firstSeenAt: number;
  rating?: number;
  fromBaseline?: boolean;
}

/** Writes an app, one poll run, and its reviews: what the poll would have stored. */
function seed(s: Store, handle: string, baselineAt: number | null, reviews: Review[]): void {
  const raw = s.db.$client;
  raw.prepare('insert into apps (handle, baseline_at) values (?, ?)').run(handle, baselineAt);
  const run = raw
    .prepare(
      `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
       values (?, ?, ?, 'ok', 1, 1, 0, 0) returning id`,
    )
    .get(handle, NOW - DAY, NOW - DAY) as { id: number };
  reviews.forEach((r, i) => {
    const id = `${handle}-${i}`;
    storeReview(s.db, {
      appHandle: handle,
      identity: id,
      fingerprint: id,
      reviewer: 'r',
      createdDate: '',
      createdAt: r.createdAt === null ? null : new Date(r.createdAt),
      firstSeenAt: new Date(r.firstSeenAt),
      rating: r.rating ?? 5,
      fromBaseline: r.fromBaseline ?? false,
      pollRunId: run.id,
    });
  });
}

describe('appArrivals', () => {
  it('reads each app’s newest review dates by the day, and its history’s start', () => {
    const s = store();
    const seen = NOW - 2 * HOUR;
    seed(s, 'busy', NOW - 90 * DAY, [
      { createdAt: TODAY, firstSeenAt: seen },
      { createdAt: TODAY, firstSeenAt: seen, rating: 2 },
      { createdAt: TODAY - DAY, firstSeenAt: NOW - DAY },
      { createdAt: TODAY - DAY, firstSeenAt: NOW - DAY },
      { createdAt: TODAY - DAY, firstSeenAt: NOW - DAY },
      { createdAt: TODAY - 2 * DAY, firstSeenAt: NOW - 2 * DAY },
      // Unparseable dates are not arrivals the model can place.
      { createdAt: null, firstSeenAt: NOW - DAY },
      // Older than the query's horizon: not read, but still the history's start.
      { createdAt: TODAY - 400 * DAY, firstSeenAt: NOW - 90 * DAY, fromBaseline: true },
    ]);
    seed(s, 'quiet', NOW - 30 * DAY, [
      // The newest low review came from a baseline, and the newest review is not low: neither counts.
      { createdAt: TODAY - 20 * DAY, firstSeenAt: NOW - 20 * DAY, rating: 1 },
      { createdAt: TODAY, firstSeenAt: NOW - HOUR, rating: 1, fromBaseline: true },
      { createdAt: TODAY, firstSeenAt: NOW - 30 * 60_000, rating: 4 },
      { createdAt: TODAY - 3 * DAY, firstSeenAt: NOW - 3 * DAY, rating: 3 },
    ]);
    const rows = appArrivals(s.db, ['quiet', 'never-polled', 'busy'], {
      since: NOW - 360 * DAY,
      limit: 5,
    });
    expect(rows.map((r) => r.handle)).toEqual(['quiet', 'never-polled', 'busy']);
    expect(rows[2]).toEqual({
      handle: 'busy',
      baselineAt: NOW - 90 * DAY,
      oldestCreatedAt: TODAY - 400 * DAY,
      // The newest five: two today, three yesterday; the older ones are left to the limit.
      days: [
        [TODAY, 2],
        [TODAY - DAY, 3],
      ],
      truncated: true,
      since: NOW - 360 * DAY,
      lastIncidentAt: null,
    });
    expect(rows[0]).toMatchObject({
      days: [
        [TODAY, 2],
        [TODAY - 3 * DAY, 1],
        [TODAY - 20 * DAY, 1],
      ],
      truncated: false,
    });
    expect(rows[1]).toEqual({
      handle: 'never-polled',
      baselineAt: null,
      oldestCreatedAt: null,
      days: [],
      truncated: false,
      since: NOW - 360 * DAY,
      lastIncidentAt: null,
    });
  });

  it('reads when a poll last found an incident, not when a routine low review came', () => {
    const s = store();
    seed(s, 'calm', NOW - 30 * DAY, [{ createdAt: TODAY - DAY, firstSeenAt: NOW - DAY, rating: 1 }]);
    seed(s, 'hit', NOW - 30 * DAY, [{ createdAt: TODAY, firstSeenAt: NOW - HOUR, rating: 1 }]);
    recordIncident(s.db, 'hit', NOW - HOUR);
    const rows = appArrivals(s.db, ['calm', 'hit'], { since: NOW - 360 * DAY, limit: 100 });
    expect(rows.map((r) => r.lastIncidentAt)).toEqual([null, NOW - HOUR]);
  });
});
