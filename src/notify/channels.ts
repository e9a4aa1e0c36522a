import type { Config } from '../config/index.js';
import { ConfigError } from '../errors.js';
import type { DataSource } from '../render/index.js';
import { ConsoleSender } from './console.js';
import { EmailSender } from './email.js';
import type { ChannelSender } from './sender.js';
import { SlackSender } from './slack.js';

/**
 * One sender per configured channel. Email channels need SMTP_URL. `source` is where the alerts' data
 * comes from: with `simulated`, every alert each sender renders says so; with an inbox address
 * (`web.publicUrl`), every alert links to it.
 */
export function createSenders(
  config: Config,
  smtpUrl: string | undefined,
  source: DataSource = {},
): Map<string, ChannelSender> {
  // The config's inbox address unless the caller names its own.
  const inboxUrl = source.inboxUrl ?? config.web.publicUrl;
  const shared: DataSource = { simulated: source.simulated === true, ...(inboxUrl ? { inboxUrl } : {}) };
  const problems: string[] = [];
  const senders = new Map<string, ChannelSender>();
  for (const [name, channel] of Object.entries(config.channels)) {
    if (channel.type === 'slack') {
      senders.set(name, new SlackSender(name, channel.webhookUrl, shared));
    } else if (channel.type === 'console') {
      senders.set(name, new ConsoleSender(name, process.stdout, shared));
    } else if (!smtpUrl) {
      problems.push(`channels.${name}: an email channel needs SMTP_URL (e.g. smtp://user:pass@host:587)`);
    } else {
      senders.set(name, new EmailSender(name, { smtpUrl, from: channel.from, to: channel.to, ...shared }));
    }
  }
  if (problems.length > 0) throw new ConfigError('the environment', problems);
  return senders;
}
