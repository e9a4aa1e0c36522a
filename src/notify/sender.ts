import type { Notification } from '../alerts/types.js';
import type { DataSource, EmailMessage, SlackMessage } from '../render/index.js';

/** One configured channel: sends a notification or throws a DeliveryError. */
export interface ChannelSender {
  readonly name: string;
  readonly type: 'slack' | 'email' | 'console';
  send(notification: Notification): Promise<void>;
  /** Sends content already rendered for this channel type (the digest). */
  post(message: SlackMessage | EmailMessage): Promise<void>;
  close?(): void;
}

/** The data-source part of a sender's options: what every message it renders is told. */
export function sourceOf(options: DataSource): DataSource {
  return {
    simulated: options.simulated === true,
    ...(options.inboxUrl ? { inboxUrl: options.inboxUrl } : {}),
  };
}
