import { describe, expect, it } from 'vitest';
import { comparePrices, monthlyCost, parsePrice } from '../../src/market/index.js';

describe('price strings', () => {
  it('parses the forms the marketplace shows', () => {
    expect(parsePrice('$19.99/month')).toMatchObject({
      kind: 'parsed',
      amount: { value: 19.99, currency: 'USD', period: 'month' },
      free: null,
      trialDays: null,
    });
    expect(parsePrice('$199/year')).toMatchObject({ amount: { value: 199, period: 'year' } });
    expect(parsePrice('$1,299 per year')).toMatchObject({ amount: { value: 1299, period: 'year' } });
    expect(parsePrice('€9 / mo')).toMatchObject({ amount: { value: 9, currency: 'EUR', period: 'month' } });
    expect(parsePrice('$5 one-time charge')).toMatchObject({ amount: { value: 5, period: 'once' } });
    expect(parsePrice('Free')).toMatchObject({ kind: 'parsed', amount: null, free: 'free' });
    expect(parsePrice('Free plan available')).toMatchObject({ free: 'free plan available' });
    expect(parsePrice('Free to install')).toMatchObject({ free: 'free to install' });
    expect(parsePrice('7-day free trial')).toMatchObject({ amount: null, free: null, trialDays: 7 });
    expect(parsePrice('$29/month, 14-day free trial')).toMatchObject({
      amount: { value: 29, period: 'month' },
      trialDays: 14,
    });
  });

  it('keeps anything else as text', () => {
    for (const raw of ['Contact us', '$0.01 per order', '$29/month<script>', '¥500/month', '']) {
      expect(parsePrice(raw)).toEqual({ kind: 'text', text: raw });
    }
  });

  it('compares by monthly cost within one currency', () => {
    expect(monthlyCost(parsePrice('$240/year'))).toBe(20);
    expect(comparePrices(parsePrice('$19.99/month'), parsePrice('$14.99/month'))).toEqual({
      kind: 'down',
      minor: false,
    });
    expect(comparePrices(parsePrice('Free'), parsePrice('$5/month'))).toEqual({ kind: 'up', minor: false });
    expect(comparePrices(parsePrice('$30/month'), parsePrice('$300/year'))).toEqual({
      kind: 'down',
      minor: false,
    });
    // A cent is not news: recorded as minor.
    expect(comparePrices(parsePrice('$19.99/month'), parsePrice('$20/month'))).toEqual({
      kind: 'up',
      minor: true,
    });
    expect(comparePrices(parsePrice('$9.99/month'), parsePrice('$9.99 / month'))).toEqual({ kind: 'same' });
    expect(comparePrices(parsePrice('$20/month'), parsePrice('€20/month'))).toEqual({ kind: 'changed' });
    expect(comparePrices(parsePrice('$10/month'), parsePrice('$120/year'))).toEqual({ kind: 'changed' });
    expect(comparePrices(parsePrice('Contact us'), parsePrice('Call us'))).toEqual({ kind: 'changed' });
    expect(comparePrices(parsePrice('Contact us'), parsePrice('contact  US'))).toEqual({ kind: 'same' });
    expect(
      comparePrices(parsePrice('$9/month, 7-day free trial'), parsePrice('$9/month, 14-day free trial')),
    ).toEqual({
      kind: 'trial',
      from: 7,
      to: 14,
    });
  });
});
