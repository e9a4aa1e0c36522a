import type { Config } from '../config/index.js';
import { ConfigError } from '../errors.js';
import type { DataSource } from '../render/index.js';
import { openChannel } from './channel-types.js';
import type { ChannelSender } from './sender.js';

/**
 * One sender per configured channel, each opened by its type's row (channel-types.ts). Email channels
 * need SMTP_URL. `source` is where the alerts' data comes from: with `simulated`, every alert each sender
 * renders says so; with an inbox address (`web.publicUrl`), every alert links to it.
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
    const sender = openChannel(name, channel, { smtpUrl, source: shared });
    if (typeof sender === 'string') problems.push(`channels.${name}: ${sender}`);
    else senders.set(name, sender);
  }
  if (problems.length > 0) throw new ConfigError('the environment', problems);
  return senders;
}
