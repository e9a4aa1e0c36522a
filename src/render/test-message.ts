import { type EmailMessage, heading, page, paragraph, row } from './email-blocks.js';
import { escapeHtml, escapeMrkdwn } from './escape.js';
import { header, type SlackMessage } from './slack-blocks.js';

/**
 * What `notify test` sends: plainly a test, so nobody mistakes it for an alert (no stars, no severity, no
 * review), and plainly from reviewwatch to this channel.
 */
export function testMessage(
  channel: string,
  type: 'slack' | 'email' | 'console',
  at: Date,
): SlackMessage | EmailMessage {
  const title = `reviewwatch test message for "${channel}"`;
  const body = `This is a test, not an alert: \`reviewwatch notify test\` sent it at ${at.toISOString()}. If you can read it, the channel works, and alerts for the apps routed here will arrive like this.`;
  if (type === 'slack') {
    return {
      text: `${escapeMrkdwn(title)}: the channel works (a test, not an alert)`,
      blocks: [
        header('reviewwatch test message'),
        { type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(body) } },
      ],
    };
  }
  return {
    subject: `[test] ${title}`,
    html: page(title, [row(heading('reviewwatch test message', 1)), row(paragraph(escapeHtml(body)))]),
    text: `${title}\n\n${body}\n`,
  };
}
