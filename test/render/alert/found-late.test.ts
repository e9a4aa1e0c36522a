import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Notification, ReviewAlert } from '../../../src/alerts/types.js';
import { renderEmail, renderSlack } from '../../../src/render/index.js';
import { app, reviewAlert } from '../../fixtures/alert-sample.js';
import { consoleChannel } from '../../helpers/channels.js';

/** A review a reconciliation found after the polls missed it. */
const late = (alert: ReviewAlert): ReviewAlert => ({ ...alert, foundLate: true });

const single = (alert: ReviewAlert): Notification => ({ kind: 'single', alert });
const group = (alerts: ReviewAlert[]): Notification => ({ kind: 'group', app, alerts });

async function consoleText(notification: Notification): Promise<string> {
  let text = '';
  const out = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  await consoleChannel(out).send(notification);
  return text;
}

describe('an alert about a review found late', () => {
  const found = late(reviewAlert());

  it('says so in Slack: header and notification text', () => {
    const message = renderSlack(single(found));
    const header = message.blocks.find((b) => b.type === 'header');
    expect(header?.type === 'header' && header.text.text).toMatch(
      /New 1-star review of My App \(found late\)/,
    );
    expect(message.text).toMatch(/\(found late\)/);
  });

  it('says so in email: subject, title, and the plain text', () => {
    const mail = renderEmail(single(found));
    expect(mail.subject).toMatch(/^★☆☆☆☆ my-app \(found late\): "Charged twice/);
    expect(mail.html).toContain('New 1-star review of My App (found late)');
    expect(mail.text).toContain('New 1-star review of My App (found late)');
  });

  it('says so on the console', async () => {
    expect(await consoleText(single(found))).toMatch(/\(found late\)/);
  });

  it('says so of a re-rating found late', () => {
    const rerated = late(reviewAlert({ rating: 1, previousRating: 4 }));
    expect(renderSlack(single(rerated)).text).toMatch(/re-rated from 4 to 1 star \(found late\)/);
  });

  it('marks only the late reviews of a group', () => {
    const alerts = [found, reviewAlert({ reviewId: '2', reviewer: 'On Time Store' })];
    const slack = JSON.stringify(renderSlack(group(alerts)).blocks);
    expect(slack.match(/found late/g)).toHaveLength(1);
    const mail = renderEmail(group(alerts));
    expect(mail.text.match(/found late/g)).toHaveLength(1);
    expect(mail.html.match(/found late/g)).toHaveLength(1);
  });

  it('is not claimed by an alert the polls found in time', async () => {
    const onTime = single(reviewAlert());
    expect(JSON.stringify(renderSlack(onTime))).not.toMatch(/found late/);
    const mail = renderEmail(onTime);
    expect(`${mail.subject}${mail.html}${mail.text}`).not.toMatch(/found late/);
    expect(await consoleText(onTime)).not.toMatch(/found late/);
  });
});
