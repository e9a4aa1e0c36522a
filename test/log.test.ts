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
        },
        'loaded',
      );
      expect(text).toContain('loaded');
      expect(text).toContain('[redacted]');
      for (const secret of ['sk-live-123', 'hooks.slack.com', 'p4ss', 'sk-live-456'])
        expect(text).not.toContain(secret);
    }
  });
});
