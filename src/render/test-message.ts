import { type EmailMessage, heading, page, paragraph, row } from './email-blocks.js';
import { escapeHtml, escapeMrkdwn } from './escape.js';
import { header, type SlackMessage } from './slack-blocks.js';

/**
 * What `notify test` sends: plainly a test, so nobody mistakes it for an alert (no stars, no severity, no
 * review), and plainly from reviewwatch to this channel. One function per channel type's message
 * (render/channels.ts picks).
 */
export function testWording(channel: string, at: Date): { title: string; body: string } {
  return {
    title: `reviewwatch test message for "${channel}"`,
    body: `This is a test, not an alert: \`reviewwatch notify test\` sent it at ${at.toISOString()}. If you can read it, the channel works, and alerts for the apps routed here will arrive like this.`,
  };
}

export function slackTestMessage(channel: string, at: Date): SlackMessage {
  const { title, body } = testWording(channel, at);
  return {
    text: `${escapeMrkdwn(title)}: the channel works (a test, not an alert)`,
    blocks: [
      header('reviewwatch test message'),
      { type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(body) } },
    ],
  };
}

export function emailTestMessage(channel: string, at: Date): EmailMessage {
  const { title, body } = testWording(channel, at);
  return {
    subject: `[test] ${title}`,
    html: page(title, [row(heading('reviewwatch test message', 1)), row(paragraph(escapeHtml(body)))]),
    text: `${title}\n\n${body}\n`,
  };
}
