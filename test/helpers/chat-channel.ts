/**
 * What the teams and discord tests share: an outbox with one delivery to a chat channel, `deliver()`'s
 * dependencies with a captured log, and a config file naming both types for the CLI.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChannelType } from '../../src/kinds.js';
import { openChannel } from '../../src/notify/channel-types.js';
import { type Attempt, deliver } from '../../src/notify/deliver.js';
import type { ChannelSender } from '../../src/notify/sender.js';
import { ensureApp } from '../../src/store/apps.js';
import { openStore, type Store } from '../../src/store/db.js';
import { insertAlert, insertDelivery } from '../../src/store/outbox.js';
import { reviewAlert } from '../fixtures/alert-sample.js';
import { captureLog } from './index.js';

export function chatChannel(type: Extract<ChannelType, 'teams' | 'discord'>, url: string): ChannelSender {
  const sender = openChannel(
    'chat',
    { type, webhookUrl: url, minPriority: 'low' },
    { source: { inboxUrl: 'https://reviews.example.com' } },
  );
  if (typeof sender === 'string') throw new Error(sender);
  return sender;
}

export function oneDelivery(store: Store): number {
  ensureApp(store.db, 'my-app');
  const alertId = insertAlert(store.db, {
    appHandle: 'my-app',
    kind: 'review',
    dedupeKey: 'review-1',
    priority: 'high',
    createdAt: new Date(),
    payload: reviewAlert({ reviewId: 'r1' }),
  });
  return insertDelivery(store.db, {
    alertId: alertId as number,
    channel: 'chat',
    appHandle: 'my-app',
    groupKey: null,
    at: new Date(),
  });
}

export function deliverDeps(store: Store, sender: ChannelSender, log = captureLog()) {
  return {
    store,
    senders: new Map([['chat', sender]]),
    throttle: { max: 100, windowMs: 60_000 },
    logger: log.logger,
    now: () => new Date(),
  };
}

export const attempt = (n: number): Attempt => ({ number: n, last: false, started: n });

/**
 * A delivery to `chat` refused for good by the receiver (which must answer a 4xx next), recorded in the
 * database at `path`, as `status` then reads it.
 */
export async function refusedDelivery(path: string, sender: ChannelSender): Promise<void> {
  const store = openStore(path);
  try {
    const id = oneDelivery(store);
    const outcome = await deliver(deliverDeps(store, sender), { deliveryIds: [id] }, attempt(1));
    if (outcome.status !== 'failed') throw new Error(`the delivery was ${outcome.status}, not refused`);
  } finally {
    store.close();
  }
}

/** A config with a channel of `type` named `chat`, its URL from CHAT_URL. */
export function chatConfig(dir: string, type: 'teams' | 'discord'): string {
  const config = join(dir, 'reviewwatch.yaml');
  writeFileSync(
    config,
    [
      'catalog: { baseUrl: "http://127.0.0.1:9", apiKey: "k" }',
      'apps: [{ handle: my-app, notify: [chat] }]',
      'channels:',
      `  chat: { type: ${type}, webhookUrl: "\${CHAT_URL}", minPriority: medium }`,
    ].join('\n'),
  );
  return config;
}
