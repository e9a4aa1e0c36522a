import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Notification } from '../../src/alerts/types.js';
import { type Attempt, type DeliverDeps, deliver, MAX_CHANNEL_WAITS } from '../../src/notify/deliver.js';
import { DeliveryError } from '../../src/notify/errors.js';
import type { ChannelSender } from '../../src/notify/sender.js';
import { ensureApp } from '../../src/store/apps.js';
import { deliveryStates, insertAlert, insertDelivery } from '../../src/store/outbox.js';
import { reviewAlert } from '../fixtures/alert-sample.js';
import { captureLog, tempStore } from '../helpers/index.js';

let store: ReturnType<typeof tempStore>;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

/** A channel that always answers "429, wait a second". */
const limited: ChannelSender = {
  name: 'support',
  type: 'slack',
  async send(_notification: Notification) {
    throw new DeliveryError('support', 'Slack answered 429', { retryAfterMs: 1_000 });
  },
  sendDigest: async () => '',
  async sendTest() {},
};

function oneDelivery(n = 1): number {
  ensureApp(store.db, 'shop');
  const alertId = insertAlert(store.db, {
    appHandle: 'shop',
    kind: 'review',
    dedupeKey: `review-${n}`,
    priority: 'high',
    createdAt: new Date(),
    payload: reviewAlert({ reviewId: `r${n}`, content: `Review ${n}` }),
  });
  return insertDelivery(store.db, {
    alertId: alertId as number,
    channel: 'support',
    appHandle: 'shop',
    groupKey: null,
    at: new Date(),
  });
}

describe('deliver', () => {
  it("honours a channel's Retry-After, but not forever: then it fails for good, saying why", async () => {
    const id = oneDelivery();
    const deps = {
      store,
      senders: new Map([['support', limited]]),
      throttle: { max: 100, windowMs: 60_000 },
      logger: captureLog().logger,
      now: () => new Date(),
    };
    const attempt = (started: number): Attempt => ({ number: 1, last: false, started });
    expect(await deliver(deps, { deliveryIds: [id] }, attempt(1))).toEqual({ status: 'wait', waitMs: 1_000 });
    expect(deliveryStates(store.db, [id])[0]?.status).toBe('pending');
    const outcome = await deliver(deps, { deliveryIds: [id] }, attempt(MAX_CHANNEL_WAITS));
    expect(outcome).toMatchObject({ status: 'failed', final: true });
    expect(deliveryStates(store.db, [id])[0]).toMatchObject({
      status: 'failed',
      lastError: expect.stringMatching(/429 \(still asked to wait after 50 tries\)/),
    });
  });
});

describe('deliver under the throttle', () => {
  const MINUTE = 60_000;
  const first: Attempt = { number: 1, last: false, started: 1 };
  const flush = { flush: { channel: 'support', app: 'shop', id: 'f1' } };

  /** One message a minute at most an hour, held alerts out within 10 minutes; the clock moves by hand. */
  function setup() {
    let clock = Date.parse('2026-11-16T10:00:00Z');
    const sent: Notification[] = [];
    const slack: ChannelSender = {
      name: 'support',
      type: 'slack',
      async send(notification) {
        sent.push(notification);
      },
      sendDigest: async () => '',
      async sendTest() {},
    };
    const deps: DeliverDeps = {
      store,
      senders: new Map([['support', slack]]),
      throttle: { max: 1, windowMs: 60 * MINUTE, maxHoldMs: 10 * MINUTE },
      logger: captureLog().logger,
      now: () => new Date(clock),
    };
    return { deps, sent, advance: (ms: number) => (clock += ms) };
  }

  it('sends what it held as one message maxHold after the first was held, though the window is full', async () => {
    const { deps, sent, advance } = setup();
    expect(await deliver(deps, { deliveryIds: [oneDelivery(1)] }, first)).toMatchObject({ status: 'sent' });
    advance(MINUTE);
    const second = oneDelivery(2);
    // The window frees in 59 minutes; maxHold comes first.
    expect(await deliver(deps, { deliveryIds: [second] }, first)).toMatchObject({
      status: 'held',
      waitMs: 10 * MINUTE,
    });
    advance(4 * MINUTE);
    const third = oneDelivery(3);
    // Held later, but the flush is due when the FIRST held one reaches maxHold.
    expect(await deliver(deps, { deliveryIds: [third] }, first)).toMatchObject({
      status: 'held',
      waitMs: 6 * MINUTE,
    });
    advance(5 * MINUTE);
    expect(await deliver(deps, flush, first)).toEqual({ status: 'wait', waitMs: MINUTE });
    expect(sent).toHaveLength(1);

    advance(MINUTE);
    expect(await deliver(deps, flush, first)).toMatchObject({ status: 'sent', deliveries: 2 });
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatchObject({ kind: 'group' });
    expect(JSON.stringify(sent[1])).toContain('Review 2');
    expect(JSON.stringify(sent[1])).toContain('Review 3');
    expect(deliveryStates(store.db, [second, third]).map((d) => d.status)).toEqual(['sent', 'sent']);
  });

  it('waits only for the window when it frees before maxHold', async () => {
    const { deps, advance } = setup();
    await deliver(deps, { deliveryIds: [oneDelivery(1)] }, first);
    advance(55 * MINUTE);
    expect(await deliver(deps, { deliveryIds: [oneDelivery(2)] }, first)).toMatchObject({
      status: 'held',
      waitMs: 5 * MINUTE,
    });
    // Past the window's end (the message that filled it counts until then, inclusive).
    advance(5 * MINUTE + 1);
    expect(await deliver(deps, flush, first)).toMatchObject({ status: 'sent', deliveries: 1 });
  });

  it('without maxHold, holds until the window frees', async () => {
    const { deps, advance } = setup();
    const windowOnly = { ...deps, throttle: { max: 1, windowMs: 60 * MINUTE } };
    await deliver(windowOnly, { deliveryIds: [oneDelivery(1)] }, first);
    advance(MINUTE);
    expect(await deliver(windowOnly, { deliveryIds: [oneDelivery(2)] }, first)).toMatchObject({
      status: 'held',
      waitMs: 59 * MINUTE,
    });
    advance(30 * MINUTE);
    expect(await deliver(windowOnly, flush, first)).toEqual({ status: 'wait', waitMs: 29 * MINUTE });
  });
});
