import { openChannel } from '../../src/notify/channel-types.js';
import type { ChannelSender } from '../../src/notify/sender.js';
import type { DataSource } from '../../src/render/index.js';

/** The console channel named "terminal", printing to `out`, opened through its type's row. */
export function consoleChannel(
  out: NodeJS.WritableStream & { isTTY?: boolean },
  source: DataSource = {},
): ChannelSender {
  const sender = openChannel('terminal', { type: 'console', minPriority: 'low' }, { stdout: out, source });
  if (typeof sender === 'string') throw new Error(sender);
  return sender;
}
