import { describe, expect, it } from 'vitest';
import { type CategorySnapshot, detectRankAlerts, type RankDetectionInput } from '../../src/market/index.js';
import { apps, HOUR, moveTo, type SnapOptions, snap, T0 } from './helpers.js';

const STEP = 6 * HOUR;
const ALL = apps(48);
/** A wobble of up to three places either way, as ranks do from day to day. */
const WOBBLE = [
  0, 2, -1, 3, -2, 1, -3, 0, 1, -1, 2, -2, 3, 0, -1, 1, 2, -3, 0, 1, -2, 2, -1, 0, 3, -1, 1, -2,
];

/** `count` snapshots with the own app `own` wobbling around `level`, then the given extra ones. */
function history(
  own: string,
  level: number,
  count = WOBBLE.length,
  options: SnapOptions = {},
): CategorySnapshot[] {
  return Array.from({ length: count }, (_, i) =>
    snap(
      T0 + i * STEP,
      moveTo(ALL, own, Math.max(1, level + (WOBBLE[i % WOBBLE.length] as number))),
      options,
    ),
  );
}

function next(
  h: readonly CategorySnapshot[],
  order: readonly string[],
  options: SnapOptions = {},
): CategorySnapshot[] {
  const last = h[h.length - 1] as CategorySnapshot;
  return [...h, snap(last.at + STEP, order, options)];
}

function detect(h: readonly CategorySnapshot[], extra: Partial<RankDetectionInput> = {}) {
  return detectRankAlerts({ history: h, ownApps: ['a20'], ...extra });
}

describe('rank alerts', () => {
  it('stay quiet on the daily wobble of three places', () => {
    const h = history('a20', 20, 60);
    for (let n = 2; n <= h.length; n++) expect(detect(h.slice(0, n)).alerts).toEqual([]);
  });

  it('alert on a fall of eight places only once it persists over two snapshots', () => {
    const base = history('a20', 20);
    const once = next(base, moveTo(ALL, 'a20', 28));
    expect(detect(once).alerts).toEqual([]);
    // A blip: back the next snapshot.
    expect(detect(next(once, moveTo(ALL, 'a20', 20))).alerts).toEqual([]);
    const twice = next(once, moveTo(ALL, 'a20', 28));
    const [alert] = detect(twice).alerts;
    expect(alert).toMatchObject({
      handle: 'a20',
      kind: 'fell',
      from: 20,
      to: 28,
      previous: 28,
      topN: null,
    });
    expect(alert?.band).toBeLessThanOrEqual(8);
  });

  it('explains a fall: the apps that passed it and their listing changes, ads, rating, incidents', () => {
    const base = history('a20', 20, WOBBLE.length, { ratings: { a20: 4.8 } });
    const order = moveTo(moveTo(ALL, 'a20', 28), 'a30', 5);
    const last = base[base.length - 1] as CategorySnapshot;
    const h = next(next(base, order, { sponsored: ['a44'], ratings: { a20: 4.6 } }), order, {
      sponsored: ['a44'],
      ratings: { a20: 4.6 },
    });
    const [alert] = detect(h, {
      context: {
        listingChanges: [
          { handle: 'a30', at: last.at + STEP, summary: 'Pro: $29/month → $19/month' },
          { handle: 'a30', at: T0, summary: 'too old to explain it' },
        ],
        ownEvents: [{ handle: 'a20', at: last.at, kind: 'incident', summary: '3 low reviews in 24 h' }],
      },
    }).alerts;
    const passed = alert?.reasons.find((r) => r.kind === 'passed');
    // The app with a listing change in the window comes first.
    expect(passed?.kind === 'passed' && passed.apps[0]).toEqual({
      handle: 'a30',
      name: 'A30',
      from: 30,
      to: 5,
      changes: ['Pro: $29/month → $19/month'],
    });
    expect(passed?.kind === 'passed' && passed.apps.map((a) => a.handle)).toEqual([
      'a30',
      ...apps(28)
        .slice(20)
        .filter((h) => h !== 'a20'),
    ]);
    expect(alert?.reasons).toContainEqual({ kind: 'sponsored', gained: ['a44'], lost: [] });
    expect(alert?.reasons).toContainEqual({ kind: 'rating', from: 4.8, to: 4.6 });
    expect(alert?.reasons).toContainEqual({
      kind: 'own-event',
      event: { handle: 'a20', at: last.at, kind: 'incident', summary: '3 low reviews in 24 h' },
    });
  });

  it('names new entrants above it, and says so when nothing explains the move', () => {
    const base = history('a20', 20);
    const order = ['n1', 'n2', ...moveTo(ALL, 'a20', 26)];
    const h = next(next(base, order), order);
    // Two entrants shift the ranks below them by two: not a reshuffle, and a20 fell six places of its own.
    const [alert] = detect(h, { context: { newEntrants: new Set(['n1']) } }).alerts;
    expect(alert).toMatchObject({ kind: 'fell', to: 28 });
    expect(alert?.reasons).toContainEqual({
      kind: 'new-entrants',
      apps: [{ handle: 'n1', name: 'N1', rank: 1 }],
    });
    expect(alert?.reasons).toContainEqual({
      kind: 'returned',
      apps: [{ handle: 'n2', name: 'N2', rank: 2 }],
    });
    const quiet = next(next(base, moveTo(ALL, 'a20', 12)), moveTo(ALL, 'a20', 12));
    const [rose] = detect(quiet).alerts;
    expect(rose).toMatchObject({ kind: 'rose', from: 20, to: 12 });
    expect(rose?.reasons.map((r) => r.kind)).toEqual(['passed']);
  });

  it('does not repeat an alert: after it the app settles on its new level', () => {
    const base = history('a20', 20);
    let h = next(next(base, moveTo(ALL, 'a20', 28)), moveTo(ALL, 'a20', 28));
    const first = detect(h).alerts[0];
    expect(first?.kind).toBe('fell');
    const lastAlertAt = new Map([['a20', first?.at as number]]);
    for (let i = 0; i < 12; i++) {
      h = next(h, moveTo(ALL, 'a20', 28 + (WOBBLE[i] as number)));
      expect(detect(h, { lastAlertAt }).alerts).toEqual([]);
    }
  });

  it('leaves a move explained by the category around it alone', () => {
    // 72 apps, the own app at 60; four entrants at 57 push everything below down four (14 of 72 apps:
    // not a reshuffle). The own app moved with its neighbours.
    const all = apps(72);
    const h0 = Array.from({ length: 28 }, (_, i) =>
      snap(T0 + i * STEP, moveTo(all, 'a60', 60 + (WOBBLE[i] as number))),
    );
    const pushed = [...all.slice(0, 56), 'x1', 'x2', 'x3', 'x4', ...all.slice(56)];
    const h = next(next(h0, pushed), pushed);
    const result = detectRankAlerts({ history: h, ownApps: ['a60'] });
    expect(result.reshuffled).toBe(false);
    expect(result.alerts).toEqual([]);
  });

  it('counts a missing snapshot as a gap and an absent app as below the pages, never rank 0', () => {
    const base = history('a20', 20);
    const without = ALL.filter((h) => h !== 'a20');
    // The gap: snapshots are simply not in the history. A single absence is not enough.
    const once = [...base, snap((base.at(-1) as CategorySnapshot).at + 3 * STEP, without)];
    expect(detect(once).alerts).toEqual([]);
    const [alert] = detect(next(once, without)).alerts;
    expect(alert).toMatchObject({ kind: 'left', from: 20, to: null, previous: null });
  });

  it('counts entering the top 10 whatever the band, and not again within a week', () => {
    const base = history('a20', 13);
    const h = next(next(base, moveTo(ALL, 'a20', 10)), moveTo(ALL, 'a20', 10));
    const [alert] = detect(h).alerts;
    expect(alert).toMatchObject({ kind: 'rose', topN: 'entered', from: 13, to: 10 });
    const at = (h.at(-1) as CategorySnapshot).at;
    expect(detect(h, { lastAlertAt: new Map([['a20', at - 3 * 24 * HOUR]]) }).alerts).toEqual([]);
  });

  it('sends one message for a reshuffle, none for its continuation, and no per-app alerts', () => {
    const base = history('a20', 20);
    const shuffled = [...ALL].reverse();
    const h = next(base, shuffled);
    const result = detect(h);
    expect(result.reshuffled).toBe(true);
    expect(result.alerts).toEqual([]);
    expect(result.reshuffle).toMatchObject({ moved: expect.any(Number), compared: 48 });
    expect(result.reshuffle?.moved).toBeGreaterThan(48 / 5);
    expect(result.reshuffle?.ownApps).toEqual([{ handle: 'a20', name: 'A20', from: 18, to: 29 }]);
    // It goes on rolling out: a second big move a snapshot later is the same reshuffle.
    const more = next(h, ALL);
    expect(detect(more)).toMatchObject({ reshuffle: null, reshuffled: true, alerts: [] });
    // Afterwards the app needs a new level before any move of its own can alert.
    let later = more;
    for (let i = 0; i < 3; i++) {
      later = next(later, moveTo(ALL, 'a20', 30));
      expect(detect(later).alerts).toEqual([]);
    }
  });
});
