import { describe, expect, it } from 'vitest';
import { type CatalogReview, identify } from '../../src/catalog/index.js';
import type { KnownLookup, KnownReview } from '../../src/store/reviews.js';
import { diffPage, SeenInPoll } from '../../src/watch/diff.js';
import { pageHash } from '../../src/watch/page-hash.js';

function review(id: string, overrides: Partial<CatalogReview> = {}): CatalogReview {
  return {
    reviewId: id,
    reviewer: `Store ${id}`,
    location: 'Canada',
    rating: 5,
    content: `Review ${id}`,
    createdDate: '2026-11-01T00:00:00+00:00',
    timeUsingApp: '2 months using the app',
    appName: 'My App',
    appUrl: 'https://apps.platform.example/my-app',
    ...overrides,
  };
}

function lookup(...reviews: CatalogReview[]): KnownLookup {
  const byIdentity = new Map<string, KnownReview>();
  const byFingerprint = new Map<string, KnownReview>();
  reviews.forEach((r, i) => {
    const f = identify(r);
    const known = {
      rowId: i + 1,
      identity: f.identity,
      fingerprint: f.fingerprint,
      rating: r.rating,
      content: r.content,
      createdDate: r.createdDate,
      removedAt: null,
    };
    byIdentity.set(known.identity, known);
    byFingerprint.set(known.fingerprint, known);
  });
  return { byIdentity, byFingerprint };
}

describe('diffPage', () => {
  it('finds new reviews and stops at a stored, unchanged one', () => {
    const diff = diffPage(
      [review('3'), review('2'), review('1')].map(identify),
      lookup(review('1')),
      new SeenInPoll(),
    );
    expect(diff.fresh.map((r) => r.reviewId)).toEqual(['3', '2']);
    expect(diff.reachedKnown).toBe(true);
  });

  it('counts a review shifted onto the next page once', () => {
    const seen = new SeenInPoll();
    const page1 = diffPage([review('5'), review('4')].map(identify), lookup(), seen);
    // A review arrived in between: '4' is now the first item of page 2.
    const page2 = diffPage([review('4'), review('3')].map(identify), lookup(), seen);
    expect([...page1.fresh, ...page2.fresh].map((r) => r.reviewId)).toEqual(['5', '4', '3']);
    expect(page2.distinct).toBe(1);
  });

  it('gives a review without an id a fingerprint identity, and matches it when the id comes back', () => {
    const withoutId = identify(review('', { reviewer: 'Anon', content: 'Meh' }));
    expect(withoutId.fallbackIdentity).toBe(true);
    expect(withoutId.identity).toMatch(/^fp:[0-9a-f]{32}$/);

    const stored = lookup(review('', { reviewer: 'Anon', content: 'Meh' }));
    const again = diffPage(
      [identify(review('', { reviewer: 'Anon', content: 'Meh' }))],
      stored,
      new SeenInPoll(),
    );
    expect(again.fresh).toEqual([]);
    expect(again.reachedKnown).toBe(true);

    const withId = diffPage(
      [identify(review('77', { reviewer: 'Anon', content: 'Meh' }))],
      stored,
      new SeenInPoll(),
    );
    expect(withId.fresh).toEqual([]);
    expect(withId.refreshed).toHaveLength(1);
    expect(withId.refreshed[0]?.fetched.identity).toBe('77');
  });

  it('matches a review whose id went missing to the stored one by fingerprint', () => {
    const diff = diffPage([identify(review(''))], lookup(review('')), new SeenInPoll());
    expect(diff.fresh).toHaveLength(0);
    const byId = lookup(review('9'));
    const lost = diffPage(
      [identify(review('', { reviewer: 'Store 9', content: 'Review 9' }))],
      byId,
      new SeenInPoll(),
    );
    expect(lost.fresh).toHaveLength(0);
    expect(lost.reachedKnown).toBe(true);
  });

  it('keeps two reviews with ids apart even when reviewer, day and (empty) text are the same', () => {
    const a = review('100', { reviewer: 'Acme Store', content: '' });
    const b = review('101', { reviewer: 'Acme Store', content: '' });
    const both = diffPage([identify(b), identify(a)], lookup(), new SeenInPoll());
    expect(both.fresh.map((r) => r.reviewId)).toEqual(['101', '100']);
    const later = diffPage([identify(b), identify(a)], lookup(a), new SeenInPoll());
    expect(later.fresh.map((r) => r.reviewId)).toEqual(['101']);
    expect(later.refreshed).toHaveLength(0);
  });

  it('reports an edit of rating or content, and does not treat it as the boundary', () => {
    const known = lookup(review('1'), review('2'));
    const diff = diffPage(
      [
        identify(
          review('1', { rating: 2, content: 'Charged twice', createdDate: '2026-11-20T00:00:00+00:00' }),
        ),
      ],
      known,
      new SeenInPoll(),
    );
    expect(diff.edited).toHaveLength(1);
    expect(diff.edited[0]?.known.rating).toBe(5);
    expect(diff.edited[0]?.fetched.rating).toBe(2);
    expect(diff.reachedKnown).toBe(false);
  });

  it('refreshes a review that only moved, without calling it an edit or the boundary', () => {
    const diff = diffPage(
      [identify(review('1', { createdDate: '2026-11-20T00:00:00+00:00' }))],
      lookup(review('1')),
      new SeenInPoll(),
    );
    expect(diff.edited).toHaveLength(0);
    expect(diff.refreshed).toHaveLength(1);
    expect(diff.reachedKnown).toBe(false);
  });
});

describe('pageHash', () => {
  it('is equal for an equal page and differs when anything the diff reads changes', () => {
    const page = [review('2'), review('1')];
    expect(pageHash([review('2'), review('1')])).toBe(pageHash(page));
    for (const changed of [
      [review('2', { rating: 1 }), review('1')],
      [review('2'), review('1', { content: 'Review 1, edited' })],
      [review('2', { createdDate: '2026-11-02T00:00:00+00:00' }), review('1')],
      [review('2', { reviewer: 'Someone else' }), review('1')],
      [review(''), review('1')],
      [review('1'), review('2')],
      [review('2')],
    ]) {
      expect(pageHash(changed)).not.toBe(pageHash(page));
    }
  });
});
