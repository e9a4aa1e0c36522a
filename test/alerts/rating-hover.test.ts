import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alertPolicyOf } from '../../src/alerts/policy.js';
import { raiseAlerts } from '../../src/alerts/raise.js';
import { type DropState, evaluateRating, type StarCounts } from '../../src/alerts/rating-drop.js';
import type { RatingDropAlert } from '../../src/alerts/types.js';
import { summarize } from '../../src/catalog/summary.js';
import { parseConfig } from '../../src/config/index.js';
import { dropExplanation } from '../../src/render/alert/alert-wording.js';
import { ensureApp } from '../../src/store/apps.js';
import { openStore, type Store } from '../../src/store/db.js';
import { insertPollRun } from '../../src/store/polls.js';
import { dropsOverMonth, HOVERING_APP, monthOfPolls, saidOverMonth } from '../fixtures/rating-month.js';
import { tempDir } from '../helpers/index.js';
import { storeReview } from '../helpers/reviews.js';

const HOUR = 3_600_000;
const rule = { minDrop: 0.05, displayed: true, recovery: 0.05, recoveryHoldMs: 24 * HOUR, maxRating: 2 };
const zero = [0, 0, 0, 0, 0] as const;
const none = () => ({
  newByStars: zero,
  newReviews: 0,
  rerated: 0,
  storedDelta: zero,
  removed: 0,
  unread: 0,
});

/** The drops a series of averages raises, the first being the baseline, one poll every `stepMs`. */
function dropsOf(averages: number[], stepMs = 60_000): Array<{ from: number; to: number }> {
  let state: DropState | undefined;
  const drops: Array<{ from: number; to: number }> = [];
  averages.forEach((average, i) => {
    const result = evaluateRating(state, { average, count: 1000 + i, at: new Date(i * stepMs) }, rule, none);
    if (result.next) state = result.next;
    if (result.drop) drops.push({ from: result.drop.from.average, to: result.drop.to.average });
  });
  return drops;
}

describe('rating-drop hysteresis', () => {
  it('alerts once for a displayed rating flipping 4.4 ↔ 4.3 at each review, however long it hovers', () => {
    const hovering = [4.36, ...Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 4.34 : 4.36))];
    expect(dropsOf(hovering)).toEqual([{ from: 4.36, to: 4.34 }]);
  });

  it('alerts the same fall again only after the rating recovered by the margin for a day', () => {
    // Back to 4.38 is not a recovery (the low 4.34 plus 0.05 is 4.39); back to 4.40 for one poll is a
    // bounce, not a recovery either.
    expect(dropsOf([4.36, 4.34, 4.38, 4.34, 4.36, 4.34])).toHaveLength(1);
    expect(dropsOf([4.36, 4.34, 4.4, 4.36, 4.34])).toHaveLength(1);
    // At 4.40 for 24 hours (polls an hour apart), then below: the same fall, alerted again.
    const day = Array.from({ length: 25 }, () => 4.4);
    expect(dropsOf([4.36, 4.34, ...day, 4.34], HOUR)).toEqual([
      { from: 4.36, to: 4.34 },
      { from: 4.4, to: 4.34 },
    ]);
    // A day at 4.40 but for one poll at 4.36 in the middle: the wait starts over.
    const broken = [...day.slice(0, 12), 4.36, ...day.slice(0, 12)];
    expect(dropsOf([4.36, 4.34, ...broken, 4.34], HOUR)).toHaveLength(1);
  });

  it("counts the average's minDrop from the lowest level alerted on, not from each wobble", () => {
    // 4.44 alerted; wobbles up by less than the recovery margin and down by minDrop from each top are
    // quiet; 4.39, minDrop under the low alerted on, is a new low.
    expect(dropsOf([4.5, 4.44, 4.48, 4.43, 4.47, 4.42, 4.39])).toEqual([
      { from: 4.5, to: 4.44 },
      { from: 4.44, to: 4.39 },
    ]);
  });

  it('stays quiet while a fallen rating recovers through the boundaries above it', () => {
    // Alerted at 4.19; on its way back it hovers at 4.25 (displayed 4.2 ↔ 4.3), which is no fall.
    const recovering = [4.3, 4.19, 4.22, 4.24, 4.26, 4.248, 4.255, 4.246, 4.27, 4.249];
    expect(dropsOf(recovering)).toEqual([{ from: 4.3, to: 4.19 }]);
  });

  it('gives a simulated month hovering at 4.35 at most one alert per real fall', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const hover = monthOfPolls({ ...HOVERING_APP, seed });
      expect(dropsOverMonth(hover, rule).length, `seed ${seed}: hovering only`).toBeLessThanOrEqual(1);
      // 25 one-star reviews between two polls on day 12: one fall, one alert.
      const sudden = monthOfPolls({ ...HOVERING_APP, seed, falls: [{ day: 12, ones: 25, at: 'once' }] });
      expect(dropsOverMonth(sudden, rule), `seed ${seed}: one sudden fall`).toHaveLength(1);
      // 60 over a day: the average falls by minDrop three times over; alerts come only on that day.
      const badDay = monthOfPolls({ ...HOVERING_APP, seed, falls: [{ day: 12, ones: 60 }] });
      const drops = dropsOverMonth(badDay, rule);
      expect(drops.length, `seed ${seed}: a bad day`).toBeLessThanOrEqual(3);
      const day12 = Date.UTC(2026, 0, 13);
      for (const d of drops) expect(d.at.getTime(), `seed ${seed}`).toBeGreaterThan(day12);
      for (const d of drops) expect(d.at.getTime(), `seed ${seed}`).toBeLessThanOrEqual(day12 + 86_400_000);
    }
  });
});

describe('rating-drop messages over a month', () => {
  const DAY = 86_400_000;
  const messages = (said: ReturnType<typeof saidOverMonth>) => said.filter((s) => s.how === 'message');

  it('sends at most one message for a small app declining review by review, the rest as lines', () => {
    for (let seed = 1; seed <= 20; seed++) {
      // 24 ratings at 4.58, one 4- or 5-star review a day; five one-star reviews one by one on day 10.
      const polls = monthOfPolls({
        ...HOVERING_APP,
        seed,
        start: [1, 0, 1, 4, 18],
        mix: [0, 0, 0, 0.3, 0.7],
        reviewsPerDay: 1,
        falls: [{ day: 10, ones: 5 }],
      });
      const said = saidOverMonth(polls, rule);
      const day10 = Date.UTC(2026, 0, 11);
      const fall = said.filter((s) => s.at.getTime() >= day10 && s.at.getTime() < day10 + 2 * DAY);
      // One message (none when a fall earlier in the month was still unrecovered: then all are lines).
      expect(messages(fall).length, `seed ${seed}`).toBeLessThanOrEqual(1);
      expect(fall.filter((s) => s.how === 'line').length, `seed ${seed}`).toBeGreaterThanOrEqual(3);
    }
  });

  it('sends one message for a fall on a big app, and none for 25 one-star reviews said in their alerts', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const big = monthOfPolls({
        ...HOVERING_APP,
        seed,
        start: [150, 75, 125, 550, 4100],
        mix: [0.03, 0.015, 0.025, 0.11, 0.82],
        reviewsPerDay: 20,
        falls: [{ day: 12, ones: 400 }],
      });
      expect(messages(saidOverMonth(big, rule)), `seed ${seed}: under 4.5`).toHaveLength(1);
      const sudden = monthOfPolls({ ...HOVERING_APP, seed, falls: [{ day: 12, ones: 25, at: 'once' }] });
      const said = saidOverMonth(sudden, rule);
      expect(
        said.some((s) => s.at.getTime() === Date.UTC(2026, 0, 13, 0, 15)),
        `seed ${seed}`,
      ).toBe(true);
      expect(messages(said).length, `seed ${seed}`).toBeLessThanOrEqual(1);
    }
  });
});

describe('rating-drop state in SQLite', () => {
  let cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.reverse()) cleanup();
    cleanups = [];
  });

  const config = parseConfig(
    {
      apps: [{ handle: 'shop', notify: ['team'] }],
      channels: { team: { type: 'console' } },
      alerts: { lowRating: { maxRating: 2 } },
    },
    {},
  );

  function openAt(path: string): Store {
    const store = openStore(path);
    cleanups.push(() => store.close());
    return store;
  }

  let minute = 0;
  /** One poll of `shop` whose summary shows these counts; the drop alert it raised, if any. */
  function poll(store: Store, stars: StarCounts, baseline = false): RatingDropAlert | undefined {
    const at = new Date(Date.UTC(2026, 0, 1) + ++minute * 60_000);
    const pollRunId = insertPollRun(store.db, {
      appHandle: 'shop',
      startedAt: at,
      finishedAt: at,
      status: baseline ? 'baseline' : 'ok',
      requests: 1,
      pages: 1,
      newReviews: 0,
      editedReviews: 0,
    });
    const summary = summarize(stars.map((count, i) => ({ label: String(i + 1), count })));
    const raised = raiseAlerts(store.db, alertPolicyOf(config), {
      handle: 'shop',
      pollRunId,
      baseline,
      newReviews: [],
      edits: [],
      summary,
      at,
    });
    if (!raised.kinds.includes('rating-drop')) return undefined;
    const row = store.db.$client
      .prepare<[number], { payload: string }>(
        `select payload from alerts where kind = 'rating-drop' and poll_run_id = ?`,
      )
      .get(pollRunId);
    return row ? (JSON.parse(row.payload) as RatingDropAlert) : undefined;
  }

  it('keeps the hysteresis across a restart, and explains a fall no stored review made', () => {
    const path = join(tempDir().dir, 'reviewwatch.db');
    let store = openAt(path);
    ensureApp(store.db, 'shop');
    // 1,000 reviews averaging 4.350 (displayed 4.4); one one-star rating more: 4.347 (4.3).
    const above: StarCounts = [62, 30, 50, 212, 646];
    const below: StarCounts = [63, 30, 50, 212, 646];
    expect(poll(store, above, true)).toBeUndefined();
    const first = poll(store, below);
    expect(first?.to.average).toBeCloseTo(4.347, 3);
    // No review is stored at all: the one-star rating moved the summary by itself.
    expect(first?.explanation.unstored?.stars).toEqual([1, 0, 0, 0, 0]);
    expect(first && dropExplanation(first)).toBe(
      'The summary moved without a review we store: 1 one-star rating without text, about 100% of the drop',
    );

    store.close();
    cleanups.pop();
    store = openAt(path);
    // Hovering at the boundary after the restart (4.351 and 4.347): the alert is remembered, nothing goes out.
    for (let i = 0; i < 10; i++) {
      expect(poll(store, i % 2 === 0 ? [63, 30, 50, 210, 652] : below), `flip ${i}`).toBeUndefined();
    }
    // Back at 4.40 (recovered by the margin) for one poll, then below 4.35 again: a bounce, quiet.
    expect(poll(store, [63, 30, 50, 200, 730])).toBeUndefined();
    expect(poll(store, [123, 30, 50, 200, 730])).toBeUndefined();
    // Back at 4.40 and still there a day later (across a restart): recovered; the next fall alerts.
    expect(poll(store, [63, 30, 50, 200, 730])).toBeUndefined();
    store.close();
    cleanups.pop();
    store = openAt(path);
    minute += 24 * 60;
    expect(poll(store, [63, 30, 50, 200, 730])).toBeUndefined();
    const again = poll(store, [123, 30, 50, 200, 730]);
    expect(again?.from.average).toBeCloseTo(4.402, 3);
    expect(again?.explanation.unstored?.stars).toEqual([60, 0, 0, 0, 0]);
  });

  /** A review as a poll stores it, first seen at `at` (epoch ms) by the poll run of that moment. */
  let reviews = 0;
  function storeAt(store: Store, rating: number, at: number, pollRunId: number): number {
    const id = `r${++reviews}`;
    return storeReview(store.db, {
      appHandle: 'shop',
      identity: id,
      reviewer: 'Shop',
      location: 'Germany',
      rating,
      content: 'text',
      createdAt: new Date(at),
      appName: 'Shop',
      firstSeenAt: new Date(at),
      pollRunId,
    });
  }

  it('tells what the stored reviews explain from what moved the summary without one', () => {
    const store = openAt(join(tempDir().dir, 'reviewwatch.db'));
    ensureApp(store.db, 'shop');
    // 1,000 reviews at 4.35; two five-star reviews among them are stored.
    expect(poll(store, [62, 30, 50, 212, 646], true)).toBeUndefined();
    const baseline = store.db.$client
      .prepare<[], { id: number; at: number }>(
        'select id, finished_at as at from poll_runs order by id limit 1',
      )
      .get();
    if (!baseline) throw new Error('no baseline poll run');
    const rerated = storeAt(store, 5, baseline.at, baseline.id);
    const removed = storeAt(store, 5, baseline.at, baseline.id);
    // Since: a new 3-star review, the first five-star review re-rated to 2 stars, the second one
    // removed from the listing, and two one-star ratings the listing shows no review for.
    const later = baseline.at + 30_000;
    storeAt(store, 3, later, baseline.id);
    store.db.$client
      .prepare(
        `insert into review_edits (review_row_id, app_handle, old_rating, new_rating, old_content, new_content,
         old_created_date, new_created_date, detected_at, poll_run_id) values (?, 'shop', 5, 2, '', '', '', '', ?, ?)`,
      )
      .run(rerated, later, baseline.id);
    store.db.$client.prepare('update reviews set rating = 2 where id = ?').run(rerated);
    store.db.$client.prepare('update reviews set removed_at = ? where id = ?').run(later, removed);
    const drop = poll(store, [64, 31, 51, 212, 644]);
    expect(drop?.explanation).toMatchObject({
      newLowReviews: 0,
      vanished: 1,
      rerated: 1,
      newBelowAverage: { count: 1, ratings: [3] },
      unstored: { stars: [2, 0, 0, 0, 0] },
    });
    expect(drop && dropExplanation(drop)).toMatch(
      /^1 new 3-star review, below the former average of 4\.35, accounts for about \d+% of the drop; 1 review vanished \(archived or removed\); 1 review was re-rated down; the summary moved without a review we store: 2 one-star ratings without text, about \d+% of the drop$/,
    );
  });
});
