import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { alreadyOnScreen, DEMO_TERMINAL } from '../src/demo.js';
import { createLogger, type LogOptions } from '../src/log.js';

/** A logger writing into a string, and that string. */
function written(options: LogOptions): { logger: ReturnType<typeof createLogger>; text: () => string } {
  let text = '';
  const destination = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { logger: createLogger({ destination, ...options }), text: () => text };
}

/** The lines written (a stream that is not a terminal gets no colours). */
function lines(text: string): string[] {
  return text.split('\n').filter(Boolean);
}

describe('logs', () => {
  it('redact secrets wherever they are nested, in JSON and in the terminal format', () => {
    for (const format of ['json', 'pretty'] as const) {
      let text = '';
      const destination = new Writable({
        write(chunk, _enc, done) {
          text += String(chunk);
          done();
        },
      });
      const logger = createLogger({ format, destination, level: 'debug' });
      logger.info(
        {
          config: {
            catalog: { apiKey: 'sk-live-123' },
            channels: { support: { webhookUrl: 'https://hooks.slack.com/services/T/B/tok' } },
          },
          smtpUrl: 'smtp://u:p4ss@mail',
          headers: { 'x-api-key': 'sk-live-456' },
          signing: { secret: 'whsec_c2VjcmV0LWtleQ==', secrets: ['whsec_b2xkLWtleQ=='] },
          // A channel's URL is its secret; a listing's page is not.
          channel: { type: 'slack', url: 'https://receiver.example/hook/tok-789' },
          app: { handle: 'my-app', url: 'https://apps.platform.example/my-app' },
        },
        'loaded',
      );
      expect(text).toContain('loaded');
      expect(text).toContain('[redacted]');
      expect(text).toContain('https://apps.platform.example/my-app');
      for (const secret of ['sk-live-123', 'hooks.slack.com', 'p4ss', 'sk-live-456', 'whsec_', 'tok-789'])
        expect(text).not.toContain(secret);
    }
  });

  it('in a terminal, take one short line an event: the fields the message already says stay in JSON', () => {
    const { logger, text } = written({ format: 'pretty' });
    logger.info({ url: 'http://127.0.0.1:9464' }, 'ops server at http://127.0.0.1:9464');
    logger.info({ added: 4, updated: 0, removed: 0 }, 'poll schedules: 4 added, 0 updated, 0 removed');
    logger.info(
      { category: 'store-design', requests: 2, ranked: 44 },
      'store-design: snapshot of 44 ranked apps',
    );
    expect(lines(text())).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: ops server at http:\/\/127\.0\.0\.1:9464$/),
      expect.stringMatching(/INFO: poll schedules: 4 added, 0 updated, 0 removed$/),
      expect.stringMatching(/INFO: store-design: snapshot of 44 ranked apps$/),
    ]);
  });

  it('in a terminal, give a warning what its message leaves out, on its line, secrets redacted', () => {
    const { logger, text } = written({ format: 'pretty' });
    const err = new Error('HTTP 429 Too Many Requests');
    logger.warn({ err, app: 'acme', retryIn: '5s', smtpUrl: 'smtp://u:p4ss@mail' }, 'acme: poll failed');
    const [line, ...more] = lines(text());
    expect(more).toEqual([]);
    expect(line).toMatch(
      /WARN: acme: poll failed: HTTP 429 Too Many Requests \(retryIn=5s, smtpUrl=\[redacted\]\)$/,
    );
    expect(text()).not.toContain('p4ss');
    // No stack in a terminal unless asked for (--verbose is the debug level): then every field, as before.
    const verbose = written({ format: 'pretty', level: 'debug' });
    verbose.logger.warn({ err, app: 'acme' }, 'acme: poll failed');
    expect(lines(verbose.text()).length).toBeGreaterThan(3);
    expect(verbose.text()).toContain('app: "acme"');
  });

  it('redirected, stay JSON with every field, one object a line', () => {
    const { logger, text } = written({ format: 'json' });
    logger.info({ added: 4 }, 'poll schedules: 4 added');
    const [line, ...more] = lines(text());
    expect(more).toEqual([]);
    expect(JSON.parse(line ?? '')).toMatchObject({ level: 30, added: 4, msg: 'poll schedules: 4 added' });
  });

  it("leave out in the demo's terminal what the alert just printed says, and only there", () => {
    const delivered = (channel: string) => ({ channel, app: 'acme', deliveries: 1 });
    const message = (channel: string) => `delivered 1 alert(s) of acme to "${channel}"`;
    const terminal = written({ format: 'pretty', omit: alreadyOnScreen });
    terminal.logger.info(delivered(DEMO_TERMINAL), message(DEMO_TERMINAL));
    terminal.logger.info(delivered('slack'), message('slack'));
    terminal.logger.child({ app: 'acme' }).info(delivered(DEMO_TERMINAL), message(DEMO_TERMINAL));
    expect(lines(terminal.text())).toEqual([
      expect.stringMatching(/INFO: delivered 1 alert\(s\) of acme to "slack"$/),
    ]);
    const json = written({ format: 'json', omit: alreadyOnScreen });
    json.logger.info(delivered(DEMO_TERMINAL), message(DEMO_TERMINAL));
    expect(lines(json.text())).toHaveLength(1);
  });
});
