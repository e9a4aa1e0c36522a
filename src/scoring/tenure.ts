/**
 * "Time using the app" as the marketplace words it ("2 months using the app", "Over 1 year using the
 * app"). The phrasing is that of date-fns' formatDistance plus weeks, so the qualifiers carry meaning:
 * "over 1 year" is more than "1 year", "almost 2 years" less than "2 years".
 */

import { plural } from '../util/plural.js';

const DAYS_PER_UNIT: Record<string, number> = {
  second: 1 / 86_400,
  minute: 1 / 1_440,
  hour: 1 / 24,
  day: 1,
  week: 7,
  month: 30,
  year: 365,
};

/**
 * Shifts in units of the amount: enough to order "almost 2 years" < "2 years" < "over 2 years" without
 * pretending to know the exact date.
 */
const QUALIFIER_SHIFT: Record<string, number> = {
  about: 0,
  around: 0,
  approximately: 0,
  over: 0.25,
  'more than': 0.25,
  almost: -0.25,
  nearly: -0.25,
  'less than': -0.5,
  under: -0.5,
};

const SUFFIX = /\s*(?:of\s+)?using\s+(?:the\s+)?app\.?$/;
const PHRASE = new RegExp(
  `^(?:(${Object.keys(QUALIFIER_SHIFT).join('|')})\\s+)?(\\d+(?:\\.\\d+)?|an?|one)\\s+(${Object.keys(DAYS_PER_UNIT).join('|')})s?$`,
);

/** Days of use, or undefined when the text is empty or not in a known form. */
export function parseTimeUsingApp(text: string): number | undefined {
  const phrase = text.trim().toLowerCase().replace(/\s+/g, ' ').replace(SUFFIX, '');
  const match = PHRASE.exec(phrase);
  if (!match) return undefined;
  const [, qualifier, amountText, unit] = match;
  const amount = amountText === undefined || /^(?:an?|one)$/.test(amountText) ? 1 : Number(amountText);
  const shift = qualifier === undefined ? 0 : (QUALIFIER_SHIFT[qualifier] ?? 0);
  const perUnit = DAYS_PER_UNIT[unit ?? ''];
  if (perUnit === undefined || !Number.isFinite(amount)) return undefined;
  return Math.max(0, amount + shift) * perUnit;
}

/** A tenure in words for a reason or a message: "less than a day", "3 weeks", "over 1 year". */
export function describeTenure(days: number): string {
  // The epsilon keeps 60 days from reading as "1 month" through floating-point division.
  const whole = (unitDays: number) => Math.floor(days / unitDays + 1e-9);
  if (!Number.isFinite(days) || days < 1) return 'less than a day';
  if (days < 7) return plural(whole(1), 'day');
  if (days < 30) return plural(whole(7), 'week');
  if (days < 365) return plural(whole(30), 'month');
  const years = whole(365);
  return days - years * 365 < 1 ? plural(years, 'year') : `over ${plural(years, 'year')}`;
}
