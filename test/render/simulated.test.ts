import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Notification } from '../../src/alerts/types.js';
import {
  type EmailMessage,
  renderDigestEmail,
  renderDigestSlack,
  renderEmail,
  renderSlack,
  SIMULATED_TAG,
  SLACK_LIMITS,
  type SlackBlock,
  type SlackMessage,
  slackBlocksSize,
} from '../../src/render/index.js';
import { drop, group, incident, reviewAlert, single } from '../fixtures/alert-sample.js';
import { sampleDigestData } from '../fixtures/digest-sample.js';
import { consoleChannel } from '../helpers/channels.js';

const SIMULATED = /SIMULATED DATA/;

const notifications: Array<[string, Notification]> = [
  ['a review', single(reviewAlert())],
  ['a rating drop', single(drop())],
  ['a possible incident', single(incident(4))],
  ['a group', group(7)],
];

function blockTexts(blocks: SlackBlock[]): string[] {
  return blocks.flatMap((b) => {
    if (b.type === 'header') return [b.text.text];
    if (b.type === 'section') return [b.text?.text ?? '', ...(b.fields ?? []).map((f) => f.text)];
    if (b.type === 'context') return b.elements.map((e) => e.text);
    return [];
  });
}

/** Said where a reader looks first: the notification text, the header, and the block under it. */
function expectSlackSaysSimulated(message: SlackMessage): void {
  expect(message.text.startsWith(SIMULATED_TAG)).toBe(true);
  const [head, note] = message.blocks;
  expect(head?.type === 'header' && head.text.text.startsWith(SIMULATED_TAG)).toBe(true);
  expect(note?.type).toBe('context');
  expect(blockTexts(note ? [note] : []).join(' ')).toMatch(/made up by the built-in Catalog API simulator/);
  expect(message.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  expect(slackBlocksSize(message.blocks)).toBeLessThanOrEqual(SLACK_LIMITS.message);
}

function expectEmailSaysSimulated(email: EmailMessage): void {
  expect(email.subject.startsWith(SIMULATED_TAG)).toBe(true);
  expect(email.subject).not.toMatch(/[\r\n]/);
  expect(email.subject.length).toBeLessThanOrEqual(200);
  // The banner comes before the message's own heading, and the text alternative opens with it.
  const banner = email.html.search(/SIMULATED DATA: these reviews and ratings were made up/);
  expect(banner).toBeGreaterThan(0);
  expect(banner).toBeLessThan(email.html.search(/<h1/));
  expect(email.html).toMatch(/<title>\[SIMULATED DATA\] /);
  expect(email.text.split('\n')[0]).toMatch(
    /^\*\*\* SIMULATED DATA: .* not read from the marketplace\. \*\*\*$/,
  );
}

function expectNoMarker(...texts: string[]): void {
  for (const text of texts) expect(text).not.toMatch(SIMULATED);
}

describe('a message built from simulated data', () => {
  describe.each(notifications)('%s', (_, notification) => {
    it('says so in Slack: notification text, header and the block under it', () => {
      expectSlackSaysSimulated(renderSlack(notification, { simulated: true }));
    });

    it('says so in email: subject, a banner at the top of the HTML, the first line of the text', () => {
      expectEmailSaysSimulated(renderEmail(notification, { simulated: true }));
    });

    it('and a message from real data says nothing of the kind', () => {
      const slack = renderSlack(notification, {});
      const email = renderEmail(notification);
      expectNoMarker(slack.text, ...blockTexts(slack.blocks), email.subject, email.html, email.text);
      expect(renderSlack(notification, { simulated: false }).blocks).toEqual(slack.blocks);
    });
  });

  it('keeps the tag when a long review fills the subject and Slack limits', () => {
    const long = single(reviewAlert({ content: `${'"\\&<>'.repeat(2_000)} end` }));
    const email = renderEmail(long, { simulated: true });
    expect(email.subject.startsWith(`${SIMULATED_TAG} ★☆☆☆☆`)).toBe(true);
    const slack = renderSlack(long, { simulated: true, dashboardName: 'x'.repeat(500) });
    expectSlackSaysSimulated(slack);
    const many = renderSlack(group(200), { simulated: true });
    expectSlackSaysSimulated(many);
    expect(blockTexts(many.blocks).join('\n')).toMatch(/… and \d+ more reviews/);
  });

  it('prints the tag and the note in the console channel', async () => {
    let out = '';
    const stream = new Writable({
      write(chunk, _enc, done) {
        out += String(chunk);
        done();
      },
    });
    await consoleChannel(stream, { simulated: true }).send(single(reviewAlert()));
    const lines = out.trim().split('\n');
    expect(lines[1]).toMatch(/^\[SIMULATED DATA\] ★☆☆☆☆ /);
    expect(lines[2]).toMatch(/^\*\*\* SIMULATED DATA: /);

    out = '';
    await consoleChannel(stream).send(single(reviewAlert()));
    expectNoMarker(out);
  });

  describe('the weekly digest', () => {
    it('says so in the email: subject, banner, text', () => {
      const email = renderDigestEmail(sampleDigestData(), { simulated: true });
      expectEmailSaysSimulated(email);
      // The subject still ends with the week it covers.
      expect(email.subject).toMatch(/— 16–22 Nov$/);
    });

    it('says so in the Slack summary', () => {
      expectSlackSaysSimulated(renderDigestSlack(sampleDigestData(), { simulated: true }));
    });

    it('and a digest of real data does not', () => {
      const email = renderDigestEmail(sampleDigestData());
      const slack = renderDigestSlack(sampleDigestData());
      expectNoMarker(email.subject, email.html, email.text, slack.text, ...blockTexts(slack.blocks));
    });
  });
});
