import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { deliveryStates } from '../../src/store/outbox.js';
import { deliveries } from '../../src/store/schema.js';
import { waitFor } from '../helpers/index.js';
import { type Harness, startHarness } from '../helpers/runtime.js';
import { type FakeSlack, startFakeSlack } from '../helpers/slack.js';

/** alerts.throttle.maxHold here: short, so the test is fast; the window is the default hour. */
const MAX_HOLD_MS = 3_000;
/** How late past maxHold the flush may arrive on a loaded CI box; far below the hour the window would take. */
const SLACK_MS = 30_000;
/** The Retry-After of the 429 that makes a flush wait: long enough to hold another alert meanwhile. */
const RETRY_AFTER_S = 12;

let sim: Simulator;
let slack: FakeSlack;
let h: Harness | undefined;

beforeAll(async () => {
  sim = await startSimulator({ appCount: 0, handles: ['shop'], maxReviewsPerApp: 30 });
});
afterAll(() => sim.close());
beforeEach(async () => {
  sim.controls.reset();
  slack = await startFakeSlack();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
  await slack.close();
});

/** A worker sending `shop`'s low reviews to `support`, one message an hour, held ones after MAX_HOLD_MS. */
async function startThrottled(): Promise<Harness> {
  h = await startHarness({
    catalog: { baseUrl: sim.url, apiKey: 'k', maxRequestsPerSecond: 200 },
    poll: { baselinePages: 3, backoff: '100ms' },
    apps: [{ handle: 'shop', notify: ['support'] }],
    alerts: {
      lowRating: { maxRating: 2 },
      throttle: { max: 1, window: '1h', maxHold: `${MAX_HOLD_MS}ms` },
      incident: { count: 50 },
      ratingDrop: { minDrop: 5, displayed: false },
    },
    channels: { support: { type: 'slack', webhookUrl: slack.url } },
  });
  return h;
}

it('sends held alerts as one grouped message within maxHold, though the throttle window is still full', async () => {
  const harness = await startThrottled();
  const db = harness.worker.store.db;
  await harness.poll(['shop']);
  expect(slack.calls).toHaveLength(0);

  sim.controls.addReviews('shop', [{ rating: 1, review_content: 'First' }]);
  const [firstPoll] = await harness.poll(['shop']);
  await harness.settle(firstPoll?.deliveryIds ?? []);
  expect(slack.accepted()).toHaveLength(1);

  // The window (one message an hour) is full: these two are held.
  sim.controls.addReviews('shop', [
    { rating: 1, review_content: 'Second' },
    { rating: 2, review_content: 'Third' },
  ]);
  const [secondPoll] = await harness.poll(['shop']);
  const ids = secondPoll?.deliveryIds ?? [];
  expect(ids).toHaveLength(2);
  await harness.settle(ids);
  const states = () => deliveryStates(db, ids).map((d) => d.status);
  const heldAt = Math.min(
    ...db
      .select({ id: deliveries.id, heldAt: deliveries.heldAt })
      .from(deliveries)
      .all()
      .filter((d) => ids.includes(d.id))
      .map((d) => d.heldAt?.getTime() ?? Number.NaN),
  );
  expect(heldAt).not.toBeNaN();

  await waitFor(
    () => states().every((s) => s === 'sent'),
    MAX_HOLD_MS + SLACK_MS,
    () => `the held alerts are ${states().join(', ')}`,
  );
  const messages = slack.accepted();
  expect(messages).toHaveLength(2);
  const grouped = messages[1];
  expect(JSON.stringify(grouped?.body)).toContain('Second');
  expect(JSON.stringify(grouped?.body)).toContain('Third');
  // Held first, then sent when maxHold ran out: not at once, and nowhere near the hour the window needs.
  const heldFor = (grouped?.at ?? 0) - heldAt;
  expect(heldFor).toBeGreaterThanOrEqual(MAX_HOLD_MS - 50);
  expect(heldFor).toBeLessThan(MAX_HOLD_MS + SLACK_MS);
  expect(harness.log.lines().some((line) => /held for alerts\.throttle\.maxHold/.test(line.msg))).toBe(true);
}, 60_000);

it('sends an alert held while a flush waits to retry in a flush of its own, not at the next sweep', async () => {
  const harness = await startThrottled();
  const db = harness.worker.store.db;
  const status = (ids: number[]) => deliveryStates(db, ids).map((d) => d.status);
  await harness.poll(['shop']);
  sim.controls.addReviews('shop', [{ rating: 1, review_content: 'First' }]);
  const [first] = await harness.poll(['shop']);
  await harness.settle(first?.deliveryIds ?? []);
  expect(slack.accepted()).toHaveLength(1);

  // The flush of the two held next is answered 429: it waits (this harness runs no sweep) and keeps its job id.
  slack.respond({ status: 429, retryAfter: RETRY_AFTER_S });
  sim.controls.addReviews('shop', [
    { rating: 1, review_content: 'Second' },
    { rating: 2, review_content: 'Third' },
  ]);
  const [second] = await harness.poll(['shop']);
  await harness.settle(second?.deliveryIds ?? []);
  await waitFor(
    () => slack.calls.length === 2,
    MAX_HOLD_MS + SLACK_MS,
    () => 'the flush never tried to send',
  );

  sim.controls.addReviews('shop', [{ rating: 1, review_content: 'Fourth' }]);
  const [third] = await harness.poll(['shop']);
  const fourth = third?.deliveryIds ?? [];
  await harness.settle(fourth);
  // Held while the flush waits: the case this test is about, so it is checked, not assumed.
  expect(status(fourth)).toEqual(['held']);
  expect(slack.accepted()).toHaveLength(1);

  await waitFor(
    () => status(fourth)[0] === 'sent',
    RETRY_AFTER_S * 1000 + SLACK_MS,
    () => `the alert held during the flush is ${status(fourth).join(', ')}`,
  );
  const bodies = slack.accepted().map((call) => JSON.stringify(call.body));
  expect(bodies).toHaveLength(3);
  expect(bodies[1]).toContain('Second');
  expect(bodies[1]).toContain('Third');
  expect(bodies[1]).not.toContain('Fourth');
  expect(bodies[2]).toContain('Fourth');
}, 90_000);
