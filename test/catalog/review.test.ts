import { describe, expect, it } from 'vitest';
import { type CatalogReview, fingerprintOf, identify, parseReviewDate } from '../../src/catalog/index.js';

function review(id: string, overrides: Partial<CatalogReview> = {}): CatalogReview {
  return {
    reviewId: id,
    reviewer: 'Store 1',
    location: 'Canada',
    rating: 2,
    content: 'Slow support',
    createdDate: '2026-11-01T00:00:00+00:00',
    timeUsingApp: '2 months using the app',
    appName: 'My App',
    appUrl: 'https://apps.platform.example/my-app',
    ...overrides,
  };
}

describe('identify', () => {
  it('uses the review_id as the identity when there is one', () => {
    const fetched = identify(review('42'));
    expect(fetched.identity).toBe('42');
    expect(fetched.fallbackIdentity).toBe(false);
    expect(fetched.fingerprint).toBe(fingerprintOf(review('42')));
  });

  it('falls back to the prefixed fingerprint without an id, so it never equals an id', () => {
    const fetched = identify(review(''));
    expect(fetched.fallbackIdentity).toBe(true);
    expect(fetched.identity).toBe(`fp:${fingerprintOf(review(''))}`);
  });

  it('fingerprints reviewer, date and content only', () => {
    expect(fingerprintOf(review('1'))).toBe(fingerprintOf(review('2', { rating: 5, location: 'Peru' })));
    expect(fingerprintOf(review('1'))).not.toBe(fingerprintOf(review('1', { content: 'Fast support' })));
  });
});

describe('parseReviewDate', () => {
  it('reads ISO 8601 and gives null for the API\'s "Invalid Date" and for empty text', () => {
    expect(parseReviewDate('2026-11-01T00:00:00+00:00')?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseReviewDate('Invalid Date')).toBeNull();
    expect(parseReviewDate('')).toBeNull();
    expect(parseReviewDate('yesterday')).toBeNull();
  });
});
