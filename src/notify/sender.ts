import type { Notification } from '../alerts/types.js';

/** One configured channel: sends a notification or throws a DeliveryError. */
export interface ChannelSender {
  readonly name: string;
  readonly type: string;
  send(notification: Notification): Promise<void>;
  close?(): void;
}
