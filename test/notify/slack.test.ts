import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SlackSender } from '../../src/notify/slack.js';
import {
  type ChatAnswer,
  type ChatReceiver,
  refusalOf,
  startChatReceiver,
} from '../helpers/chat-receiver.js';

function slackRefusalOf(receiver: ChatReceiver, answer: ChatAnswer) {
  return refusalOf(new SlackSender('support', receiver.url, { timeoutMs: 5_000 }), receiver, answer);
}

describe('what the Slack channel makes of a refusal', () => {
  let receiver: ChatReceiver;
  beforeAll(async () => {
    receiver = await startChatReceiver({ status: 200, body: 'ok' });
  });
  afterAll(() => receiver.close());

  it("waits out a 429's Retry-After and fails for good on a webhook that is gone", async () => {
    expect(await slackRefusalOf(receiver, { status: 429, headers: { 'retry-after': '3' } })).toMatchObject({
      permanent: false,
      retryAfterMs: 3_000,
    });
    expect(await slackRefusalOf(receiver, { status: 404, body: 'no_service' })).toEqual({
      message:
        'channel "support": Slack answered HTTP 404 (no_service): the webhook is gone or refuses messages; check it',
      permanent: true,
      retryAfterMs: undefined,
    });
  });

  it('fails for good on a redirect, sends nothing where it points, and names neither address', async () => {
    const elsewhere = await startChatReceiver({ status: 200, body: 'ok' });
    try {
      expect(await slackRefusalOf(receiver, { status: 301, headers: { location: elsewhere.url } })).toEqual({
        message:
          'channel "support": Slack answered HTTP 301, a redirect, which is not followed: put the address it redirects to in the channel\'s config, then `reviewwatch notify retry`',
        permanent: true,
        retryAfterMs: undefined,
      });
      expect(elsewhere.calls).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });
});
