import type { Notification } from '../alerts/types.js';
import type { EmailMessage, SlackMessage } from '../render/index.js';

/** One configured channel: sends a notification or throws a DeliveryError. */
export interface ChannelSender {
  readonly name: string;
  readonly type: 'slack' | 'email' | 'console';
  send(notification: Notification): Promise<void>;
  /** Sends content already rendered for this channel type (the digest). */
  post(message: SlackMessage | EmailMessage): Promise<void>;
  close?(): void;
}
