/**
 * Price strings of pricing plans, parsed where they follow a known form ("$19.99/month", "$199/year",
 * "Free", "Free plan available", "Free to install", "7-day free trial", or several of these joined by
 * commas) so that a change reads as up or down. Anything else stays text and is compared as text.
 */

export type Period = 'month' | 'year' | 'week' | 'day' | 'once';

export interface Amount {
  value: number;
  /** ISO code when the symbol or code says it (USD for "$"). */
  currency: string;
  period: Period;
}

export type Price =
  | {
      kind: 'parsed';
      /** The paid part; null for a free plan. */
      amount: Amount | null;
      /** "Free", "Free plan available", "Free to install", as written; null when none. */
      free: string | null;
      trialDays: number | null;
      /** The string as normalised (whitespace collapsed), for display. */
      text: string;
    }
  | { kind: 'text'; text: string };

const CURRENCY_SYMBOLS: Record<string, string> = {
  $: 'USD',
  us$: 'USD',
  usd: 'USD',
  '€': 'EUR',
  eur: 'EUR',
  '£': 'GBP',
  gbp: 'GBP',
};

const PERIODS: Record<string, Period> = {
  month: 'month',
  mo: 'month',
  monthly: 'month',
  year: 'year',
  yr: 'year',
  annum: 'year',
  yearly: 'year',
  annually: 'year',
  week: 'week',
  wk: 'week',
  day: 'day',
  'one-time': 'once',
  'one time': 'once',
  once: 'once',
};

const MONEY =
  /^(us\$|\$|€|£|usd|eur|gbp)?\s*(\d{1,9}(?:,\d{3})*(?:\.\d{1,2})?)\s*(usd|eur|gbp)?\s*(?:(?:\/|per|a|an|every)\s*(month|mo|year|yr|annum|week|wk|day)|(monthly|yearly|annually)|(one-time|one time|once)(?:\s+(?:charge|fee|payment))?)$/;
const TRIAL = /^(\d{1,3})[- ]?days?\s+free\s+trial$/;
const FREE = /^(free|free plan available|free to install|free plan)$/;

export function normalizeSpace(text: string): string {
  return text.replace(/[\s\u00a0\u200b]+/g, ' ').trim();
}

export function parsePrice(raw: string): Price {
  const text = normalizeSpace(raw);
  if (text === '') return { kind: 'text', text };
  const parts = text
    .toLowerCase()
    .split(/\s*(?:,(?!\d{3}\b)|\+|;|\band\b|\bwith\b)\s*/)
    .filter((p) => p !== '');
  let amount: Amount | null = null;
  let free: string | null = null;
  let trialDays: number | null = null;
  for (const part of parts) {
    const money = MONEY.exec(part);
    if (money !== null && amount === null) {
      const currency = CURRENCY_SYMBOLS[money[1] ?? money[3] ?? ''];
      const period = PERIODS[money[4] ?? money[5] ?? money[6] ?? ''];
      if (currency === undefined || period === undefined) return { kind: 'text', text };
      amount = { value: Number((money[2] as string).replace(/,/g, '')), currency, period };
      continue;
    }
    const trial = TRIAL.exec(part);
    if (trial !== null && trialDays === null) {
      trialDays = Number(trial[1]);
      continue;
    }
    if (FREE.test(part) && free === null) {
      free = part;
      continue;
    }
    return { kind: 'text', text };
  }
  return { kind: 'parsed', amount, free, trialDays, text };
}

/** What the plan costs a month, for comparing prices of different periods; null for one-time charges. */
export function monthlyCost(price: Price): number | null {
  if (price.kind !== 'parsed') return null;
  const a = price.amount;
  if (a === null) return price.free !== null ? 0 : null;
  switch (a.period) {
    case 'month':
      return a.value;
    case 'year':
      return a.value / 12;
    case 'week':
      return (a.value * 52) / 12;
    case 'day':
      return (a.value * 365) / 12;
    case 'once':
      return null;
  }
}

type Parsed = Extract<Price, { kind: 'parsed' }>;

/** The same price in other spelling: "$9.99/month" and "$9.99 / mo". */
function samePrice(a: Parsed, b: Parsed): boolean {
  return (
    a.free === b.free &&
    a.trialDays === b.trialDays &&
    a.amount?.value === b.amount?.value &&
    a.amount?.currency === b.amount?.currency &&
    a.amount?.period === b.amount?.period
  );
}

export type PriceMove =
  | { kind: 'same' }
  | {
      kind: 'up' | 'down' /** Too small to alert on: under 1% and under one unit of currency. */;
      minor: boolean;
    }
  | { kind: 'trial'; from: number | null; to: number | null }
  | { kind: 'changed' };

/**
 * How a plan's price moved. Parsed prices in one currency compare by their monthly cost (so "$20/month"
 * to "$200/year" is down); a change only of the free trial is a trial change; anything else that differs
 * (text on either side, another currency, a one-time charge) is "changed", compared as text.
 */
export function comparePrices(before: Price, after: Price): PriceMove {
  if (before.text.toLowerCase() === after.text.toLowerCase()) return { kind: 'same' };
  if (before.kind !== 'parsed' || after.kind !== 'parsed') return { kind: 'changed' };
  if (samePrice(before, after)) return { kind: 'same' };
  const a = monthlyCost(before);
  const b = monthlyCost(after);
  const sameCurrency =
    before.amount === null || after.amount === null || before.amount.currency === after.amount.currency;
  if (a !== null && b !== null && sameCurrency && a !== b) {
    const delta = Math.abs(b - a);
    return { kind: b > a ? 'up' : 'down', minor: delta < 1 && delta < a * 0.01 };
  }
  const samePaid =
    (before.amount === null && after.amount === null) ||
    (before.amount !== null &&
      after.amount !== null &&
      before.amount.value === after.amount.value &&
      before.amount.currency === after.amount.currency &&
      before.amount.period === after.amount.period);
  if (samePaid && before.trialDays !== after.trialDays && (before.free === null) === (after.free === null)) {
    return { kind: 'trial', from: before.trialDays, to: after.trialDays };
  }
  // Text on either side, another currency, a one-time charge, or the same cost in other words
  // ("$10/month" and "$120/year").
  return { kind: 'changed' };
}
