import type { Config } from '../config/index.js';
import { ConfigError } from '../errors.js';
import { ConsoleSender } from './console.js';
import { EmailSender } from './email.js';
import type { ChannelSender } from './sender.js';
import { SlackSender } from './slack.js';

/** One sender per configured channel. Email channels need SMTP_URL. */
export function createSenders(config: Config, smtpUrl: string | undefined): Map<string, ChannelSender> {
  const problems: string[] = [];
  const senders = new Map<string, ChannelSender>();
  for (const [name, channel] of Object.entries(config.channels)) {
    if (channel.type === 'slack') {
      senders.set(name, new SlackSender(name, channel.webhookUrl));
    } else if (channel.type === 'console') {
      senders.set(name, new ConsoleSender(name));
    } else if (!smtpUrl) {
      problems.push(`channels.${name}: an email channel needs SMTP_URL (e.g. smtp://user:pass@host:587)`);
    } else {
      senders.set(name, new EmailSender(name, { smtpUrl, from: channel.from, to: channel.to }));
    }
  }
  if (problems.length > 0) throw new ConfigError('the environment', problems);
  return senders;
}
