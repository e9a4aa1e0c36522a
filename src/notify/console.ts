import type { Notification } from '../alerts/types.js';
import {
  cleanText,
  type DataSource,
  type EmailMessage,
  notificationPriority,
  renderEmail,
  type SlackMessage,
} from '../render/index.js';
import type { Priority } from '../scoring/priority.js';
import type { ChannelSender } from './sender.js';

const COLOR: Record<Priority, string> = {
  critical: '\x1b[1;31m',
  high: '\x1b[31m',
  medium: '\x1b[33m',
  low: '\x1b[36m',
};
const RESET = '\x1b[0m';
const DIM = '\x1b[2m';

/**
 * A channel that prints alerts in the terminal: what the demo shows, and a way to watch alerts in a
 * service's log without a Slack workspace. The text is the email's plain-text version, stripped of
 * control characters: review text cannot drive the terminal.
 */
export class ConsoleSender implements ChannelSender {
  readonly type = 'console' as const;
  readonly name: string;
  readonly #out: NodeJS.WritableStream & { isTTY?: boolean };
  readonly #source: DataSource;

  constructor(
    name: string,
    out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout,
    source: DataSource = {},
  ) {
    this.name = name;
    this.#out = out;
    this.#source = source;
  }

  async send(notification: Notification): Promise<void> {
    this.#print(renderEmail(notification, this.#source), notificationPriority(notification));
  }

  async post(message: SlackMessage | EmailMessage): Promise<void> {
    if ('subject' in message) this.#print(message, 'low');
    else this.#print({ subject: message.text, html: '', text: '' }, 'low');
  }

  #print(message: EmailMessage, priority: Priority): void {
    const tty = this.#out.isTTY === true;
    const rule = '─'.repeat(72);
    const body = message.text
      .split('\n')
      .map((line) => cleanText(line))
      .join('\n')
      .trim();
    const headline = cleanText(message.subject);
    this.#out.write(
      tty
        ? `\n${DIM}${rule}${RESET}\n${COLOR[priority]}${headline}${RESET}\n${body}\n${DIM}${rule}${RESET}\n`
        : `\n${rule}\n${headline}\n${body}\n${rule}\n`,
    );
  }
}
