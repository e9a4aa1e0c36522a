import { describe, expect, it } from 'vitest';
import { changeTone, describeChange } from '../../src/market/change-text.js';
import {
  entryBefore,
  exitsOf,
  gapsOf,
  placesClimbed,
  rankIn,
  sponsorChanges,
} from '../../src/market/history.js';
import type { ListingChange } from '../../src/market/index.js';
import { HOUR, snap, T0 } from './helpers.js';

const DAY = 24 * HOUR;

describe('the history of a category', () => {
  it('measures a move against the snapshot a week before, or the oldest when there is less', () => {
    const entries = [0, 2, 5, 7, 8, 9].map((d) => ({ at: T0 + d * DAY }));
    expect(entryBefore(entries, T0 + 9 * DAY, 7 * DAY)?.at).toBe(T0 + 2 * DAY);
    expect(entryBefore(entries, T0 + 5 * DAY, 7 * DAY)?.at).toBe(T0);
    expect(entryBefore([], T0, 7 * DAY)).toBeUndefined();
    expect(placesClimbed(12, 20)).toBe(-8);
    expect(placesClimbed(null, 3)).toBeNull();
    expect(rankIn(snap(T0, ['a', 'b'], { sponsored: ['c'] }), 'c')).toBeNull();
  });

  it('turns runs of failed snapshots into gaps, never into ranks', () => {
    const at = (d: number) => T0 + d * DAY;
    const gaps = gapsOf([
      { at: at(0), status: 'ok' },
      { at: at(1), status: 'failed' },
      { at: at(2), status: 'unavailable' },
      { at: at(3), status: 'ok' },
      { at: at(4), status: 'failed' },
    ]);
    expect(gaps).toEqual([
      { from: at(1), to: at(2), snapshots: 2, status: 'unavailable' },
      { from: at(4), to: at(4), snapshots: 1, status: 'failed' },
    ]);
  });

  it('lists the apps that left the tracked pages and stayed out, once each, newest first', () => {
    const snapshots = [
      snap(T0, ['a', 'b', 'c', 'd']),
      snap(T0 + DAY, ['a', 'b', 'c', 'e']),
      snap(T0 + 2 * DAY, ['a', 'b', 'd', 'e']),
      snap(T0 + 3 * DAY, ['a', 'e', 'f', 'b']),
    ];
    // d left, came back, left again: listed once, as of its last exit; c left once.
    expect(exitsOf(snapshots)).toEqual([
      { handle: 'd', name: 'D', at: T0 + 3 * DAY, lastRank: 3 },
      { handle: 'c', name: 'C', at: T0 + 2 * DAY, lastRank: 3 },
    ]);
    expect(exitsOf([])).toEqual([]);
  });

  it('says who took and who gave up a sponsored slot', () => {
    const changes = sponsorChanges([
      snap(T0, ['a', 'b'], { sponsored: ['x', 'y'] }),
      snap(T0 + DAY, ['a', 'b'], { sponsored: ['y', 'x'] }),
      snap(T0 + 2 * DAY, ['a', 'b'], { sponsored: ['y', 'z'] }),
    ]);
    expect(changes).toEqual([
      { at: T0 + 2 * DAY, added: [{ handle: 'z', name: 'Z' }], removed: [{ handle: 'x', name: 'X' }] },
    ]);
  });
});

describe('a listing change in one line', () => {
  const change = (c: Record<string, unknown>) => ({ alerts: true, ...c }) as unknown as ListingChange;

  it('says each kind of change, quoting what the marketplace wrote, cut short and on one line', () => {
    expect(
      describeChange(
        change({
          field: 'pricing',
          kind: 'price-down',
          plan: 'Pro',
          from: '$29/month',
          to: '$19/month',
          minor: false,
        }),
      ),
    ).toBe('"Pro": price down $29/month → $19/month');
    expect(
      describeChange(
        change({
          field: 'pricing',
          kind: 'price-up',
          plan: 'Pro',
          from: '$19.99/month',
          to: '$19.995/month',
          minor: true,
        }),
      ),
    ).toBe('"Pro": price up $19.99/month → $19.995/month (minor: recorded, not alerted)');
    expect(
      describeChange(change({ field: 'pricing', kind: 'plan-removed', plan: 'Old\nplan', price: 'Free' })),
    ).toBe('Plan removed: "Old plan" (was Free)');
    expect(
      describeChange(
        change({ field: 'categories', kind: 'set', added: ['Store design'], removed: ['A', 'B'] }),
      ),
    ).toBe('Categories: added "Store design"; removed "A", "B"');
    expect(describeChange(change({ field: 'worksWith', kind: 'set', added: [], removed: ['Flow'] }))).toBe(
      'Works with: removed "Flow"',
    );
    expect(
      describeChange(
        change({
          field: 'description',
          kind: 'description',
          hunks: [{ after: null, removed: ['x'], added: ['y', 'z'] }],
        }),
      ),
    ).toBe('Description: 2 sentences added, 1 removed');
    expect(describeChange(change({ field: 'title', kind: 'title', from: 'A', to: 'x'.repeat(100) }))).toBe(
      `Title: "A" → "${'x'.repeat(79)}…"`,
    );
    expect(describeChange(change({ field: 'badge', kind: 'gained' }))).toBe('Built-for badge gained');
    expect(describeChange(change({ field: 'badge', kind: 'badge', from: true, to: false }))).toBe(
      'Built-for badge lost',
    );
    expect(describeChange(change({ field: 'logo', kind: 'something-new' }))).toBe('Logo changed');
    expect(changeTone(change({ kind: 'plan-added' }))).toBe('added');
  });
});
