import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { planFromStore } from '../../src/schedule/index.js';
import type { Store } from '../../src/store/db.js';
import { storeReview } from '../helpers/reviews.js';
import { storesPerTest } from '../helpers/stores.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 5, 15, 12);
const TODAY = Math.floor(NOW / DAY) * DAY;

const store = storesPerTest();

/** An app with a baseline and reviews dated (and first seen) so many days ago, stored as a poll stores them. */
function seed(s: Store, handle: string, baselineAt: number, daysAgo: number[]): void {
  const raw = s.db.$client;
  raw.prepare('insert into apps (handle, baseline_at) values (?, ?)').run(handle, baselineAt);
  const run = raw
    .prepare(
      `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
       values (?, ?, ?, 'ok', 1, 1, 0, 0) returning id`,
    )
    .get(handle, baselineAt, baselineAt) as { id: number };
  daysAgo.forEach((ago, i) => {
    const id = `${handle}-${i}`;
    storeReview(s.db, {
      appHandle: handle,
      identity: id,
      fingerprint: id,
      reviewer: 'r',
      createdDate: '',
      createdAt: new Date(TODAY - ago * DAY),
      firstSeenAt: new Date(NOW - ago * DAY),
      pollRunId: run.id,
    });
  });
}

describe('planFromStore', () => {
  it('plans every watched app from the store: cold until polled, by its pace after', () => {
    const s = store();
    // Six reviews a day for ten days; one review in two months.
    seed(
      s,
      'busy-app',
      NOW - 60 * DAY,
      Array.from({ length: 60 }, (_, i) => Math.floor(i / 6)),
    );
    seed(s, 'quiet-app', NOW - 60 * DAY, [50]);
    const config = parseConfig(
      {
        poll: { schedule: 'budget' },
        catalog: { dailyRequestBudget: 500 },
        apps: [{ handle: 'busy-app' }, { handle: 'quiet-app' }, { handle: 'rival', role: 'competitor' }],
      },
      {},
    );
    const plan = planFromStore(s.db, config, { now: NOW });
    expect(plan.policy).toBe('budget');
    const [busyEntry, quietEntry, rival] = plan.entries;
    expect(rival).toMatchObject({
      handle: 'rival',
      reason: 'cold start',
      plannedMs: 15 * 60_000,
      weight: 0.0005,
    });
    expect(busyEntry?.ratePerDay).toBeGreaterThan(3);
    expect(quietEntry?.ratePerDay).toBeLessThan(0.2);
    expect(busyEntry?.plannedMs).toBeLessThan(quietEntry?.plannedMs as number);
    // Reserved: a daily reconciliation of 5 pages for each of 3 apps, and the rival's baseline of 20.
    expect(plan.projected.reserved).toBe(3 * 5 + 20);
    expect(plan.projected.total).toBeLessThanOrEqual(500);
  });
});
