import { describe, expect, it } from 'vitest';
import { formatCount, plural, starsLabel } from '../../src/util/plural.js';

describe('counted nouns', () => {
  it('groups thousands whatever the machine locale', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1204)).toBe('1,204');
    expect(formatCount(1234567)).toBe('1,234,567');
  });

  it('uses the singular for exactly one, the plural otherwise', () => {
    expect(plural(1, 'review')).toBe('1 review');
    expect(plural(0, 'review')).toBe('0 reviews');
    expect(plural(1204, 'review')).toBe('1,204 reviews');
    expect(plural(2, 'reply', 'replies')).toBe('2 replies');
    expect(starsLabel(1)).toBe('1 star');
    expect(starsLabel(4)).toBe('4 stars');
  });
});
