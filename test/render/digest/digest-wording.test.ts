import { describe, expect, it } from 'vitest';
import type { FailedAlert } from '../../../src/digest/types.js';
import { failedAbout } from '../../../src/render/digest/digest-wording.js';

function failed(kind: FailedAlert['kind'], payload: unknown): FailedAlert {
  return {
    kind,
    priority: 'high',
    channel: 'support',
    reason: '404',
    payload,
    alertAt: new Date('2026-11-18T09:00:00Z'),
    inPeriod: true,
  };
}

describe('failedAbout', () => {
  it('says what the alert was about from the payload it was raised with', () => {
    expect(failedAbout(failed('review', { review: { rating: 1, reviewer: "Jane's Shop" } }))).toBe(
      "1-star review by Jane's Shop",
    );
    expect(failedAbout(failed('rating-drop', { from: { average: 4.661 }, to: { average: 4.6 } }))).toBe(
      '4.66 → 4.60',
    );
    expect(failedAbout(failed('incident', { reviews: [{}, {}, {}, {}] }))).toBe('4 low reviews');
  });

  it('words a payload an earlier version wrote, or a broken one, vaguely instead of failing', () => {
    expect(failedAbout(failed('review', null))).toBe('a review by Anonymous');
    expect(failedAbout(failed('review', { review: { rating: '1', reviewer: 7 } }))).toBe(
      'a review by Anonymous',
    );
    expect(failedAbout(failed('rating-drop', { from: {} }))).toBe('rating drop');
    expect(failedAbout(failed('incident', 'not an object'))).toBe('several low reviews');
  });

  it('keeps an untrusted reviewer name on one line and short', () => {
    const about = failedAbout(
      failed('review', { review: { rating: 2, reviewer: `Evil\r\nShop${'x'.repeat(500)}` } }),
    );
    expect(about).toMatch(/^2-star review by Evil Shopx+…$/);
    expect(about.length).toBeLessThanOrEqual(200);
  });
});
