import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Notification } from '../../src/alerts/types.js';
import { type Attempt, deliver, MAX_CHANNEL_WAITS } from '../../src/notify/deliver.js';
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
  async post() {},
};

function oneDelivery(): number {
  ensureApp(store.db, 'shop');
  const alertId = insertAlert(store.db, {
    appHandle: 'shop',
    kind: 'review',
    dedupeKey: 'review-1',
    priority: 'high',
    createdAt: new Date(),
    payload: reviewAlert(),
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
