import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';

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
});
