import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GROUP_SIZE } from '../../src/alerts/raise.js';
import type { Alert } from '../../src/alerts/types.js';
import { deliver } from '../../src/notify/deliver.js';
import { deliveryStates } from '../../src/store/outbox.js';
import { group, highSeverity, reviewAlert } from '../fixtures/alert-sample.js';
import { sampleDigestData } from '../fixtures/digest-sample.js';
import { EVERY_KIND } from '../fixtures/every-kind.js';
import {
  attempt,
  chatChannel,
  chatConfig,
  deliverDeps,
  oneDelivery,
  refusedDelivery,
} from '../helpers/chat-channel.js';
import {
  type ChatCall,
  type ChatReceiver,
  RECEIVER_SECRET,
  RECEIVER_SIG,
  startChatReceiver,
} from '../helpers/chat-receiver.js';
import { runCli } from '../helpers/cli.js';
import { captureLog, tempDir, tempStore } from '../helpers/index.js';

interface Embed {
  title: string;
  description?: string;
  url?: string;
  fields: Array<{ name: string; value: string }>;
  footer?: { text: string };
}

/** The message as Discord checks it; each limit from Discord's documentation. */
function checked(call: ChatCall) {
  const { content, embeds, allowed_mentions } = call.body as {
    content: string;
    embeds: Embed[];
    allowed_mentions: unknown;
  };
  expect(allowed_mentions).toEqual({ parse: [] });
  expect(content.length).toBeLessThanOrEqual(2_000);
  expect(embeds.length).toBeGreaterThan(0);
  expect(embeds.length).toBeLessThanOrEqual(10);
  let total = 0;
  for (const embed of embeds) {
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(embed.description?.length ?? 0).toBeLessThanOrEqual(4_096);
    expect(embed.fields.length).toBeLessThanOrEqual(25);
    for (const field of embed.fields) {
      expect(field.name.length).toBeGreaterThan(0);
      expect(field.name.length).toBeLessThanOrEqual(256);
      expect(field.value.length).toBeGreaterThan(0);
      expect(field.value.length).toBeLessThanOrEqual(1_024);
    }
    expect(embed.footer?.text.length ?? 0).toBeLessThanOrEqual(2_048);
    total +=
      embed.title.length +
      (embed.description?.length ?? 0) +
      (embed.footer?.text.length ?? 0) +
      embed.fields.reduce((sum, f) => sum + f.name.length + f.value.length, 0);
  }
  expect(total).toBeLessThanOrEqual(6_000);
  const text = [
    content,
    ...embeds.flatMap((e) => [
      e.title,
      e.description ?? '',
      e.footer?.text ?? '',
      ...e.fields.flatMap((f) => [f.name, f.value]),
    ]),
  ].join('\n');
  return { content, embeds, text };
}

let receiver: ChatReceiver;
beforeAll(async () => {
  receiver = await startChatReceiver({ status: 204 });
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.calls.length = 0;
});

describe('the discord channel', () => {
  it('posts every alert kind, a group, the digest and the test as embeds within the limits', async () => {
    const sender = chatChannel('discord', receiver.url);
    const alerts = Object.values(EVERY_KIND) as Alert[];
    for (const alert of alerts) await sender.send({ kind: 'single', alert });
    await sender.send(group(3));
    const subject = await sender.sendDigest(sampleDigestData(), {});
    await sender.sendTest(new Date('2026-11-27T10:00:00Z'));

    expect(receiver.calls).toHaveLength(alerts.length + 3);
    const messages = receiver.calls.map(checked);
    expect(messages[0]?.text).toContain('Charged twice and support never answered');
    // The category's name, its markdown escaped: `Store <design>` cannot be read as a mention or emoji.
    expect(messages.some((m) => m.text.includes('Store \\<design\\>'))).toBe(true);
    expect(messages[alerts.length]?.embeds[0]?.fields).toHaveLength(3);
    expect(messages[alerts.length + 1]?.text).toContain('weekly digest');
    expect(subject).toContain('weekly digest');
    expect(subject).not.toContain('\\');
    expect(messages[alerts.length + 2]?.text).toContain('reviewwatch test message for "chat"');
  });

  it('keeps a huge hostile review and a huge group within the limits, escaped, saying what it cut', async () => {
    const sender = chatChannel('discord', receiver.url);
    const hostile =
      '@everyone <@123456> [click here](https://evil.example/login) **URGENT** ||spoiler|| `code`\n# heading\n> quote ' +
      'x*_~'.repeat(5_000);
    await sender.send({
      kind: 'single',
      alert: reviewAlert({ content: hostile, reviewer: '@here [Support](https://evil.example)' }),
    });
    await sender.send(group(300, (i) => `${i} ${hostile}`));
    // An app whose name and listing URL are as long as an API could send.
    const huge = {
      handle: 'my-app',
      name: `*${'App '.repeat(2_000)}`,
      url: `https://apps.example/${'a'.repeat(5_000)}`,
    };
    await sender.send({ kind: 'single', alert: reviewAlert({ content: hostile }, highSeverity, huge) });
    expect(receiver.calls).toHaveLength(3);
    const [single, many, long] = receiver.calls.map(checked);
    for (const message of [single, many, long]) {
      const text = message?.text ?? '';
      // Nothing of the review is read as markup: every mark is escaped.
      expect(text).not.toMatch(/(?<!\\)@everyone|(?<!\\)@here/);
      expect(text).not.toMatch(/(?<!\\)<@/);
      expect(text).not.toMatch(/(?<!\\)\[click here(?<!\\)\]/);
      expect(text).toContain('\\[click here\\]\\(https://evil.example/login\\)');
      expect(text).not.toMatch(/(?<!\\)\*\*URGENT/);
      expect(text).not.toMatch(/^# heading/m);
      for (const embed of message?.embeds ?? []) expect(embed.url ?? '').not.toContain('evil.example');
    }
    expect(single?.text).toContain('…');
    expect(single?.embeds[0]?.footer?.text).toContain("The review is cut short (Discord's message limits)");
    expect(many?.embeds[0]?.footer?.text).toMatch(
      /… and \d+ more reviews not shown \(Discord's message limits\)/,
    );
  });

  it('shows every review of a full group of long reviews, each quoted shorter, before leaving one out', async () => {
    const sender = chatChannel('discord', receiver.url);
    const long = 'The sync with our email tool stopped and nobody answers the tickets. '.repeat(15);
    await sender.send(group(GROUP_SIZE, (i) => `Review ${i}: ${long}`));
    const [message] = receiver.calls.map(checked);
    const fields = message?.embeds[0]?.fields ?? [];
    for (let i = 0; i < GROUP_SIZE; i++)
      expect(fields.some((f) => f.value.includes(`Review ${i}:`))).toBe(true);
    const footer = message?.embeds[0]?.footer?.text ?? '';
    expect(footer).toContain("Each review is quoted shorter (Discord's message limits).");
    expect(footer).not.toContain('not shown');
  });

  describe('through the outbox', () => {
    let store: ReturnType<typeof tempStore>;
    beforeEach(() => {
      store = tempStore();
    });
    afterEach(() => store.cleanup());

    it("waits out a 429's retry_after (seconds in the body), then delivers once", async () => {
      const id = oneDelivery(store);
      receiver.respond({
        status: 429,
        headers: { 'retry-after': '9' },
        body: { message: 'You are being rate limited.', retry_after: 1.25, global: false },
      });
      const deps = deliverDeps(store, chatChannel('discord', receiver.url));
      expect(await deliver(deps, { deliveryIds: [id] }, attempt(1))).toEqual({
        status: 'wait',
        waitMs: 1_250,
      });
      expect(await deliver(deps, { deliveryIds: [id] }, attempt(2))).toMatchObject({ status: 'sent' });
      expect(await deliver(deps, { deliveryIds: [id] }, attempt(3))).toEqual({ status: 'skipped' });
      expect(receiver.calls).toHaveLength(2);
      expect(deliveryStates(store.db, [id])[0]?.status).toBe('sent');
    });

    it('takes the Retry-After header when the body does not say', async () => {
      const id = oneDelivery(store);
      receiver.respond({ status: 429, headers: { 'retry-after': '4' }, body: 'slow down' });
      const outcome = await deliver(
        deliverDeps(store, chatChannel('discord', receiver.url)),
        { deliveryIds: [id] },
        attempt(1),
      );
      expect(outcome).toEqual({ status: 'wait', waitMs: 4_000 });
    });

    it('fails for good on a 4xx, saying what to do, with no URL in the error or the log', async () => {
      const id = oneDelivery(store);
      receiver.respond({ status: 404, body: { message: `Unknown Webhook ${receiver.url}`, code: 10015 } });
      const log = captureLog();
      const outcome = await deliver(
        deliverDeps(store, chatChannel('discord', receiver.url), log),
        { deliveryIds: [id] },
        attempt(1),
      );
      expect(outcome).toMatchObject({ status: 'failed', final: true });
      const state = deliveryStates(store.db, [id])[0];
      expect(state?.status).toBe('failed');
      expect(state?.lastError).toMatch(
        /channel "chat": Discord answered HTTP 404 \(Unknown Webhook .*\): the webhook is gone/,
      );
      for (const text of [state?.lastError ?? '', log.text()]) {
        expect(text).not.toContain(RECEIVER_SECRET);
        expect(text).not.toContain(RECEIVER_SIG);
        expect(text).not.toContain('/api/webhooks/');
      }
    });
  });
});

describe('reviewwatch notify test and check-config with a discord channel', () => {
  it('accepts the config and sends a test embed', async () => {
    const dir = tempDir();
    const config = chatConfig(dir.dir, 'discord');
    const env = {
      REVIEWWATCH_CONFIG: config,
      DATABASE_PATH: `${dir.dir}/reviewwatch.db`,
      CHAT_URL: receiver.url,
    };
    try {
      const check = await runCli(['check-config', '--config', config], env);
      expect(check.code, check.stderr).toBe(0);
      const result = await runCli(['notify', 'test', 'chat'], env);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('Sent a test message to "chat" (discord)');
      expect(receiver.calls).toHaveLength(1);
      expect(checked(receiver.calls[0] as ChatCall).text).toContain('reviewwatch test message for "chat"');
      // A refusal, as `status` shows it: what failed and why, without the URL.
      receiver.respond({ status: 404, body: { message: `nothing at ${receiver.url}` } });
      await refusedDelivery(env.DATABASE_PATH, chatChannel('discord', receiver.url));
      const status = await runCli(['status'], env);
      expect(status.stdout).toMatch(
        /failed #\d+ review of my-app → chat: channel "chat": Discord answered HTTP 404/,
      );
      for (const text of [check.stdout, check.stderr, result.stdout, status.stdout, status.stderr]) {
        expect(text).not.toContain(RECEIVER_SECRET);
        expect(text).not.toContain(RECEIVER_SIG);
      }
    } finally {
      dir.cleanup();
    }
  }, 60_000);
});
