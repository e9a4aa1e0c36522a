/**
 * Digest periods: weeks (Monday 00:00 to the next Monday 00:00) in the digest's time zone. All the
 * calendar arithmetic is luxon's in that zone, so a week across a DST change is 167 or 169 hours long and
 * still starts and ends at local midnight, and nothing depends on the time zone of the machine.
 */
import { DateTime, IANAZone } from 'luxon';

export interface DigestPeriod {
  /** Inclusive. */
  start: Date;
  /** Exclusive. */
  end: Date;
  /** The IANA zone the period's days are counted in. */
  timezone: string;
  /** The days it covers, as a reader says them: "16–22 Nov 2026". */
  label: string;
}

/** Month names are English whatever the machine's locale: the rest of the digest is. */
const LOCALE = 'en';

/**
 * Throws a clear Error unless `timezone` is an IANA zone name ("Europe/Berlin", "UTC"). "local" and
 * "system" are refused on purpose: a digest's weeks must not move with the machine it runs on.
 */
export function assertTimezone(timezone: string): void {
  if (!IANAZone.isValidZone(timezone)) {
    throw new Error(
      `Unknown time zone "${timezone}": use an IANA zone name such as "Europe/Berlin" or "UTC".`,
    );
  }
}

function inZone(at: Date, timezone: string): DateTime {
  assertTimezone(timezone);
  if (Number.isNaN(at.getTime())) throw new Error('Invalid date: a digest period needs a real date.');
  return DateTime.fromJSDate(at, { zone: timezone }).setLocale(LOCALE);
}

/** The last day a period covers: the day of the last instant before its (exclusive) end. */
function lastDay(start: DateTime, end: DateTime): DateTime {
  const last = end.minus({ milliseconds: 1 });
  return last < start ? start : last;
}

function formatDays(start: DateTime, end: DateTime, withYear: boolean): string {
  const last = lastDay(start, end);
  const year = (d: DateTime) => (withYear ? ` ${d.toFormat('yyyy')}` : '');
  if (start.hasSame(last, 'day')) return `${start.toFormat('d LLL')}${year(start)}`;
  if (start.hasSame(last, 'month')) return `${start.toFormat('d')}–${last.toFormat('d LLL')}${year(last)}`;
  if (start.hasSame(last, 'year')) {
    return `${start.toFormat('d LLL')} – ${last.toFormat('d LLL')}${year(last)}`;
  }
  return `${start.toFormat('d LLL')}${year(start)} – ${last.toFormat('d LLL')}${year(last)}`;
}

function periodOf(start: DateTime, end: DateTime, timezone: string): DigestPeriod {
  return { start: start.toJSDate(), end: end.toJSDate(), timezone, label: formatDays(start, end, true) };
}

/** The week (Monday 00:00 to the next Monday 00:00 in `timezone`) that holds `at`. */
export function weekContaining(at: Date, timezone: string): DigestPeriod {
  // luxon's weeks are ISO weeks: they start on Monday regardless of locale.
  const start = inZone(at, timezone).startOf('week');
  return periodOf(start, start.plus({ weeks: 1 }), timezone);
}

/** The last complete week before `at`: what a digest sent on Monday morning reports on. */
export function previousWeek(at: Date, timezone: string): DigestPeriod {
  const thisWeek = inZone(at, timezone).startOf('week');
  return periodOf(thisWeek.minus({ weeks: 1 }), thisWeek, timezone);
}

/** An arbitrary period (`--since`/`--until`): `since` inclusive, `until` exclusive. */
export function periodBetween(since: Date, until: Date, timezone: string): DigestPeriod {
  const start = inZone(since, timezone);
  const end = inZone(until, timezone);
  if (!(start < end)) {
    throw new Error(`A digest period must end after it starts (${start.toISO()} to ${end.toISO()}).`);
  }
  return periodOf(start, end, timezone);
}

/** The label without the year, for subjects: "16–22 Nov". */
export function shortLabel(period: DigestPeriod): string {
  return formatDays(inZone(period.start, period.timezone), inZone(period.end, period.timezone), false);
}

/**
 * An instant as an ISO date-time with the zone's offset, always `±hh:mm` (never `Z`), so the same period
 * always gives the same string: `2026-11-16T00:00:00.000+01:00`.
 */
export function isoInZone(at: Date, timezone: string): string {
  return inZone(at, timezone).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSSZZ");
}

/** The key of a period in digest_runs.period_start. */
export function periodKey(period: DigestPeriod): string {
  return isoInZone(period.start, period.timezone);
}

/** The same for digest_runs.period_end. */
export function periodEndKey(period: DigestPeriod): string {
  return isoInZone(period.end, period.timezone);
}

/** `at` moved by whole weeks in `timezone` (a negative count goes back): local midnight stays midnight. */
export function shiftWeeks(at: Date, weeks: number, timezone: string): Date {
  return inZone(at, timezone).plus({ weeks }).toJSDate();
}

/**
 * The `count` weeks ending at the period's end, oldest first: the last one ends where the period ends.
 * For a weekly digest the last one is the period itself.
 */
export function trailingWeeks(period: DigestPeriod, count: number): DigestPeriod[] {
  const end = inZone(period.end, period.timezone);
  const weeks: DigestPeriod[] = [];
  for (let back = count; back >= 1; back -= 1) {
    weeks.push(periodOf(end.minus({ weeks: back }), end.minus({ weeks: back - 1 }), period.timezone));
  }
  return weeks;
}

/** How many weeks the period spans, counted in calendar days of its zone (a DST week is 1, not 0.994). */
export function periodWeeks(period: DigestPeriod): number {
  const start = inZone(period.start, period.timezone);
  return inZone(period.end, period.timezone).diff(start, 'days').days / 7;
}

/**
 * The first calendar day (`yyyy-MM-dd`) in `timezone` whose midnight is at or after `at`: a review dated
 * by day alone belongs to a period when its day's midnight does, so for a period from Monday 00:00 to
 * the next Monday 00:00 this is simply the local date of each end.
 */
export function firstDayFrom(at: Date, timezone: string): string {
  const local = inZone(at, timezone);
  const midnight = local.startOf('day');
  return (midnight < local ? midnight.plus({ days: 1 }) : midnight).toFormat('yyyy-MM-dd');
}

/** Midnight of a calendar day (`yyyy-MM-dd`) in `timezone`. */
export function localMidnight(day: string, timezone: string): Date {
  assertTimezone(timezone);
  return DateTime.fromISO(day, { zone: timezone }).startOf('day').toJSDate();
}
