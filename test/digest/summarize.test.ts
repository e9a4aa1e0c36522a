import { describe, expect, it } from 'vitest';
import { countingTime, writtenDay } from '../../src/digest/review-time.js';
import { digestTotals, direction, pickBest, rankWorst, reviewStats } from '../../src/digest/summarize.js';
import type { DigestReview } from '../../src/digest/types.js';
import { DEFAULT_SCORING_RULES } from '../../src/scoring/index.js';
import { sampleDigestData } from '../fixtures/digest-sample.js';

function review(id: string, rating: number, content: string, at = '2026-11-18T12:00:00Z'): DigestReview {
  return {
    reviewId: id,
    reviewer: `Shop ${id}`,
    location: '',
    rating,
    content,
    createdDate: at,
    timeUsingApp: '',
    at: new Date(at),
  };
}

describe('direction', () => {
  it('counts a change only when two decimals show it', () => {
    expect(direction(-0.1)).toBe('down');
    expect(direction(-0.005)).toBe('down');
    expect(direction(-0.004)).toBe('same');
    expect(direction(0.004)).toBe('same');
    expect(direction(0.01)).toBe('up');
  });
});

describe('reviewStats', () => {
  it('averages and counts the low ones against the threshold', () => {
    const stats = reviewStats({ 1: 1, 2: 1, 3: 0, 4: 1, 5: 1 }, 2);
    expect(stats).toMatchObject({ count: 4, average: 3, low: 2 });
    expect(reviewStats({ 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 }, 3)).toMatchObject({
      count: 0,
      average: null,
      low: 0,
    });
  });
});

describe('rankWorst and pickBest', () => {
  it('orders by rating, then severity, then the newest', () => {
    const ranked = rankWorst(
      [
        review('a', 2, 'Crashes, lost data, charged twice, uninstalling'),
        review('b', 1, 'meh', '2026-11-17T12:00:00Z'),
        review('c', 1, 'meh', '2026-11-19T12:00:00Z'),
        review('d', 1, 'Charged twice and no refund'),
      ],
      DEFAULT_SCORING_RULES,
    );
    expect(ranked.map((r) => r.reviewId)).toEqual(['d', 'c', 'b', 'a']);
    expect(rankWorst([review('x', 1, '')], DEFAULT_SCORING_RULES, 0)).toEqual([]);
  });

  it('takes the longest 5-star reviews, never an empty one', () => {
    const best = pickBest([
      review('a', 5, 'short'),
      review('b', 5, 'a good deal longer'),
      review('c', 4, 'the longest of them all, but four stars'),
      review('d', 5, '   '),
    ]);
    expect(best.map((r) => r.reviewId)).toEqual(['b', 'a']);
  });
});

describe('digestTotals', () => {
  it('counts own apps only, and every app when none is own', () => {
    const sample = sampleDigestData();
    expect(digestTotals(sample.apps)).toMatchObject({ newReviews: 51, lowReviews: 9, ratingsFell: 1 });
    const competitors = sample.apps.map((a) => ({ ...a, role: 'competitor' as const }));
    expect(digestTotals(competitors)).toMatchObject({ newReviews: 66, lowReviews: 13, ratingsFell: 2 });
  });
});

describe('when a review counts', () => {
  const dated = (createdDate: string, createdAt: string | null) => ({
    createdDate,
    createdAt: createdAt === null ? null : new Date(createdAt),
    firstSeenAt: new Date('2026-11-30T10:00:00Z'),
  });

  it('reads a date-only value as its day in the zone, a time of day as an instant', () => {
    const day = dated('2026-11-23T00:00:00+00:00', '2026-11-23T00:00:00Z');
    expect(writtenDay(day)).toBe('2026-11-23');
    expect(countingTime(day, 'America/New_York')).toEqual(new Date('2026-11-23T05:00:00Z'));
    expect(countingTime(day, 'Europe/Berlin')).toEqual(new Date('2026-11-22T23:00:00Z'));
    const instant = dated('2026-11-22T22:30:00Z', '2026-11-22T22:30:00Z');
    expect(writtenDay(instant)).toBeUndefined();
    expect(countingTime(instant, 'America/New_York')).toEqual(new Date('2026-11-22T22:30:00Z'));
    // Unparseable: when it was first seen.
    expect(countingTime(dated('Invalid Date', null), 'UTC')).toEqual(new Date('2026-11-30T10:00:00Z'));
  });
});
