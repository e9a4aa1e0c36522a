import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectDigest, weekContaining } from '../../src/digest/index.js';
import { DEFAULT_SCORING_RULES } from '../../src/scoring/index.js';
import { tempStore } from '../helpers/index.js';
import { collect, NOW, SCRIPT, seedWeek, TZ } from './scenario.js';
import { Seed } from './seed.js';

let store: ReturnType<typeof tempStore>;

beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

function app(data: ReturnType<typeof collect>, handle: string) {
  const found = data.apps.find((a) => a.handle === handle);
  if (found === undefined) throw new Error(`no ${handle} in the digest`);
  return found;
}

describe('collectDigest', () => {
  beforeEach(() => seedWeek(store.db));

  it("counts the week's reviews by their own date in the zone, undated ones by when they were first seen", () => {
    const mine = app(collect(store.db), 'my-app');
    // 5, 1, 4 (Sunday 23:30 Berlin), 3 (undated, first seen in the week), 5 (baseline, Monday 00:30).
    expect(mine.reviews).toEqual({
      count: 5,
      average: 3.6,
      distribution: { 1: 1, 2: 0, 3: 1, 4: 1, 5: 2 },
      low: 2,
    });
  });

  it('takes the config name, else the listing title, else the handle, and puts own apps first', () => {
    const data = collectDigest(store.db, {
      apps: [
        { handle: 'rival', role: 'competitor' },
        { handle: 'my-app', name: 'My App', role: 'own' },
        { handle: 'never-polled', role: 'own' },
      ],
      period: weekContaining(new Date('2026-11-18T12:00:00Z'), TZ),
      maxRating: 3,
      scoring: DEFAULT_SCORING_RULES,
      now: NOW,
    });
    expect(data.apps.map((a) => [a.handle, a.title, a.role])).toEqual([
      ['my-app', 'My App', 'own'],
      ['never-polled', 'never-polled', 'own'],
      ['rival', 'Rival & Co <Pro>', 'competitor'],
    ]);
    const never = app(data, 'never-polled');
    expect(never.rating.current).toBeNull();
    expect(never.reviews.count).toBe(0);
  });

  it('reads the rating before the end of the period, of last week and of four weeks ago', () => {
    const { rating } = app(collect(store.db), 'my-app');
    // The snapshot after the end (4.0) and the one without an average do not count.
    expect(rating.current).toMatchObject({ average: 4.4, count: 113 });
    // Last week ended Monday 16 November 00:00 Berlin (23:00 UTC): 4.5, not the 23:30 UTC snapshot.
    expect(rating.lastWeek).toMatchObject({ average: 4.5, count: 110 });
    expect(rating.fourWeeksAgo).toMatchObject({ average: 4.6, count: 100 });
    expect(rating.changeVsLastWeek).toBeCloseTo(-0.1, 10);
    expect(rating.changeVsFourWeeksAgo).toBeCloseTo(-0.2, 10);
  });

  it('builds eight weeks of trend ending with the period, with null where no snapshot says', () => {
    const { trend } = app(collect(store.db), 'my-app');
    expect(trend).toHaveLength(8);
    expect(trend.at(-1)?.start).toEqual(new Date('2026-11-15T23:00:00Z'));
    expect(trend.at(-1)?.end).toEqual(new Date('2026-11-22T23:00:00Z'));
    // The first week starts on Monday 28 September, in summer time.
    expect(trend[0]?.start).toEqual(new Date('2026-09-27T22:00:00Z'));
    expect(trend.map((w) => w.reviews)).toEqual([0, 0, 0, 0, 2, 0, 1, 5]);
    expect(trend.map((w) => w.rating)).toEqual([null, null, null, 4.6, 4.55, 4.55, 4.5, 4.4]);
  });

  it('lists the worst reviews lowest first with severity and reasons, re-ratings included, no 5-star one', () => {
    const { worst } = app(collect(store.db), 'my-app');
    expect(worst.map((r) => [r.rating, r.content.slice(0, 20)])).toEqual([
      [1, 'Charged twice & no r'],
      [3, 'Undated but seen thi'],
      [4, 'Sunday night review'],
    ]);
    const [first, second] = worst;
    expect(first?.reviewer).toBe(SCRIPT);
    expect(first?.severity.reasons).toEqual(
      expect.arrayContaining([
        '1 star',
        'mentions billing: charged twice, refund',
        'mentions support: support, never answered',
        'mentions uninstall: uninstalling',
        'long-time user: over 1 year using the app',
      ]),
    );
    expect(first?.severity.priority).toBe('critical');
    expect(second?.previousRating).toBe(5);
    expect(second?.severity.reasons).toContain('rerated from 5 to 3');
  });

  it('neither counts nor quotes a review the marketplace removed', () => {
    const remove = (content: string) =>
      store.db.$client
        .prepare('update reviews set removed_at = ? where content like ?')
        .run(NOW.getTime(), `${content}%`);
    remove('Charged twice');
    remove('Great app');
    const mine = app(collect(store.db), 'my-app');
    expect(mine.reviews).toEqual({
      count: 3,
      average: 4,
      distribution: { 1: 0, 2: 0, 3: 1, 4: 1, 5: 1 },
      low: 1,
    });
    expect(mine.worst.map((r) => r.content.slice(0, 20))).toEqual([
      'Undated but seen thi',
      'Sunday night review',
    ]);
    expect(mine.best.map((r) => r.content)).toEqual(['Baseline review']);
    expect(mine.trend.at(-1)?.reviews).toBe(3);
  });

  it('ranks reviews of the same rating by severity, and keeps at most five', () => {
    const seed = new Seed(store.db).app('busy');
    const at = new Date('2026-11-18T12:00:00Z');
    for (let i = 0; i < 6; i += 1) seed.review('busy', { rating: 1, content: `plain ${i}`, createdAt: at });
    seed.review('busy', { rating: 1, content: 'Crashes and lost all my data', createdAt: at });
    seed.review('busy', { rating: 2, content: 'Lost data, charged twice, crashes', createdAt: at });
    const { worst } = app(collect(store.db, undefined, [{ handle: 'busy', role: 'own' }]), 'busy');
    expect(worst).toHaveLength(5);
    expect(worst[0]?.content).toBe('Crashes and lost all my data');
    expect(worst.every((r) => r.rating === 1)).toBe(true);
  });

  it('picks the longest 5-star reviews as the best', () => {
    const { best } = app(collect(store.db), 'my-app');
    expect(best.map((r) => r.content)).toEqual([
      'Great app, does everything we need and more',
      'Baseline review',
    ]);
  });

  it('lists failed deliveries raised in the period or before it and still failed, not later ones', () => {
    const mine = app(collect(store.db), 'my-app');
    expect(mine.failedAlertsTotal).toBe(2);
    expect(mine.failedAlerts).toEqual([
      expect.objectContaining({
        kind: 'review',
        channel: 'support',
        reason: 'Slack answered 404 no_service',
        payload: expect.objectContaining({
          review: expect.objectContaining({ rating: 1, reviewer: SCRIPT }),
        }),
        inPeriod: true,
      }),
      expect.objectContaining({ channel: 'team-mail', reason: '550 mailbox unavailable', inPeriod: false }),
    ]);
  });

  it('compares own apps with competitors: rating, reviews per week, share of low ratings', () => {
    const data = collect(store.db);
    expect(data.comparison).toEqual([
      expect.objectContaining({
        handle: 'my-app',
        role: 'own',
        rating: 4.4,
        reviewsPerWeek: 5,
        lowShare: 0.4,
      }),
      expect.objectContaining({
        handle: 'rival',
        role: 'competitor',
        rating: 4.1,
        reviewsPerWeek: 2,
        lowShare: 0.5,
        changeVsLastWeek: 0,
      }),
    ]);
  });

  it('has no comparison without competitors', () => {
    const data = collect(store.db, undefined, [{ handle: 'my-app', role: 'own' }]);
    expect(data.comparison).toBeNull();
  });

  it('totals the headline over own apps', () => {
    const data = collect(store.db);
    expect(data.totals).toEqual({ newReviews: 5, lowReviews: 2, ratingsFell: 1, failedAlerts: 2 });
    expect(data.quiet).toBe(false);
  });

  it('is quiet when no app has a review in the period', () => {
    const data = collect(store.db, weekContaining(new Date('2026-12-09T12:00:00Z'), TZ));
    expect(data.quiet).toBe(true);
    expect(data.totals.newReviews).toBe(0);
    // The current rating is still there: the latest snapshot before that week's end.
    expect(app(data, 'my-app').rating.current?.average).toBe(4.0);
  });
});

describe('collectDigest across a change of daylight saving time', () => {
  it('counts the 169-hour week of 19–25 October 2026 in Berlin by local days', () => {
    const seed = new Seed(store.db).app('dst').snapshot('dst', '2026-10-25T22:00:00Z', 4.2, 10);
    // Monday 19 October 00:30 CEST (22:30 UTC the day before): the first hour of the week.
    seed.review('dst', {
      rating: 1,
      content: 'Monday 00:30 CEST',
      createdAt: new Date('2026-10-18T22:30:00Z'),
    });
    // Sunday 25 October 23:30 CET (22:30 UTC): the last hour of the week, after the clocks went back.
    seed.review('dst', {
      rating: 2,
      content: 'Sunday 23:30 CET',
      createdAt: new Date('2026-10-25T22:30:00Z'),
    });
    // Sunday 18 October 23:30 CEST and Monday 26 October 00:30 CET: the weeks before and after.
    seed.review('dst', {
      rating: 3,
      content: 'Sunday 23:30 CEST',
      createdAt: new Date('2026-10-18T21:30:00Z'),
    });
    seed.review('dst', {
      rating: 3,
      content: 'Monday 00:30 CET',
      createdAt: new Date('2026-10-25T23:30:00Z'),
    });
    const period = weekContaining(new Date('2026-10-21T12:00:00Z'), TZ);
    expect(period.end.getTime() - period.start.getTime()).toBe(169 * 3_600_000);
    const data = collectDigest(store.db, {
      apps: [{ handle: 'dst', role: 'own' }],
      period,
      maxRating: 3,
      scoring: DEFAULT_SCORING_RULES,
      now: NOW,
    });
    const dst = app(data, 'dst');
    expect(dst.worst.map((r) => r.content)).toEqual(['Monday 00:30 CEST', 'Sunday 23:30 CET']);
    expect(dst.reviews.count).toBe(2);
    expect(dst.rating.current?.average).toBe(4.2);
    expect(dst.trend.at(-1)?.reviews).toBe(2);
    // A DST week is one week: reviews per week are the week's count.
    expect(data.comparison).toBeNull();
  });
});

describe('reviews dated by day alone', () => {
  // The marketplace sends "November 23, 2026" as 2026-11-23T00:00:00+00:00. In New York that instant is
  // Sunday evening: read as an instant, every Monday review would fall into the week before.
  it("count in the week of their written day, whatever the zone's offset", () => {
    const seed = new Seed(store.db).app('us-app');
    const dated = (day: string, content: string) =>
      seed.review('us-app', {
        rating: 1,
        content,
        createdDate: `${day}T00:00:00+00:00`,
        createdAt: new Date(`${day}T00:00:00+00:00`),
      });
    dated('2026-11-16', 'Monday 16 November');
    dated('2026-11-22', 'Sunday 22 November');
    dated('2026-11-23', 'Monday 23 November');
    dated('2026-11-15', 'Sunday 15 November');
    // An instant keeps its time: Monday 23 November 03:00 UTC is Sunday 22:00 in New York.
    seed.review('us-app', {
      rating: 2,
      content: 'Sunday 22:00 EST',
      createdAt: new Date('2026-11-23T03:00:00Z'),
    });
    const week = weekContaining(new Date('2026-11-18T12:00:00Z'), 'America/New_York');
    const data = collectDigest(store.db, {
      apps: [{ handle: 'us-app', role: 'own' }],
      period: week,
      maxRating: 3,
      scoring: DEFAULT_SCORING_RULES,
      now: NOW,
    });
    const us = app(data, 'us-app');
    expect(us.worst.map((r) => r.content).sort()).toEqual([
      'Monday 16 November',
      'Sunday 22 November',
      'Sunday 22:00 EST',
    ]);
    expect(us.reviews.count).toBe(3);
    expect(us.trend.at(-1)?.reviews).toBe(3);
    expect(us.trend.at(-2)?.reviews).toBe(1);
  });
});
