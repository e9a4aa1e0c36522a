import { describe, expect, it } from 'vitest';
import {
  binomialLowerTail,
  binomialUpperTail,
  logGamma,
  logLikelihoodG2,
  poissonUpperTail,
} from '../../src/topics/stats.js';
import {
  DEFAULT_TREND_RULE,
  describeTrend,
  topicTrend,
  topicWeeks,
  weekOf,
} from '../../src/topics/trends.js';

describe('the tests behind the statistics', () => {
  it('computes tails exactly on small counts', () => {
    expect(Math.exp(logGamma(6))).toBeCloseTo(120, 9);
    expect(binomialUpperTail(2, 2, 0.5)).toBeCloseTo(0.25, 12);
    expect(binomialLowerTail(0, 3, 0.5)).toBeCloseTo(0.125, 12);
    // P(X >= 5) for Poisson(1): 1 - e^-1 (1 + 1 + 1/2 + 1/6 + 1/24)
    expect(poissonUpperTail(5, 1)).toBeCloseTo(1 - Math.exp(-1) * (1 + 1 + 0.5 + 1 / 6 + 1 / 24), 12);
    expect(poissonUpperTail(60, 1)).toBeGreaterThan(0);
    expect(poissonUpperTail(60, 1)).toBeLessThan(1e-70);
  });

  it('gives G² 0 for equal shares and a large one for a new phrase', () => {
    expect(logLikelihoodG2(10, 100, 100, 1000)).toBeCloseTo(0, 9);
    expect(logLikelihoodG2(5, 20, 0, 500)).toBeGreaterThan(10.83);
    expect(logLikelihoodG2(1, 20, 0, 500)).toBeLessThan(10.83);
  });
});

describe('topicWeeks', () => {
  it('gives reviews, share and average stars per app, topic and Monday-started week', () => {
    expect(weekOf(new Date('2026-11-29T23:00:00Z'))).toBe('2026-11-23');
    expect(weekOf(new Date('2026-11-30T00:00:00Z'))).toBe('2026-11-30');
    const at = new Date('2026-11-25T10:00:00Z');
    const rows = topicWeeks([
      { app: 'a', at, rating: 1, topics: ['billing', 'support'] },
      { app: 'a', at, rating: 2, topics: ['billing'] },
      { app: 'a', at, rating: 5, topics: [] },
      { app: 'a', at, rating: 4, topics: ['support'] },
    ]);
    expect(rows).toEqual([
      { app: 'a', topic: 'billing', week: '2026-11-23', reviews: 2, share: 0.5, averageStars: 1.5 },
      { app: 'a', topic: 'support', week: '2026-11-23', reviews: 2, share: 0.5, averageStars: 2.5 },
    ]);
  });
});

describe('topicTrend', () => {
  const weeks = (topic: number, app: number) =>
    Array.from({ length: 8 }, () => ({ topicReviews: topic, appReviews: app }));

  it('says "up 3x" when a share tripled on counts that mean it', () => {
    const trend = topicTrend({ topicReviews: 30, appReviews: 100 }, weeks(10, 100));
    expect(trend.direction).toBe('up');
    expect(describeTrend('billing', trend)).toBe('billing: up 3x');
  });

  it('keeps small numbers quiet: 3 after 1 a week is not news, nor 0 after 2', () => {
    expect(topicTrend({ topicReviews: 3, appReviews: 10 }, weeks(1, 10)).direction).toBe('flat');
    expect(topicTrend({ topicReviews: 0, appReviews: 10 }, weeks(2, 10)).direction).toBe('flat');
    expect(
      describeTrend('billing', topicTrend({ topicReviews: 3, appReviews: 10 }, weeks(1, 10))),
    ).toBeUndefined();
  });

  it('tests the share, not the count: twice the reviews with the same mix is flat', () => {
    expect(topicTrend({ topicReviews: 40, appReviews: 400 }, weeks(20, 200)).direction).toBe('flat');
  });

  it('says down when a large share fell, and new when the baseline had none', () => {
    const down = topicTrend({ topicReviews: 5, appReviews: 100 }, weeks(20, 100));
    expect(down.direction).toBe('down');
    expect(describeTrend('bugs', down)).toBe('bugs: down 4x');
    const fresh = topicTrend({ topicReviews: 6, appReviews: 50 }, weeks(0, 50));
    expect(describeTrend('dark-mode', fresh)).toBe('dark-mode: new');
  });

  it('uses at most the eight periods before', () => {
    const history = [
      ...Array.from({ length: 10 }, () => ({ topicReviews: 50, appReviews: 100 })),
      ...weeks(10, 100),
    ];
    expect(topicTrend({ topicReviews: 30, appReviews: 100 }, history, DEFAULT_TREND_RULE).direction).toBe(
      'up',
    );
  });
});
