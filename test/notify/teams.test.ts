import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Alert } from '../../src/alerts/types.js';
import { createLogger } from '../../src/log.js';
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

/** Teams refuses a message over about 28 KB. */
const TEAMS_MAX_BYTES = 28 * 1024;

interface Element {
  type: string;
  text?: string;
  inlines?: Array<{ type: string; text: string }>;
  items?: Element[];
}

function cardOf(call: ChatCall) {
  const attachments = call.body.attachments as Array<{
    contentType: string;
    content: Record<string, unknown>;
  }>;
  expect(call.body.type).toBe('message');
  expect(attachments).toHaveLength(1);
  expect(attachments[0]?.contentType).toBe('application/vnd.microsoft.card.adaptive');
  const card = attachments[0]?.content as {
    type: string;
    version: string;
    body: Element[];
    actions?: Array<{ type: string; title: string; url: string }>;
  };
  expect(card.type).toBe('AdaptiveCard');
  expect(Number(card.version)).toBeGreaterThanOrEqual(1.4);
  return card;
}

/** Every element of the card, depth first. */
function elements(list: Element[]): Element[] {
  return list.flatMap((e) => [e, ...elements(e.items ?? [])]);
}

/** What Teams reads as markdown (TextBlocks), and what it shows as is (TextRuns). */
function texts(card: ReturnType<typeof cardOf>) {
  const all = elements(card.body);
  return {
    markdown: all.filter((e) => e.type === 'TextBlock').map((e) => e.text ?? ''),
    plain: all.flatMap((e) => (e.inlines ?? []).map((r) => r.text)).join('\n'),
  };
}

let receiver: ChatReceiver;
beforeAll(async () => {
  receiver = await startChatReceiver({ status: 202 });
});
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.calls.length = 0;
});

describe('the teams channel', () => {
  it('posts every alert kind, a group, the digest and the test as Adaptive Cards saying what they are about', async () => {
    const sender = chatChannel('teams', receiver.url);
    const alerts = Object.values(EVERY_KIND) as Alert[];
    for (const alert of alerts) await sender.send({ kind: 'single', alert });
    await sender.send(group(3));
    const subject = await sender.sendDigest(sampleDigestData(), {});
    await sender.sendTest(new Date('2026-11-27T10:00:00Z'));

    expect(receiver.calls).toHaveLength(alerts.length + 3);
    for (const call of receiver.calls) {
      expect(call.headers['content-type']).toBe('application/json');
      expect(call.bytes).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
      const card = cardOf(call);
      expect(card.body.length).toBeGreaterThan(1);
      for (const action of card.actions ?? []) {
        expect(action.type).toBe('Action.OpenUrl');
        expect(action.url).toMatch(/^https:\/\//);
      }
    }
    const plain = receiver.calls.map((c) => texts(cardOf(c)).plain);
    // The review's words, the category's name as the marketplace wrote it, the digest's and the test's.
    expect(plain[0]).toContain('Charged twice and support never answered');
    expect(plain.some((t) => t.includes('Store <design>'))).toBe(true);
    expect(plain[alerts.length]).toContain('3 new low reviews of My App');
    expect(plain[alerts.length + 1]).toContain('weekly digest');
    expect(subject).toContain('weekly digest');
    expect(plain[alerts.length + 2]).toContain('reviewwatch test message for "chat"');
    expect(plain[alerts.length + 2]).toContain('a test, not an alert');
  });

  it('keeps a huge hostile review and a huge group within 28 KB, escaped, saying what it left out', async () => {
    const sender = chatChannel('teams', receiver.url);
    const hostile =
      '[click here](https://evil.example/login) **URGENT** <at>everyone</at> # heading\n- list ' +
      '漢字😀"\\'.repeat(8_000);
    await sender.send({
      kind: 'single',
      alert: reviewAlert({ content: hostile, reviewer: '[Support](https://evil.example)' }),
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
    for (const call of receiver.calls) {
      expect(call.bytes).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
      const card = cardOf(call);
      const { markdown, plain } = texts(card);
      // Untrusted text is only in TextRuns, which Teams does not read as markdown.
      expect(plain).toContain('[click here](https://evil.example/login)');
      for (const text of markdown) expect(text).not.toContain('evil.example');
      for (const action of card.actions ?? []) expect(action.url).not.toContain('evil.example');
    }
    const [single, many] = receiver.calls.map((c) => texts(cardOf(c)));
    expect(single?.plain).toContain('…');
    expect(single?.markdown.join('\n')).toContain(
      'The review is cut short: Teams limits a message to about 28 KB',
    );
    expect(many?.markdown.join('\n')).toMatch(
      /… and \d+ more reviews not shown: Teams limits a message to about 28 KB/,
    );
  });

  describe('through the outbox', () => {
    let store: ReturnType<typeof tempStore>;
    beforeEach(() => {
      store = tempStore();
    });
    afterEach(() => store.cleanup());

    it("waits out a 429's Retry-After, then delivers once", async () => {
      const id = oneDelivery(store);
      receiver.respond({ status: 429, headers: { 'retry-after': '3' } });
      const deps = deliverDeps(store, chatChannel('teams', receiver.url));
      expect(await deliver(deps, { deliveryIds: [id] }, attempt(1))).toEqual({
        status: 'wait',
        waitMs: 3_000,
      });
      expect(await deliver(deps, { deliveryIds: [id] }, attempt(2))).toMatchObject({ status: 'sent' });
      // Sent: a later attempt (a duplicate job) posts nothing.
      expect(await deliver(deps, { deliveryIds: [id] }, attempt(3))).toEqual({ status: 'skipped' });
      // The refused attempt and the one accepted: the alert reached the channel once.
      expect(receiver.calls).toHaveLength(2);
      expect(deliveryStates(store.db, [id])[0]?.status).toBe('sent');
    });

    it('retries a 5xx', async () => {
      const id = oneDelivery(store);
      receiver.respond({ status: 502 });
      const outcome = await deliver(
        deliverDeps(store, chatChannel('teams', receiver.url)),
        { deliveryIds: [id] },
        attempt(1),
      );
      expect(outcome).toMatchObject({ status: 'failed', final: false });
    });

    it('fails for good on a 4xx, saying what to check, with no URL in the error or the log', async () => {
      const id = oneDelivery(store);
      receiver.respond({
        status: 404,
        body: { error: { code: 'WorkflowNotFound', message: `no flow at ${receiver.url}` } },
      });
      const log = captureLog();
      const outcome = await deliver(
        deliverDeps(store, chatChannel('teams', receiver.url), log),
        { deliveryIds: [id] },
        attempt(1),
      );
      expect(outcome).toMatchObject({ status: 'failed', final: true });
      const state = deliveryStates(store.db, [id])[0];
      expect(state?.status).toBe('failed');
      expect(state?.lastError).toMatch(
        /channel "chat": the Teams workflow answered HTTP 404 \(WorkflowNotFound\): it refused .*Power Automate/,
      );
      for (const text of [state?.lastError ?? '', log.text()]) {
        expect(text).not.toContain(RECEIVER_SECRET);
        expect(text).not.toContain(RECEIVER_SIG);
        expect(text).not.toContain('127.0.0.1');
      }
    });
  });

  it("redacts the channel's webhook URL from logged config", () => {
    const chunks: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        chunks.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ format: 'json', destination });
    logger.info(
      {
        channels: {
          chat: { type: 'teams', webhookUrl: receiver.url },
          d: { type: 'discord', webhookUrl: receiver.url },
        },
      },
      'config',
    );
    const text = chunks.join('');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(RECEIVER_SECRET);
    expect(text).not.toContain(RECEIVER_SIG);
  });
});

describe('reviewwatch notify test and check-config with a teams channel', () => {
  it('accepts the config and sends a test card', async () => {
    const dir = tempDir();
    const config = chatConfig(dir.dir, 'teams');
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
      expect(result.stdout).toContain('Sent a test message to "chat" (teams)');
      expect(receiver.calls).toHaveLength(1);
      expect(texts(cardOf(receiver.calls[0] as ChatCall)).plain).toContain(
        'reviewwatch test message for "chat"',
      );
      // A refusal, as `status` shows it: what failed and why, without the URL.
      receiver.respond({ status: 404, body: { message: `nothing at ${receiver.url}` } });
      await refusedDelivery(env.DATABASE_PATH, chatChannel('teams', receiver.url));
      const status = await runCli(['status'], env);
      expect(status.stdout).toMatch(
        /failed #\d+ review of my-app → chat: channel "chat": the Teams workflow answered HTTP 404/,
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
