import { createHash, randomUUID } from 'node:crypto';
import type { Notification } from '../alerts/types.js';
import type { DigestData } from '../digest/types.js';
import type { ChannelType } from '../kinds.js';
import type { ChannelRenderers, DataSource, DigestRenderOptions } from '../render/index.js';
import { notificationPriority, renderWith } from '../render/index.js';
import type { ChannelSender, SendContext, Transport } from './sender.js';

/**
 * The id of the message that carries these outbox deliveries: the same on every attempt (the deliveries
 * of a message and their time do not change between its retries), different for any other set. The time
 * keeps a database started afresh, whose ids begin again at 1, from reusing an id a receiver has seen.
 * Hashed, so a group of twenty deliveries still has a short id.
 */
export function messageIdOf(context: SendContext): string {
  const sorted = [...context.deliveryIds].sort((a, b) => a - b);
  const digest = createHash('sha256')
    .update(`${sorted.join(',')}@${context.createdAt.getTime()}`)
    .digest('hex')
    .slice(0, 20);
  return `msg_d${sorted[0] ?? 0}_${digest}`;
}

/** A channel made of its type's renderers and transport (notify/channel-types.ts builds them). */
export class RenderingChannel<M> implements ChannelSender {
  readonly name: string;
  readonly type: ChannelType;
  readonly #renderers: ChannelRenderers<M>;
  readonly #subjectOf: (message: M) => string;
  readonly #transport: Transport<M>;
  readonly #source: DataSource;

  constructor(
    name: string,
    type: ChannelType,
    parts: { renderers: ChannelRenderers<M>; subjectOf: (message: M) => string; transport: Transport<M> },
    source: DataSource,
  ) {
    this.name = name;
    this.type = type;
    this.#renderers = parts.renderers;
    this.#subjectOf = parts.subjectOf;
    this.#transport = parts.transport;
    this.#source = source;
  }

  send(notification: Notification, context?: SendContext): Promise<void> {
    const message = renderWith(this.#renderers, notification, this.#source);
    // Without outbox deliveries (a direct call) there is no retry to recognise: any unique id will do.
    const id = context ? messageIdOf(context) : `msg_${randomUUID()}`;
    return this.#transport.post(message, {
      id,
      at: context?.createdAt ?? new Date(),
      priority: notificationPriority(notification),
    });
  }

  async sendDigest(data: DigestData, options: DigestRenderOptions): Promise<string> {
    const message = this.#renderers.digest(data, options);
    // One digest per period and channel (digest_runs): the period names it.
    const id = `msg_digest_${data.period.start.toISOString().slice(0, 10)}`;
    await this.#transport.post(message, { id, at: data.period.end, priority: 'low' });
    return this.#subjectOf(message);
  }

  sendTest(at: Date): Promise<void> {
    const message = this.#renderers.test(this.name, at);
    return this.#transport.post(message, { id: `msg_test_${randomUUID()}`, at, priority: 'low' });
  }

  close(): void {
    this.#transport.close?.();
  }
}
