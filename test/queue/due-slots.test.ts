import { describe, expect, it } from 'vitest';
import { CATCH_UP_MS, dueSlots, latestSlot } from '../../src/queue/due-slots.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('due slots, shared by the reconciliations and the market reads', () => {
  const now = Date.UTC(2026, 5, 15, 12);
  const slot = latestSlot('cat', DAY, now);

  it('a subject read since its moment is not due; one read before it is, within the catch-up time', () => {
    const at = (t: number, last: number) => dueSlots(['cat'], new Map([['cat', last]]), DAY, t);
    expect(at(slot + 1_000, slot + 500)).toEqual([]);
    expect(at(slot + 1_000, slot - 1)).toEqual([{ subject: 'cat', slot }]);
    expect(at(slot + CATCH_UP_MS + 1_000, slot - 1)).toEqual([]);
  });

  it('a subject never read waits for its moment, unless it is read at once (the market)', () => {
    const never = new Map<string, number>();
    const late = slot + CATCH_UP_MS + 1_000;
    expect(dueSlots(['cat'], never, DAY, late)).toEqual([]);
    expect(dueSlots(['cat'], never, DAY, late, { firstAtOnce: true })).toEqual([{ subject: 'cat', slot }]);
  });

  it('a catch-up time longer than the period is cut to the period', () => {
    const every = 10 * 60_000;
    const s = latestSlot('cat', every, now);
    expect(dueSlots(['cat'], new Map([['cat', s - 1]]), every, s + every - 1)).toEqual([
      { subject: 'cat', slot: s },
    ]);
  });
});
