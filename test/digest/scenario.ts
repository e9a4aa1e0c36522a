/**
 * The week of 16–22 November 2026 in Berlin (UTC+1), seeded into a real store. Berlin's Monday 00:00 is
 * 23:00 UTC on Sunday: reviews are placed on both sides of both week boundaries.
 */
import {
  type CollectInput,
  collectDigest,
  type DigestData,
  type DigestPeriod,
  previousWeek,
} from '../../src/digest/index.js';
import { DEFAULT_SCORING_RULES } from '../../src/scoring/index.js';
import type { StoreDb } from '../../src/store/db.js';
import { seedMarketHistory } from '../helpers/market.js';
import { reviewAlertPayload, Seed } from './seed.js';

export const TZ = 'Europe/Berlin';
/** Monday 23 November, 09:00 in Berlin: the digest reports on 16–22 November. */
export const NOW = new Date('2026-11-23T08:00:00Z');
export const WEEK: DigestPeriod = previousWeek(NOW, TZ);

export const SCRIPT = '<script>alert(1)</script>';
export const NASTY_CONTENT = 'Charged twice & no refund, <b>support</b> never answered. Uninstalling.';

export const APPS: CollectInput['apps'] = [
  { handle: 'my-app', name: 'My App', role: 'own' },
  { handle: 'rival', role: 'competitor' },
];

export function seedWeek(db: StoreDb): void {
  const seed = new Seed(db).app('my-app', 'My App listing title').app('rival', 'Rival & Co <Pro>');
  const u = (iso: string) => new Date(iso);

  // In the week: 5, 1, 4, 3 (undated, first seen in the week), 5 (baseline, Monday 00:30 Berlin).
  seed.review('my-app', {
    rating: 5,
    content: 'Great app, does everything we need and more',
    createdAt: u('2026-11-17T10:00:00Z'),
  });
  seed.review('my-app', {
    rating: 1,
    content: NASTY_CONTENT,
    reviewer: SCRIPT,
    timeUsingApp: 'Over 1 year using the app',
    createdAt: u('2026-11-18T10:00:00Z'),
  });
  // Sunday 22 November, 23:30 in Berlin: the last hour of the week.
  seed.review('my-app', { rating: 4, content: 'Sunday night review', createdAt: u('2026-11-22T22:30:00Z') });
  const undated = seed.review('my-app', {
    rating: 3,
    content: 'Undated but seen this week',
    createdAt: null,
    firstSeenAt: u('2026-11-19T12:00:00Z'),
  });
  seed.edit('my-app', undated, 5, 3, '2026-11-20T09:00:00Z');
  // Monday 16 November, 00:30 in Berlin; stored by the first (baseline) poll.
  seed.review('my-app', {
    rating: 5,
    content: 'Baseline review',
    createdAt: u('2026-11-15T23:30:00Z'),
    fromBaseline: true,
  });

  // Outside the week: Monday 23 November 00:30 Berlin; Sunday 15 November 23:30 Berlin; undated, seen later.
  seed.review('my-app', {
    rating: 2,
    content: 'Monday morning review',
    createdAt: u('2026-11-22T23:30:00Z'),
  });
  seed.review('my-app', { rating: 1, content: 'Previous week review', createdAt: u('2026-11-15T22:30:00Z') });
  seed.review('my-app', {
    rating: 2,
    content: 'Undated, seen next week',
    createdAt: null,
    firstSeenAt: u('2026-11-24T12:00:00Z'),
  });
  // Three weeks earlier (week of 26 October): for the trend.
  seed.review('my-app', { rating: 4, content: 'October review', createdAt: u('2026-10-28T12:00:00Z') });
  seed.review('my-app', { rating: 5, content: 'Another October one', createdAt: u('2026-10-29T12:00:00Z') });

  seed.review('rival', { rating: 3, content: 'Okay', createdAt: u('2026-11-19T10:00:00Z') });
  seed.review('rival', { rating: 5, content: 'Good', createdAt: u('2026-11-20T10:00:00Z') });

  seed
    // Four weeks before the end (Monday 26 October 00:00 Berlin = 25 October 23:00 UTC): 4.6.
    .snapshot('my-app', '2026-10-25T12:00:00Z', 4.6, 100)
    .snapshot('my-app', '2026-10-25T23:30:00Z', 4.55, 101)
    // The end of last week (Monday 16 November 00:00 Berlin = 15 November 23:00 UTC): 4.5.
    .snapshot('my-app', '2026-11-15T22:00:00Z', 4.5, 110)
    // Taken exactly at a week's end (Monday 00:00 Berlin): after it, as the end is exclusive.
    .snapshot('my-app', '2026-11-15T23:00:00Z', 4.47, 111)
    .snapshot('my-app', '2026-11-15T23:30:00Z', 4.48, 111)
    .snapshot('my-app', '2026-11-22T22:00:00Z', 4.4, 113)
    // A summary without an average is skipped, and one after the period's end does not count.
    .snapshot('my-app', '2026-11-22T22:30:00Z', null, null)
    .snapshot('my-app', '2026-11-22T23:00:00Z', 3.9, 114)
    .snapshot('my-app', '2026-11-22T23:30:00Z', 4.0, 114)
    .snapshot('rival', '2026-11-15T12:00:00Z', 4.1, 48)
    .snapshot('rival', '2026-11-22T12:00:00Z', 4.1, 50);

  seed
    .alert('my-app', reviewAlertPayload('my-app', SCRIPT, 1), '2026-11-18T10:05:00Z', [
      { channel: 'support', status: 'failed', lastError: 'Slack answered 404 no_service' },
      { channel: 'team-mail', status: 'sent' },
    ])
    .alert('my-app', reviewAlertPayload('my-app', 'Old Shop', 2), '2026-11-01T10:00:00Z', [
      { channel: 'team-mail', status: 'failed', lastError: '550 mailbox unavailable' },
    ])
    .alert('my-app', reviewAlertPayload('my-app', 'Later Shop', 1), '2026-11-23T07:00:00Z', [
      { channel: 'support', status: 'failed', lastError: 'raised after the week' },
    ]);
}

export function collect(db: StoreDb, period: DigestPeriod = WEEK, apps = APPS) {
  return collectDigest(db, { apps, period, maxRating: 3, scoring: DEFAULT_SCORING_RULES, now: NOW });
}

/**
 * The week's Market section from ten days of a category ending on 22 November (test/helpers/market.ts):
 * shop falls from #5 to #12 on the 20th, an entrant comes in on the 21st, a snapshot fails on the 17th,
 * and the competitor cuts a price on the 21st.
 */
export function collectMarketWeek(db: StoreDb, categories = ['store-design', 'finances']): DigestData {
  seedMarketHistory({ db } as Parameters<typeof seedMarketHistory>[0], NOW.getTime());
  return collectDigest(db, {
    apps: [
      { handle: 'shop', name: 'Shop', role: 'own' },
      { handle: 'rival', name: 'Rival & Co', role: 'competitor' },
    ],
    period: WEEK,
    maxRating: 3,
    scoring: DEFAULT_SCORING_RULES,
    now: NOW,
    categories,
  });
}
