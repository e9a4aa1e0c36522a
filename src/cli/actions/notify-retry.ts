import { messagesOf } from '../../alerts/messages.js';
import { NOTIFY_QUEUE, type NotifyJobData } from '../../queue/names.js';
import { enqueueMessages } from '../../queue/notify-worker.js';
import type { CommandResources } from '../../root/resources.js';
import { retryFailed } from '../../store/outbox.js';

/**
 * `reviewwatch notify retry`: puts the deliveries that failed for good (of one channel, or all) back in
 * the outbox and on the notify queue, grouped into messages as they were; a running `start` sends them.
 */
export async function retryFailedNotifications(
  resources: CommandResources,
  channel: string | undefined,
): Promise<{ deliveries: number; messages: number }> {
  const refs = retryFailed(resources.store.db, channel);
  if (refs.length === 0) return { deliveries: 0, messages: 0 };
  const messages = messagesOf(refs);
  await enqueueMessages(await resources.queue<NotifyJobData>(NOTIFY_QUEUE), messages);
  return { deliveries: refs.length, messages: messages.length };
}
