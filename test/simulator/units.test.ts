import { describe, expect, it } from 'vitest';
import { BodyCache } from '../../src/simulator/cache.js';
import { formatDay, seededReviewCount } from '../../src/simulator/data.js';
import { hashString, Rng } from '../../src/simulator/random.js';

describe('Rng', () => {
  it('is deterministic per seed and key, and stays in range', () => {
    const a = Rng.from(42, 'app', 'x');
    const b = Rng.from(42, 'app', 'x');
    const c = Rng.from(43, 'app', 'x');
    const seqA = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(seqA);
    expect(seqA.every((x) => x >= 0 && x < 1)).toBe(true);
    const r = new Rng(1);
    for (let i = 0; i < 1000; i++) {
      const n = r.int(3, 5);
      expect(n >= 3 && n <= 5 && Number.isInteger(n)).toBe(true);
    }
    expect(hashString('app-00001')).not.toBe(hashString('app-00002'));
    expect(() => r.pick([])).toThrow();
  });
});

describe('data helpers', () => {
  it('formats days as ISO with offset at midnight UTC', () => {
    expect(formatDay(Date.UTC(2025, 2, 31))).toBe('2025-03-31T00:00:00+00:00');
  });

  it('gives about 1 app in 20 no reviews and never more than the max', () => {
    let zero = 0;
    for (let i = 0; i < 2000; i++) {
      const n = seededReviewCount(42, `app-${i}`, 120);
      expect(n >= 0 && n <= 120).toBe(true);
      if (n === 0) zero++;
    }
    expect(zero).toBeGreaterThan(60);
    expect(zero).toBeLessThan(150);
    expect(seededReviewCount(42, 'x', 0)).toBe(0);
  });
});

describe('BodyCache', () => {
  it('evicts the least recently used bodies beyond its size', () => {
    const cache = new BodyCache(10);
    cache.set('a', '1234');
    cache.set('b', '1234');
    expect(cache.get('a')).toBe('1234');
    cache.set('c', '1234');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('1234');
    expect(cache.get('c')).toBe('1234');
    cache.set('huge', 'x'.repeat(11));
    expect(cache.get('huge')).toBeUndefined();
    cache.clear();
    expect(cache.count).toBe(0);
  });
});
