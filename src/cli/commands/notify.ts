import { Command } from 'commander';
import { messagesOf } from '../../alerts/messages.js';
import type { Alert } from '../../alerts/types.js';
import { ExitCode, ReviewwatchError } from '../../errors.js';
import { NOTIFY_QUEUE, type NotifyJobData } from '../../queue/names.js';
import { enqueueMessages } from '../../queue/notify-worker.js';
import { testMessage } from '../../render/test-message.js';
import { withResources } from '../../resources.js';
import { failedDeliveries, retryFailed } from '../../store/outbox.js';
import { settingsFor } from '../context.js';

export function notifyCommand(): Command {
  const notify = new Command('notify').description('channels and the delivery outbox');

  notify
    .command('test')
    .description('send a test message to a channel')
    .requiredOption('--channel <name>', 'channel from the config')
    .action(async (options: { channel: string }, command: Command) => {
      const settings = settingsFor(command);
      if (!(options.channel in settings.config.channels)) {
        throw new ReviewwatchError(
          `no channel named "${options.channel}" (channels: ${Object.keys(settings.config.channels).join(', ') || 'none'})`,
          { exitCode: ExitCode.Usage },
        );
      }
      await withResources(settings, async (resources) => {
        const sender = resources.senders().get(options.channel);
        if (sender) await sender.post(testMessage(options.channel, sender.type, new Date()));
        process.stdout.write(`Sent a test message to "${options.channel}" (${sender?.type}).\n`);
      });
    });

  notify
    .command('retry')
    .description('send again the notifications that failed for good')
    .option('--channel <name>', 'only this channel')
    .action(async (options: { channel?: string }, command: Command) => {
      await withResources(settingsFor(command), async ({ store, queue }) => {
        const failed = failedDeliveries<Alert>(store.db).filter(
          (d) => !options.channel || d.channel === options.channel,
        );
        if (failed.length === 0) {
          process.stdout.write('No failed notifications.\n');
          return;
        }
        const notifyQueue = await queue<NotifyJobData>(NOTIFY_QUEUE);
        const messages = messagesOf(retryFailed(store.db, options.channel));
        await enqueueMessages(notifyQueue, messages);
        process.stdout.write(
          `Re-queued ${failed.length} failed notification(s) as ${messages.length} message(s); a running \`reviewwatch start\` delivers them.\n`,
        );
      });
    });
  return notify;
}
