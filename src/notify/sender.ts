import type { Notification } from '../alerts/types.js';
import type { DigestData } from '../digest/types.js';
import type { ChannelType } from '../kinds.js';
import type { DigestRenderOptions } from '../render/index.js';
import type { Priority } from '../scoring/priority.js';

/** Where a notification comes from in the outbox: what makes its message id stable across retries. */
export interface SendContext {
  deliveryIds: readonly number[];
  /** When the alerts were raised: the same on every retry. */
  createdAt: Date;
}

/**
 * One configured channel: renders what it is given for its type (notify/channel-types.ts) and sends it,
 * or throws a DeliveryError.
 */
export interface ChannelSender {
  readonly name: string;
  readonly type: ChannelType;
  send(notification: Notification, context?: SendContext): Promise<void>;
  /** Sends the weekly digest; resolves to the subject its run records. */
  sendDigest(data: DigestData, options: DigestRenderOptions): Promise<string>;
  /** What `reviewwatch notify test` sends. */
  sendTest(at: Date): Promise<void>;
  close?(): void;
}

/** What a transport is told about a message besides its content. */
export interface PostMeta {
  /** The same for every attempt at one message, so a receiver can tell a retry from a new message. */
  id: string;
  /** When what it reports happened (the first attempt's time for a message with no date of its own). */
  at: Date;
  /** The notification's priority; `low` for the digest and the test message. */
  priority: Priority;
}

/** A channel type's way out: posts a message already rendered for the type. */
export interface Transport<M> {
  post(message: M, meta: PostMeta): Promise<void>;
  close?(): void;
}
