import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempStore } from '../helpers/index.js';
import { collect, collectMarketWeek, seedWeek } from './scenario.js';

/**
 * The Market section of the week of 16–22 November 2026 (Berlin): ten days of a category ending on 22
 * November, read from a real store (test/helpers/market.ts): shop falls from #5 to #12 on the 20th, an
 * entrant comes in on the 21st, a snapshot fails on the 17th, and the competitor cuts a price on the 21st.
 */
let store: ReturnType<typeof tempStore>;

beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

describe('the Market section', () => {
  it("gives the own apps' ranks at the week's end and their move over it, per category", () => {
    const market = collectMarketWeek(store.db).market;
    const [design, finances] = market?.categories ?? [];
    expect(design).toMatchObject({ handle: 'store-design', depth: 14, failedSnapshots: 1 });
    expect(design?.at?.toISOString()).toBe('2026-11-22T08:00:00.000Z');
    expect(design?.own).toEqual([
      { handle: 'shop', title: 'Shop', rank: 12, before: 5, compared: true, move: -7 },
    ]);
    // A tracked category never snapshotted says so, and ranks nobody.
    expect(finances).toMatchObject({ handle: 'finances', at: null, own: [], entrants: [] });
  });

  it('lists the entrants of the week with the rank they came in at, names as the marketplace wrote them', () => {
    const design = collectMarketWeek(store.db).market?.categories[0];
    expect(design?.entrants).toEqual([
      {
        handle: 'new-kid',
        name: '<script>alert(1)</script>Kid',
        at: new Date('2026-11-21T08:00:00Z'),
        rank: 14,
      },
    ]);
  });

  it("lists the competitors' listing changes of the week, pricing first", () => {
    const market = collectMarketWeek(store.db).market;
    expect(market?.competitors).toEqual([
      {
        handle: 'rival',
        title: 'Rival & Co',
        total: 2,
        changes: [
          expect.objectContaining({
            text: 'Plan added: "<img src=x onerror=alert(1)>Pro" ($9/month)',
            tone: 'added',
          }),
          expect.objectContaining({ text: '"Growth": price down $29/month → $19/month', tone: 'down' }),
        ],
      },
    ]);
  });

  it('is absent when no category is tracked and no competitor changed its listing', () => {
    seedWeek(store.db);
    expect(collect(store.db).market).toBeNull();
    // Tracked but quiet: there, saying the category has no snapshot yet.
    expect(collectMarketWeek(store.db, ['productivity']).market?.categories).toMatchObject([
      { handle: 'productivity', at: null },
    ]);
  });
});
