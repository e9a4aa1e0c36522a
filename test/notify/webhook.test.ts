import { createHmac, timingSafeEqual } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Alert } from '../../src/alerts/types.js';
import { openChannel } from '../../src/notify/channel-types.js';
import { type Attempt, deliver } from '../../src/notify/deliver.js';
import type { ChannelSender } from '../../src/notify/sender.js';
import { WEBHOOK_EVENT_OF_KIND } from '../../src/render/index.js';
import { ensureApp } from '../../src/store/apps.js';
import { deliveryStates, hold, insertAlert, insertDelivery } from '../../src/store/outbox.js';
import { reviewAlert } from '../fixtures/alert-sample.js';
import { sampleDigestData } from '../fixtures/digest-sample.js';
import { EVERY_KIND } from '../fixtures/every-kind.js';
import { runCli } from '../helpers/cli.js';
import { captureLog, tempDir, tempStore } from '../helpers/index.js';
import {
  type ReceivedCall,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

const CURRENT = `whsec_${Buffer.from('the current key, 32 bytes long!!').toString('base64')}`;
const OLD = `whsec_${Buffer.from('the old key, being rotated out..').toString('base64')}`;

/**
 * A receiver's check, written from the Standard Webhooks specification alone: the key is the base64
 * after `whsec_`; the signed content is `id.timestamp.body`; the header holds space-separated
 * `v1,<base64>` signatures, any of which may match; the timestamp must be within five minutes.
 */
function verify(call: ReceivedCall, secret: string, now = Date.now()): boolean {
  const id = String(call.headers['webhook-id'] ?? '');
  const timestamp = String(call.headers['webhook-timestamp'] ?? '');
  const header = String(call.headers['webhook-signature'] ?? '');
  if (!id || !/^\d+$/.test(timestamp) || Math.abs(now / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.split('_')[1] ?? '', 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${call.raw}`).digest();
  return header.split(' ').some((signature) => {
    const [version, value] = signature.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

function webhook(secret: string | string[] = CURRENT): ChannelSender {
  const sender = openChannel(
    'hooks',
    { type: 'webhook', url: receiver.url, secret, minPriority: 'low' },
    {
      source: { inboxUrl: 'https://reviews.example.com' },
    },
  );
  if (typeof sender === 'string') throw new Error(sender);
  return sender;
}

describe('the webhook channel', () => {
  it('posts every alert kind and the digest, each signed so that a receiver of the spec accepts it', async () => {
    receiver.calls.length = 0;
    const sender = webhook([CURRENT, OLD]);
    const alerts = Object.values(EVERY_KIND) as Alert[];
    for (const [i, alert] of alerts.entries())
      await sender.send({ kind: 'single', alert }, { deliveryIds: [100 + i], createdAt: new Date() });
    await sender.sendDigest(sampleDigestData(), {});
    await sender.sendTest(new Date());

    expect(receiver.calls.map((c) => c.body.type)).toEqual([
      ...alerts.map((a) => WEBHOOK_EVENT_OF_KIND[a.kind]),
      'digest.weekly',
      'webhook.test',
    ]);
    for (const call of receiver.calls) {
      // Either secret verifies it (rotation); a wrong one, or a tampered body, does not.
      expect(verify(call, CURRENT)).toBe(true);
      expect(verify(call, OLD)).toBe(true);
      expect(
        verify(call, `whsec_${Buffer.from('somebody else entirely, 32 bytes').toString('base64')}`),
      ).toBe(false);
      expect(verify({ ...call, raw: call.raw.replace('"data":{', '"data":{"x":1,') }, CURRENT)).toBe(false);
      expect(call.headers['content-type']).toBe('application/json');
      expect(call.body.id).toBe(call.headers['webhook-id']);
      expect(Number.isNaN(Date.parse(call.body.createdAt))).toBe(false);
    }
    // One message, one id; different messages, different ids.
    expect(new Set(receiver.calls.map((c) => c.headers['webhook-id'])).size).toBe(receiver.calls.length);
  });

  describe('through the outbox', () => {
    let store: ReturnType<typeof tempStore>;
    beforeEach(() => {
      store = tempStore();
      receiver.calls.length = 0;
    });
    afterEach(() => store.cleanup());

    function oneDelivery(n = 1): number {
      ensureApp(store.db, 'my-app');
      const alertId = insertAlert(store.db, {
        appHandle: 'my-app',
        kind: 'review',
        dedupeKey: `review-${n}`,
        priority: 'high',
        createdAt: new Date(),
        payload: reviewAlert({ reviewId: `r${n}` }),
      });
      return insertDelivery(store.db, {
        alertId: alertId as number,
        channel: 'hooks',
        appHandle: 'my-app',
        groupKey: null,
        at: new Date(),
      });
    }

    function deps(log = captureLog()) {
      return {
        store,
        senders: new Map([['hooks', webhook()]]),
        throttle: { max: 100, windowMs: 60_000 },
        logger: log.logger,
        now: () => new Date(),
      };
    }
    const attempt = (n: number): Attempt => ({ number: n, last: false, started: n });

    it("retries with the same webhook-id, after the receiver's Retry-After", async () => {
      const id = oneDelivery();
      receiver.respond({ status: 503, retryAfter: '7' }, { status: 500 });
      const d = deps();
      expect(await deliver(d, { deliveryIds: [id] }, attempt(1))).toEqual({ status: 'wait', waitMs: 7_000 });
      expect(await deliver(d, { deliveryIds: [id] }, attempt(2))).toMatchObject({
        status: 'failed',
        final: false,
      });
      expect(await deliver(d, { deliveryIds: [id] }, attempt(3))).toMatchObject({ status: 'sent' });
      expect(receiver.calls).toHaveLength(3);
      const ids = new Set(receiver.calls.map((c) => c.headers['webhook-id']));
      expect(ids.size).toBe(1);
      // The event's time is the alert's, whatever the attempt.
      expect(new Set(receiver.calls.map((c) => c.body.createdAt)).size).toBe(1);
      for (const call of receiver.calls) expect(verify(call, CURRENT)).toBe(true);
      expect(deliveryStates(store.db, [id])[0]?.status).toBe('sent');
    });

    it('retries a flush with the same webhook-id, and sends an alert held meanwhile later, once', async () => {
      const first = oneDelivery(1);
      hold(store.db, [first], new Date());
      receiver.respond({ status: 500 });
      const d = deps();
      const flush = { flush: { channel: 'hooks', app: 'my-app', id: 'held~hooks~my-app-1' } };
      expect(await deliver(d, flush, attempt(1))).toMatchObject({ status: 'failed', final: false });
      // Held while the flush waits for its retry.
      const later = oneDelivery(2);
      hold(store.db, [later], new Date());
      expect(await deliver(d, flush, attempt(2))).toMatchObject({ status: 'sent', deliveries: 1 });
      expect(receiver.calls).toHaveLength(2);
      expect(receiver.calls[1]?.headers['webhook-id']).toBe(receiver.calls[0]?.headers['webhook-id']);
      expect(deliveryStates(store.db, [first, later]).map((s) => s.status)).toEqual(['sent', 'held']);
      // The next flush (the sweep queues it) carries it, under an id of its own.
      const next = { flush: { channel: 'hooks', app: 'my-app', id: 'held~hooks~my-app-2' } };
      expect(await deliver(d, next, attempt(1))).toMatchObject({ status: 'sent', deliveries: 1 });
      expect(receiver.calls[2]?.headers['webhook-id']).not.toBe(receiver.calls[0]?.headers['webhook-id']);
      const reviewIds = receiver.calls.map((c) =>
        (c.body.data.reviews as Array<{ id: string }>).map((r) => r.id),
      );
      expect(reviewIds).toEqual([['r1'], ['r1'], ['r2']]);
      expect(deliveryStates(store.db, [first, later]).map((s) => s.status)).toEqual(['sent', 'sent']);
    });

    it('waits five minutes at most for a Retry-After, and says so', async () => {
      const id = oneDelivery();
      receiver.respond({ status: 429, retryAfter: '86400' });
      const log = captureLog();
      expect(await deliver(deps(log), { deliveryIds: [id] }, attempt(1))).toEqual({
        status: 'wait',
        waitMs: 300_000,
      });
      expect(log.text()).toContain('Retry-After is waited 5 minutes at most');
    });

    it("fails for good on a receiver's 4xx, saying so, with no URL or secret in the error or the log", async () => {
      const id = oneDelivery();
      receiver.respond({ status: 401 });
      const log = captureLog();
      const outcome = await deliver(deps(log), { deliveryIds: [id] }, attempt(1));
      expect(outcome).toMatchObject({ status: 'failed', final: true });
      const state = deliveryStates(store.db, [id])[0];
      expect(state?.status).toBe('failed');
      expect(state?.lastError).toMatch(/channel "hooks": the webhook receiver answered HTTP 401: it refused/);
      for (const text of [state?.lastError ?? '', log.text()]) {
        expect(text).not.toContain('tok-in-the-path');
        expect(text).not.toContain('127.0.0.1');
        expect(text).not.toContain(CURRENT.slice(6, 20));
      }
    });

    it('fails for good on a redirect, sends nothing where it points, and names neither address', async () => {
      const id = oneDelivery();
      const elsewhere = await startWebhookReceiver();
      try {
        receiver.respond({ status: 307, location: elsewhere.url });
        const log = captureLog();
        const outcome = await deliver(deps(log), { deliveryIds: [id] }, attempt(1));
        expect(outcome).toMatchObject({ status: 'failed', final: true });
        const state = deliveryStates(store.db, [id])[0];
        expect(state?.status).toBe('failed');
        expect(state?.lastError).toBe(
          'channel "hooks": the webhook receiver answered HTTP 307, a redirect, which is not followed: put the address it redirects to in the channel\'s config, then `reviewwatch notify retry`',
        );
        expect(log.text()).not.toContain('127.0.0.1');
        expect(elsewhere.calls).toHaveLength(0);
      } finally {
        await elsewhere.close();
      }
    });

    it('says the receiver is unreachable without naming its URL', async () => {
      const id = oneDelivery();
      const gone = await startWebhookReceiver();
      await gone.close();
      const sender = openChannel(
        'hooks',
        { type: 'webhook', url: gone.url, secret: CURRENT, minPriority: 'low' },
        {
          source: {},
        },
      );
      if (typeof sender === 'string') throw new Error(sender);
      const outcome = await deliver(
        { ...deps(), senders: new Map([['hooks', sender]]) },
        { deliveryIds: [id] },
        attempt(1),
      );
      expect(outcome).toMatchObject({ status: 'failed', final: false });
      const error = outcome.status === 'failed' ? outcome.error : '';
      expect(error).toMatch(/unreachable \(ECONNREFUSED\)/);
      expect(error).not.toContain('tok-in-the-path');
    });
  });
});

describe('reviewwatch notify test NAME', () => {
  it('sends a signed test message to a webhook channel', async () => {
    receiver.calls.length = 0;
    const dir = tempDir();
    const config = join(dir.dir, 'reviewwatch.yaml');
    writeFileSync(
      config,
      [
        'catalog: { baseUrl: "http://127.0.0.1:9", apiKey: "k" }',
        'apps: [{ handle: my-app, notify: [hooks] }]',
        'channels:',
        '  hooks: { type: webhook, url: "${HOOK_URL}", secret: "${HOOK_SECRET}" }',
      ].join('\n'),
    );
    const env = {
      REVIEWWATCH_CONFIG: config,
      DATABASE_PATH: join(dir.dir, 'reviewwatch.db'),
      HOOK_URL: receiver.url,
      HOOK_SECRET: CURRENT,
    };
    try {
      const result = await runCli(['notify', 'test', 'hooks'], env);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Sent a test message to "hooks" (webhook)');
      expect(receiver.calls.map((c) => c.body.type)).toEqual(['webhook.test']);
      expect(verify(receiver.calls[0] as ReceivedCall, CURRENT)).toBe(true);
    } finally {
      dir.cleanup();
    }
  }, 60_000);
});
