import { describe, expect, it } from 'vitest';
import { developerDetailSchema } from '../../src/catalog/schemas.js';
import { badgeChanges, developerAppChanges, newEntrants } from '../../src/market/index.js';
import { HOUR, snap, T0 } from './helpers.js';

describe('new entrants', () => {
  it('lists every app never ranked before in one message per snapshot, none on the baseline', () => {
    const seen = new Set(['a', 'b', 'c']);
    const s = snap(T0, ['a', 'new-one', 'b', 'c', 'new-two'], { sponsored: ['ad-only'] });
    const found = newEntrants(s, seen, { baseline: false });
    expect(found?.apps.map((a) => [a.handle, a.rank])).toEqual([
      ['new-one', 2],
      ['new-two', 5],
    ]);
    expect(newEntrants(s, seen, { baseline: true })).toBeNull();
    expect(newEntrants(snap(T0, ['a', 'b']), seen, { baseline: false })).toBeNull();
  });

  it('an app seen only in an ad is new when it first ranks', () => {
    const seen = new Set(['a']);
    expect(newEntrants(snap(T0, ['a'], { sponsored: ['buyer'] }), seen, { baseline: false })).toBeNull();
    expect(
      newEntrants(snap(T0 + HOUR, ['buyer', 'a']), seen, { baseline: false })?.apps.map((a) => a.handle),
    ).toEqual(['buyer']);
  });
});

describe('developer apps', () => {
  const dev = (apps: Array<Record<string, unknown>>) =>
    developerDetailSchema.parse({ name: 'Rival Labs', apps });
  it('finds published and removed apps by handle, full or reduced form, whatever the order', () => {
    const before = dev([
      { name: 'One', url: 'https://apps.example/one', category: 'x', rating: 4.2 },
      { name: 'Two', url: 'https://apps.example/two', category: 'x', rating: '4.9' },
    ]).apps;
    const after = dev([
      { name: 'Three', url: 'https://apps.example/three' },
      { name: 'One (renamed)', url: 'https://apps.example/one/' },
    ]).apps;
    const changes = developerAppChanges(before, after);
    expect(changes.published.map((a) => a.handle)).toEqual(['three']);
    expect(changes.removed.map((a) => [a.handle, a.rating])).toEqual([['two', 4.9]]);
    expect(developerAppChanges(after, after)).toEqual({ published: [], removed: [] });
  });
});

describe('badges', () => {
  it('reports gained and lost Built-for badges of watched apps only, never from a page that did not say', () => {
    const before = snap(T0, ['a', 'b', 'c', 'd'], { badges: { a: true, b: false, c: true } });
    const after = snap(T0 + HOUR, ['a', 'b', 'c', 'd'], { badges: { a: false, b: true, c: true, d: true } });
    expect(badgeChanges(before, after, new Set(['a', 'b', 'c']))).toEqual([
      { handle: 'a', name: 'A', kind: 'lost' },
      { handle: 'b', name: 'B', kind: 'gained' },
    ]);
  });
});
