import { describe, expect, it } from 'vitest';
import type { Notification } from '../../../src/alerts/types.js';
import { parseConfig } from '../../../src/config/index.js';
import { createSenders } from '../../../src/notify/channels.js';
import { renderEmail, renderSlack } from '../../../src/render/index.js';
import { drop, group, incident, reviewAlert, single } from '../../fixtures/alert-sample.js';

const INBOX = 'https://inbox.example.com';

/** Every button URL of a Slack message. */
function slackLinks(notification: Notification, inboxUrl?: string): Array<[string, string]> {
  const message = renderSlack(notification, inboxUrl ? { inboxUrl } : {});
  return message.blocks.flatMap((block) =>
    block.type === 'actions' ? block.elements.map((e): [string, string] => [e.text.text, e.url ?? '']) : [],
  );
}

describe('alerts link to the inbox when web.publicUrl is set', () => {
  it('a review alert to the review, by its app and id', () => {
    const alert = single(reviewAlert());
    expect(slackLinks(alert, INBOX)[0]).toEqual([
      'Open in the inbox',
      `${INBOX}/apps/my-app/reviews/2369401`,
    ]);
    const email = renderEmail(alert, { inboxUrl: INBOX });
    expect(email.html).toContain(`href="${INBOX}/apps/my-app/reviews/2369401"`);
    expect(email.text).toContain(`Open in the inbox: ${INBOX}/apps/my-app/reviews/2369401`);
  });

  it('rating drops, incidents, grouped reviews and a review without an id to the app’s page', () => {
    const appPage = ['Open the app in the inbox', `${INBOX}/apps/my-app`];
    expect(slackLinks(single(drop()), INBOX)[0]).toEqual(appPage);
    expect(slackLinks(single(incident()), INBOX)[0]).toEqual(appPage);
    expect(slackLinks(group(8), INBOX)[0]).toEqual(appPage);
    expect(slackLinks(single(reviewAlert({ reviewId: '' })), INBOX)[0]).toEqual(appPage);
    expect(renderEmail(single(drop()), { inboxUrl: INBOX }).text).toContain(`${INBOX}/apps/my-app`);
  });

  it('encodes an id that is not a plain number, and links nowhere without a usable address', () => {
    const odd = single(reviewAlert({ reviewId: '../x?y=<z>' }));
    expect(slackLinks(odd, INBOX)[0]?.[1]).toBe(`${INBOX}/apps/my-app/reviews/..%2Fx%3Fy%3D%3Cz%3E`);
    for (const inboxUrl of [undefined, 'javascript:alert(1)', 'not a url']) {
      expect(slackLinks(single(reviewAlert()), inboxUrl).map(([label]) => label)).toEqual([
        'Open listing',
        'All reviews',
      ]);
    }
  });

  it('reaches every sender from the config', async () => {
    const config = parseConfig(
      {
        catalog: { simulator: true },
        apps: [{ handle: 'my-app' }],
        channels: { terminal: { type: 'console' } },
        web: { publicUrl: INBOX },
      },
      {},
    );
    const sender = createSenders(config, undefined).get('terminal');
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      await sender?.send(single(reviewAlert()));
    } finally {
      process.stdout.write = write;
    }
    expect(written.join('')).toContain(`${INBOX}/apps/my-app/reviews/2369401`);
  });
});
