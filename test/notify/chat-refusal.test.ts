import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiscordSender } from '../../src/notify/discord.js';
import { TeamsSender } from '../../src/notify/teams.js';
import { type ChatReceiver, refusalOf, startChatReceiver } from '../helpers/chat-receiver.js';

// One rule (ChatWebhook's) turns every refused answer into an error; each service fills in its reason,
// its wait and its hint. These pin what each says, answer by answer.
describe('what a chat webhook makes of a refusal', () => {
  let receiver: ChatReceiver;
  beforeAll(async () => {
    receiver = await startChatReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it("Discord: waits out a 429 (its body's retry_after, else 2 s), fails for good on a 4xx", async () => {
    const discord = new DiscordSender('chat', receiver.url);
    expect(await refusalOf(discord, receiver, { status: 429, body: { retry_after: 1.25 } })).toEqual({
      message: 'channel "chat": Discord answered HTTP 429',
      permanent: false,
      retryAfterMs: 1250,
    });
    expect((await refusalOf(discord, receiver, { status: 429 })).retryAfterMs).toBe(2_000);
    expect(await refusalOf(discord, receiver, { status: 404, body: { message: 'Unknown Webhook' } })).toEqual(
      {
        message:
          'channel "chat": Discord answered HTTP 404 (Unknown Webhook): the webhook is gone or its URL is wrong: make a new one in the channel settings (Integrations), then `reviewwatch notify retry`',
        permanent: true,
        retryAfterMs: undefined,
      },
    );
    expect(await refusalOf(discord, receiver, { status: 400 })).toMatchObject({
      message:
        'channel "chat": Discord answered HTTP 400: it refused the message, so retrying cannot help, then `reviewwatch notify retry`',
      permanent: true,
    });
    expect(await refusalOf(discord, receiver, { status: 503, headers: { 'retry-after': '7' } })).toEqual({
      message: 'channel "chat": Discord answered HTTP 503',
      permanent: false,
      retryAfterMs: undefined,
    });
  });

  it('Teams: waits out a 429, a 408 and a 503 that says how long (else 5 s), fails for good on a 4xx', async () => {
    const teams = new TeamsSender('chat', receiver.url);
    expect(await refusalOf(teams, receiver, { status: 429, headers: { 'retry-after': '3' } })).toEqual({
      message: 'channel "chat": the Teams workflow answered HTTP 429',
      permanent: false,
      retryAfterMs: 3_000,
    });
    expect((await refusalOf(teams, receiver, { status: 408 })).retryAfterMs).toBe(5_000);
    expect(
      (await refusalOf(teams, receiver, { status: 503, headers: { 'retry-after': '2' } })).retryAfterMs,
    ).toBe(2_000);
    expect(await refusalOf(teams, receiver, { status: 503 })).toEqual({
      message: 'channel "chat": the Teams workflow answered HTTP 503',
      permanent: false,
      retryAfterMs: undefined,
    });
    expect(
      await refusalOf(teams, receiver, {
        status: 400,
        body: { error: { code: 'TriggerInputSchemaMismatch' } },
      }),
    ).toEqual({
      message:
        'channel "chat": the Teams workflow answered HTTP 400 (TriggerInputSchemaMismatch): it refused the message, so retrying cannot help. The workflow may be off or deleted, its owner gone, or its URL wrong: check it in Power Automate, then `reviewwatch notify retry`',
      permanent: true,
      retryAfterMs: undefined,
    });
  });

  it('Teams and Discord: fail for good on a redirect, send nothing where it points, name neither address', async () => {
    const elsewhere = await startChatReceiver();
    try {
      for (const sender of [new TeamsSender('chat', receiver.url), new DiscordSender('chat', receiver.url)]) {
        const refusal = await refusalOf(sender, receiver, {
          status: 308,
          headers: { location: elsewhere.url },
        });
        expect(refusal).toMatchObject({ permanent: true, retryAfterMs: undefined });
        expect(refusal.message).toMatch(
          /^channel "chat": (the Teams workflow|Discord) answered HTTP 308, a redirect, which is not followed: put the address it redirects to in the channel's config, then `reviewwatch notify retry`$/,
        );
        expect(refusal.message).not.toContain('127.0.0.1');
      }
      expect(elsewhere.calls).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });
});
