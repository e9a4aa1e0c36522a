import { describe, expect, it } from 'vitest';
import { postJson, redactUrls } from '../../src/notify/json-post.js';

describe('postJson', () => {
  it('names no credentials of a URL that carries them when it cannot send', async () => {
    // fetch refuses such a URL, quoting it whole in its error.
    const error = await postJson('alerts', 'Teams', 'http://bob:hunter2@127.0.0.1:9/hook', {}, 1_000).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/channel "alerts".*Teams is unreachable/);
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('bob');
  });
});

describe('redactUrls', () => {
  it('keeps only the host of a URL, and nothing of one with credentials', () => {
    expect(redactUrls('see https://discord.com/api/webhooks/1/tok for more')).toBe(
      'see https://discord.com/… for more',
    );
    expect(redactUrls('at https://bob:hunter2@example.com/x')).toBe('at …');
    // A password with a stray slash does not pass for the host.
    expect(redactUrls('at HTTPS://bob:hun/ter2@example.com/x')).toBe('at …');
  });
});
