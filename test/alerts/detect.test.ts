import { describe, expect, it } from 'vitest';
import { detectIncident } from '../../src/alerts/incident.js';
import { type DropState, displayed, evaluateRating } from '../../src/alerts/rating-drop.js';
import { routeAlert } from '../../src/alerts/route.js';

const at = (minutes: number) => new Date(Date.UTC(2026, 10, 21, 12, minutes));
const rule = { minDrop: 0.05, displayed: true, recovery: 0.05, recoveryHoldMs: 86_400_000, maxRating: 2 };
const zero = [0, 0, 0, 0, 0] as const;
const none = () => ({
  newByStars: zero,
  newReviews: 0,
  rerated: 0,
  storedDelta: zero,
  removed: 0,
  unread: 0,
});
/** A state as a poll of an app at this level leaves it, before any alert. */
const armed = (average: number, count: number, minutes: number): DropState => ({
  level: { average, count, at: at(minutes) },
  alerted: false,
});

describe('evaluateRating', () => {
  it('takes the first rating as the level, without an alert', () => {
    expect(evaluateRating(undefined, { average: 4.5, count: 100, at: at(0) }, rule, none)).toEqual({
      next: { level: { average: 4.5, count: 100, at: at(0) }, alerted: false, displayed: 4.5 },
    });
  });

  it('alerts once when the average falls by minDrop, then measures from the new level', () => {
    const result = evaluateRating(armed(4.5, 100, 0), { average: 4.44, count: 102, at: at(5) }, rule, () => ({
      ...none(),
      newByStars: [2, 0, 0, 0, 0],
      newReviews: 2,
    }));
    expect(result.drop?.from.average).toBe(4.5);
    expect(result.drop?.to.average).toBe(4.44);
    expect(result.next?.level.average).toBe(4.44);
    // Same rating on the next poll: quiet.
    const again = evaluateRating(result.next, { average: 4.44, count: 102, at: at(10) }, rule, none);
    expect(again.drop).toBeUndefined();
  });

  it('alerts when the displayed rating falls even by less than minDrop, unless told not to', () => {
    const level = armed(4.451, 1000, 0);
    const current = { average: 4.449, count: 1001, at: at(5) };
    expect(displayed(level.level.average)).toBe('4.5');
    expect(displayed(current.average)).toBe('4.4');
    expect(evaluateRating(level, current, rule, none).drop).toBeDefined();
    expect(evaluateRating(level, current, { ...rule, displayed: false }, none).drop).toBeUndefined();
  });

  it('re-arms after a recovery: the level follows the rating up', () => {
    const up = evaluateRating(armed(4.4, 100, 0), { average: 4.6, count: 110, at: at(5) }, rule, none);
    expect(up.next).toEqual({
      level: { average: 4.6, count: 110, at: at(5) },
      alerted: false,
      // 4.60 is the boundary under 4.6 (4.55) plus the recovery margin: the listing's 4.6 is held.
      displayed: 4.6,
    });
    expect(evaluateRating(up.next, { average: 4.5, count: 111, at: at(10) }, rule, none).drop).toBeDefined();
  });

  it('explains the drop: the share of new low reviews, vanished and re-rated reviews', () => {
    // 100 reviews at 4.5; two new 1-star reviews and one 5-star review vanished: 101 reviews.
    const average = (4.5 * 100 - 5 + 2) / 101;
    const result = evaluateRating(armed(4.5, 100, 0), { average, count: 101, at: at(5) }, rule, () => ({
      ...none(),
      newByStars: [2, 0, 0, 0, 0],
      newReviews: 2,
      rerated: 1,
    }));
    const explanation = result.drop?.explanation;
    expect(explanation?.newLowReviews).toBe(2);
    expect(explanation?.vanished).toBe(1);
    expect(explanation?.rerated).toBe(1);
    // Without the two 1-star reviews the average would be 445/99 = 4.495; it fell from 4.5 to 4.426:
    // they explain 93% of the fall, the vanished 5-star review the rest.
    expect(explanation?.lowReviewsShare).toBeCloseTo(0.93, 2);
  });

  it('ignores an incomplete summary', () => {
    expect(evaluateRating(armed(4.5, 1, 0), { average: null, count: null, at: at(1) }, rule, none)).toEqual(
      {},
    );
  });
});

describe('detectIncident', () => {
  const review = (rowId: number, minutesAgo: number, isNew = false) => ({
    rowId,
    firstSeenAt: new Date(at(0).getTime() - minutesAgo * 60_000),
    isNew,
  });
  const incidentRule = { count: 3, windowMs: 24 * 3_600_000 };

  it('raises for N low reviews within the window, one of them new', () => {
    const found = detectIncident(
      [review(3, 0, true), review(2, 60), review(1, 600)],
      undefined,
      incidentRule,
      at(0),
    );
    expect(found?.reviews.map((r) => r.rowId)).toEqual([3, 2, 1]);
    expect(found?.priority).toBe('high');
  });

  it('does not raise for reviews outside the window, without a new one, or again within the window', () => {
    expect(
      detectIncident([review(3, 0, true), review(2, 60), review(1, 25 * 60)], undefined, incidentRule, at(0)),
    ).toBeUndefined();
    expect(
      detectIncident([review(3, 1), review(2, 60), review(1, 600)], undefined, incidentRule, at(0)),
    ).toBeUndefined();
    const lastIncident = new Date(at(0).getTime() - 3_600_000);
    expect(
      detectIncident([review(4, 0, true), review(3, 1), review(2, 60)], lastIncident, incidentRule, at(0)),
    ).toBeUndefined();
  });
});

describe('routeAlert', () => {
  it('sends an alert to the channels whose minimum priority it reaches', () => {
    const channels = {
      ops: { minPriority: 'critical' as const },
      support: { minPriority: 'medium' as const },
    };
    expect(routeAlert('critical', ['ops', 'support'], channels)).toEqual(['ops', 'support']);
    expect(routeAlert('high', ['ops', 'support'], channels)).toEqual(['support']);
    expect(routeAlert('low', ['ops', 'support'], channels)).toEqual([]);
    expect(routeAlert('high', ['gone'], channels)).toEqual([]);
  });
});
