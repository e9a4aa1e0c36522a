import { describe, expect, it } from 'vitest';
import { describeTenure, parseTimeUsingApp } from '../../src/scoring/index.js';

describe('parseTimeUsingApp', () => {
  it.each([
    ['2 months using the app', 60, '2 months'],
    ['About 2 hours using the app', 2 / 24, 'less than a day'],
    ['Over 1 year using the app', 456.25, 'over 1 year'],
    ['1 day using the app', 1, '1 day'],
    ['3 weeks using the app', 21, '3 weeks'],
    ['Almost 2 years using the app', 638.75, 'over 1 year'],
    ['Less than a minute using the app', 0.5 / 1_440, 'less than a day'],
    ['a month using the app', 30, '1 month'],
    ['An hour using the app', 1 / 24, 'less than a day'],
    ['5 years using the app', 1_825, '5 years'],
    ['About 1 year using the app', 365, '1 year'],
  ])('reads %j as %f days (%s)', (text, days, words) => {
    const parsed = parseTimeUsingApp(text);
    expect(parsed).toBeCloseTo(days, 6);
    expect(describeTenure(parsed as number)).toBe(words);
  });

  it('ignores case, extra whitespace and a missing suffix', () => {
    expect(parseTimeUsingApp('OVER 1 YEAR USING THE APP')).toBeCloseTo(456.25);
    expect(parseTimeUsingApp('  over   1  year\tusing the app ')).toBeCloseTo(456.25);
    expect(parseTimeUsingApp('3 weeks')).toBe(21);
  });

  it('orders the qualifiers as a reader would', () => {
    const days = (text: string) => parseTimeUsingApp(`${text} using the app`) as number;
    expect(days('Almost 2 years')).toBeLessThan(days('2 years'));
    expect(days('2 years')).toBeLessThan(days('Over 2 years'));
    expect(days('Over 1 year')).toBeGreaterThanOrEqual(365);
    expect(days('Less than a minute')).toBeLessThan(days('1 minute'));
  });

  it.each([
    '',
    '   ',
    'recently',
    '2 fortnights using the app',
    'using the app',
    'Invalid Date',
    'many years',
  ])('gives undefined for %j', (text) => {
    expect(parseTimeUsingApp(text)).toBeUndefined();
  });
});

describe('describeTenure', () => {
  it.each([
    [0, 'less than a day'],
    [0.99, 'less than a day'],
    [1, '1 day'],
    [6, '6 days'],
    [7, '1 week'],
    [29, '4 weeks'],
    [30, '1 month'],
    [90, '3 months'],
    [364, '12 months'],
    [365, '1 year'],
    [400, 'over 1 year'],
    [730, '2 years'],
    [1_000, 'over 2 years'],
    [Number.NaN, 'less than a day'],
  ])('describes %f days as %s', (days, words) => {
    expect(describeTenure(days)).toBe(words);
  });
});
