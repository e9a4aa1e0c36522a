import { describe, expect, it } from 'vitest';
import {
  periodBetween,
  periodEndKey,
  periodKey,
  previousWeek,
  shortLabel,
  weekContaining,
} from '../../src/digest/index.js';
import { periodWeeks, trailingWeeks } from '../../src/digest/period.js';

const BERLIN = 'Europe/Berlin';
const utc = (iso: string) => new Date(iso);

describe('weekContaining', () => {
  it('runs from Monday 00:00 to the next Monday 00:00 in the zone', () => {
    const week = weekContaining(utc('2026-11-18T12:00:00Z'), BERLIN);
    expect(week.start).toEqual(utc('2026-11-15T23:00:00Z'));
    expect(week.end).toEqual(utc('2026-11-22T23:00:00Z'));
    expect(week.label).toBe('16–22 Nov 2026');
    expect(week.timezone).toBe(BERLIN);
  });

  it('puts Sunday 23:30 local (22:30 UTC) in its week and Monday 00:30 local in the next', () => {
    const sunday = weekContaining(utc('2026-11-22T22:30:00Z'), BERLIN);
    const monday = weekContaining(utc('2026-11-22T23:30:00Z'), BERLIN);
    expect(sunday.label).toBe('16–22 Nov 2026');
    expect(monday.label).toBe('23–29 Nov 2026');
    expect(monday.start).toEqual(sunday.end);
    // In UTC both instants are on Sunday: the zone decides.
    expect(weekContaining(utc('2026-11-22T23:30:00Z'), 'UTC').label).toBe('16–22 Nov 2026');
  });

  it('keeps local midnights across daylight saving changes: 169 hours in autumn, 167 in spring', () => {
    const autumn = weekContaining(utc('2026-10-25T12:00:00Z'), BERLIN);
    expect(periodKey(autumn)).toBe('2026-10-19T00:00:00.000+02:00');
    expect(periodEndKey(autumn)).toBe('2026-10-26T00:00:00.000+01:00');
    expect(autumn.end.getTime() - autumn.start.getTime()).toBe(169 * 3_600_000);
    const spring = weekContaining(utc('2026-03-29T12:00:00Z'), BERLIN);
    expect(spring.label).toBe('23–29 Mar 2026');
    expect(spring.end.getTime() - spring.start.getTime()).toBe(167 * 3_600_000);
    expect(periodWeeks(autumn)).toBe(1);
    expect(periodWeeks(spring)).toBe(1);
  });

  it('refuses a zone that is not an IANA zone, with the name in the message', () => {
    expect(() => weekContaining(new Date(), 'Mars/Phobos')).toThrow(/Unknown time zone "Mars\/Phobos"/);
    // The machine's zone would move the weeks with wherever the worker runs.
    expect(() => weekContaining(new Date(), 'local')).toThrow(/Unknown time zone/);
    expect(() => weekContaining(new Date('nonsense'), 'UTC')).toThrow(/Invalid date/);
  });
});

describe('previousWeek', () => {
  it('is the last complete week: what a Monday-morning digest reports', () => {
    const week = previousWeek(utc('2026-11-23T08:00:00Z'), BERLIN);
    expect(week.label).toBe('16–22 Nov 2026');
    expect(periodKey(week)).toBe('2026-11-16T00:00:00.000+01:00');
  });

  it('at exactly Monday 00:00 is the week that just ended', () => {
    expect(previousWeek(utc('2026-11-22T23:00:00Z'), BERLIN).label).toBe('16–22 Nov 2026');
    expect(previousWeek(utc('2026-11-22T22:59:59Z'), BERLIN).label).toBe('9–15 Nov 2026');
  });

  it('labels weeks across months and years', () => {
    expect(previousWeek(utc('2026-12-07T08:00:00Z'), 'UTC').label).toBe('30 Nov – 6 Dec 2026');
    const newYear = previousWeek(utc('2027-01-04T08:00:00Z'), 'UTC');
    expect(newYear.label).toBe('28 Dec 2026 – 3 Jan 2027');
    expect(shortLabel(newYear)).toBe('28 Dec – 3 Jan');
  });
});

describe('periodBetween', () => {
  it('takes since inclusive and until exclusive, labelled by the days it covers in the zone', () => {
    const period = periodBetween(utc('2026-11-01T00:00:00Z'), utc('2026-11-15T00:00:00Z'), 'UTC');
    expect(period.label).toBe('1–14 Nov 2026');
    expect(shortLabel(period)).toBe('1–14 Nov');
    expect(periodWeeks(period)).toBe(2);
  });

  it('refuses a period that ends before it starts', () => {
    expect(() => periodBetween(utc('2026-11-15T00:00:00Z'), utc('2026-11-01T00:00:00Z'), 'UTC')).toThrow(
      /must end after it starts/,
    );
  });
});

describe('periodKey', () => {
  it('writes the offset even in UTC, so one period always has one key', () => {
    expect(periodKey(previousWeek(utc('2026-11-23T08:00:00Z'), 'UTC'))).toBe('2026-11-16T00:00:00.000+00:00');
  });
});

describe('trailingWeeks', () => {
  it('gives contiguous weeks, oldest first, the last ending at the period end', () => {
    const period = previousWeek(utc('2026-11-23T08:00:00Z'), BERLIN);
    const weeks = trailingWeeks(period, 8);
    expect(weeks).toHaveLength(8);
    expect(weeks.at(-1)?.start).toEqual(period.start);
    expect(weeks.at(-1)?.end).toEqual(period.end);
    for (let i = 1; i < weeks.length; i += 1) expect(weeks[i]?.start).toEqual(weeks[i - 1]?.end);
    expect(weeks[0]?.label).toBe('28 Sep – 4 Oct 2026');
  });
});
