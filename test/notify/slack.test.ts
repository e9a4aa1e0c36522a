import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryError } from '../../src/notify/errors.js';
import { SlackSender } from '../../src/notify/slack.js';
import { type ChatAnswer, type ChatReceiver, startChatReceiver } from '../helpers/chat-receiver.js';

/** What the Slack sender made of an answer: the error's message, whether it is final, and the wait it asks. */
async function refusalOf(receiver: ChatReceiver, answer: ChatAnswer) {
  receiver.respond(answer);
  const err = await new SlackSender('support', receiver.url, { timeoutMs: 5_000 })
    .post({ text: 'hi', blocks: [] })
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  if (!(err instanceof DeliveryError)) throw new Error(`expected a DeliveryError, got ${String(err)}`);
  return { message: err.message, permanent: err.permanent, retryAfterMs: err.retryAfterMs };
}

describe('what the Slack channel makes of a refusal', () => {
  let receiver: ChatReceiver;
  beforeAll(async () => {
    receiver = await startChatReceiver({ status: 200, body: 'ok' });
  });
  afterAll(() => receiver.close());

  it("waits out a 429's Retry-After and fails for good on a webhook that is gone", async () => {
    expect(await refusalOf(receiver, { status: 429, headers: { 'retry-after': '3' } })).toMatchObject({
      permanent: false,
      retryAfterMs: 3_000,
    });
    expect(await refusalOf(receiver, { status: 404, body: 'no_service' })).toEqual({
      message:
        'channel "support": Slack answered HTTP 404 (no_service): the webhook is gone or refuses messages; check it',
      permanent: true,
      retryAfterMs: undefined,
    });
  });

  it('fails for good on a redirect, sends nothing where it points, and names neither address', async () => {
    const elsewhere = await startChatReceiver({ status: 200, body: 'ok' });
    try {
      expect(await refusalOf(receiver, { status: 301, headers: { location: elsewhere.url } })).toEqual({
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
