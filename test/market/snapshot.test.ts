import { describe, expect, it } from 'vitest';
import { ranksOf, snapshotOf, sponsorsOf } from '../../src/market/index.js';
import { page, T0 } from './helpers.js';

const e = (handle: string, extra: Record<string, unknown> = {}) => ({
  name: handle,
  url: `https://apps.example/${handle}`,
  handle,
  developer: 'Dev',
  rating: 4.5,
  isSponsored: false,
  isBuiltForPlatform: false,
  ...extra,
});

describe('organic ranks from a category snapshot', () => {
  it('ranks among the non-sponsored entries: ads above do not push the organic results down', () => {
    const s = snapshotOf(
      'store-design',
      [
        page([
          e('ad-one', { isSponsored: true, position: 1 }),
          e('ad-two', { isSponsored: true, position: 2 }),
          e('first', { position: 3 }),
          e('second', { position: 4 }),
        ]),
      ],
      T0,
    );
    expect(Object.fromEntries(ranksOf(s))).toEqual({ first: 1, second: 2 });
    expect(s.sponsored.map((x) => [x.slot, x.handle])).toEqual([
      [1, 'ad-one'],
      [2, 'ad-two'],
    ]);
    expect(sponsorsOf(s)).toEqual(['ad-one', 'ad-two']);
    // Sponsored-only apps are in the snapshot, without a rank (never rank 0).
    expect(s.apps.find((a) => a.handle === 'ad-one')).toMatchObject({ rank: null, sponsored: true });
    expect(s.depth).toBe(2);
  });

  it('gives an app both sponsored and organic its organic rank, marked sponsored, listed once', () => {
    const s = snapshotOf(
      'c',
      [
        page([
          e('star', { isSponsored: true, position: 1 }),
          e('a', { position: 2 }),
          e('star', { position: 3 }),
        ]),
        page([e('star', { isSponsored: true, position: 1 }), e('b', { position: 2 })]),
      ],
      T0,
    );
    expect(s.apps.map((a) => [a.handle, a.rank, a.sponsored, a.page])).toEqual([
      ['a', 1, false, 1],
      ['star', 2, true, 1],
      ['b', 3, false, 2],
    ]);
    expect(s.sponsored).toHaveLength(2);
    expect(sponsorsOf(s)).toEqual(['star']);
  });

  it('follows the pages order whatever the positions say: skipped, repeated, restarted per page', () => {
    const s = snapshotOf(
      'c',
      [
        page([
          e('a', { position: 1 }),
          e('b', { position: 3 }),
          e('c', { position: 3 }),
          e('d', { position: '7' }),
        ]),
        page([e('e', { position: 1 }), e('f', { position: null }), e('g')]),
      ],
      T0,
    );
    expect([...ranksOf(s)]).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
      ['e', 5],
      ['f', 6],
      ['g', 7],
    ]);
  });

  it('keeps the first place of an app listed twice organically (pages shifting while read)', () => {
    const s = snapshotOf('c', [page([e('a'), e('b')]), page([e('b'), e('c')])], T0);
    expect([...ranksOf(s).keys()]).toEqual(['a', 'b', 'c']);
    expect(s.duplicates).toBe(1);
  });

  it('reads the listed rating as a string or a number, badge and handle from the url when missing', () => {
    const s = snapshotOf(
      'c',
      [
        page([
          e('a', { rating: '4.7' }),
          e('b', { rating: 'not rated' }),
          { name: 'C', url: 'https://apps.example/c-app?from=cat', rating: 3, isBuiltForPlatform: true },
          e('d', { rating: null, isBuiltForPlatform: null }),
        ]),
      ],
      T0,
    );
    expect(s.apps.map((a) => [a.handle, a.rating, a.builtFor])).toEqual([
      ['a', 4.7, false],
      ['b', null, false],
      ['c-app', 3, true],
      ['d', null, null],
    ]);
  });

  it('an empty page is an empty snapshot, not a failure', () => {
    const s = snapshotOf('c', [page([])], T0);
    expect(s).toMatchObject({ apps: [], depth: 0, sponsored: [] });
  });
});
