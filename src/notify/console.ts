import { cleanText, type EmailMessage } from '../render/index.js';
import type { Priority } from '../scoring/priority.js';
import type { PostMeta, Transport } from './sender.js';

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
 * service's log without a Slack workspace. It prints the email's plain-text version (its type renders
 * email), stripped of control characters: review text cannot drive the terminal.
 */
export class ConsoleSender implements Transport<EmailMessage> {
  readonly name: string;
  readonly #out: NodeJS.WritableStream & { isTTY?: boolean };

  constructor(name: string, out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout) {
    this.name = name;
    this.#out = out;
  }

  async post(message: EmailMessage, meta: Pick<PostMeta, 'priority'>): Promise<void> {
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
        ? `\n${DIM}${rule}${RESET}\n${COLOR[meta.priority]}${headline}${RESET}\n${body}\n${DIM}${rule}${RESET}\n`
        : `\n${rule}\n${headline}\n${body}\n${rule}\n`,
    );
  }
}
