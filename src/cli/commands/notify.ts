import { Command } from 'commander';
import { ExitCode, ReviewwatchError } from '../../errors.js';
import { withResources } from '../../root/resources.js';
import { retryFailedNotifications } from '../actions/notify-retry.js';
import { settingsFor } from '../context.js';

export function notifyCommand(): Command {
  const notify = new Command('notify').description('channels and the delivery outbox');

  notify
    .command('test')
    .description('send a test message to a channel')
    .argument('[name]', 'channel from the config (or --channel)')
    .option('--channel <name>', 'channel from the config')
    .action(async (name: string | undefined, options: { channel?: string }, command: Command) => {
      const settings = settingsFor(command);
      const channel = name ?? options.channel;
      const known = Object.keys(settings.config.channels).join(', ') || 'none';
      if (channel === undefined || !(channel in settings.config.channels)) {
        throw new ReviewwatchError(
          channel === undefined
            ? `name the channel to test: \`reviewwatch notify test NAME\` (channels: ${known})`
            : `no channel named "${channel}" (channels: ${known})`,
          { exitCode: ExitCode.Usage },
        );
      }
      await withResources(settings, async (resources) => {
        const sender = resources.senders().get(channel);
        if (sender) await sender.sendTest(new Date());
        process.stdout.write(`Sent a test message to "${channel}" (${sender?.type}).\n`);
      });
    });

  notify
    .command('retry')
    .description('send again the notifications that failed for good')
    .option('--channel <name>', 'only this channel')
    .action(async (options: { channel?: string }, command: Command) => {
      await withResources(settingsFor(command), async (resources) => {
        const retried = await retryFailedNotifications(resources, options.channel);
        process.stdout.write(
          retried.deliveries === 0
            ? 'No failed notifications.\n'
            : `Re-queued ${retried.deliveries} failed notification(s) as ${retried.messages} message(s); a running \`reviewwatch start\` delivers them.\n`,
        );
      });
    });
  return notify;
}
