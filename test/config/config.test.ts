import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';
import { tempDir } from '../helpers/index.js';

function problems(raw: unknown, env: Record<string, string> = {}): string[] {
  try {
    parseConfig(raw, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('config', () => {
  it('fills in defaults and parses durations', () => {
    const config = parseConfig(
      { apps: [{ handle: 'my-app' }], poll: { every: '1h30m', backoff: '500ms' } },
      {},
    );
    expect(config.poll).toMatchObject({ every: 5_400_000, backoff: 500, concurrency: 4, maxPages: 10 });
    expect(config.catalog.maxRequestsPerSecond).toBe(5);
    expect(config.alerts.lowRating.maxRating).toBe(3);
    expect(config.apps[0]).toEqual({ handle: 'my-app', role: 'own', notify: [] });
  });

  it('names the path of an unknown key', () => {
    expect(problems({ apps: [{ handle: 'a' }], alerts: { lowRatingg: { maxRating: 2 } } })).toEqual([
      'alerts.lowRatingg: unknown key',
    ]);
    expect(problems({ apps: [{ handle: 'a', notfy: [] }] })).toEqual(['apps[0].notfy: unknown key']);
  });

  it('says which environment variable is missing', () => {
    const raw = {
      apps: [{ handle: 'a' }],
      channels: { support: { type: 'slack', webhookUrl: '${SLACK_WEBHOOK_URL}' } },
    };
    expect(problems(raw)).toEqual([
      'channels.support.webhookUrl: environment variable SLACK_WEBHOOK_URL is not set',
    ]);
    const config = parseConfig(raw, { SLACK_WEBHOOK_URL: 'https://hooks.example/T/B/x' });
    expect(config.channels.support).toEqual({
      type: 'slack',
      webhookUrl: 'https://hooks.example/T/B/x',
      minPriority: 'low',
    });
  });

  it('interpolates after parsing, so a value is never read as YAML', () => {
    const config = parseConfig(
      { catalog: { baseUrl: '${BASE}', apiKey: '${KEY}' }, apps: [{ handle: 'a' }] },
      { BASE: 'http://127.0.0.1:4010', KEY: '{a: 1}\n- b' },
    );
    expect(config.catalog.apiKey).toBe('{a: 1}\n- b');
  });

  it('takes the catalog connection from the environment when the file leaves it out', () => {
    const config = parseConfig(
      { apps: [{ handle: 'a' }] },
      { CATALOG_API_BASE_URL: 'http://x.example', CATALOG_API_KEY: 'k' },
    );
    expect(config.catalog).toMatchObject({ baseUrl: 'http://x.example', apiKey: 'k' });
    expect(problems({ apps: [{ handle: 'a' }] }, { CATALOG_API_KEY: 'k' })).toEqual([
      'catalog.baseUrl: required when an API key is set (set CATALOG_API_BASE_URL)',
    ]);
  });

  it('rejects bad values with what is wrong', () => {
    expect(
      problems({
        apps: [{ handle: 'My App' }],
        poll: { every: '15 minutes', concurrency: 0 },
        alerts: { lowRating: { maxRating: 9 } },
      }),
    ).toEqual([
      'poll.every: "15 minutes" is not a duration (use e.g. 30s, 15m, 1h)',
      'poll.concurrency: Too small: expected number to be >=1',
      'apps[0].handle: a handle is lowercase letters, digits and hyphens (e.g. my-app)',
      'alerts.lowRating.maxRating: Too big: expected number to be <=5',
    ]);
    expect(problems({})).toEqual(['apps: required']);
  });

  it('checks that channels referenced by apps and the digest exist, and that apps are listed once', () => {
    expect(
      problems({
        apps: [{ handle: 'a', notify: ['support'] }, { handle: 'a' }],
        digest: { channels: ['team-mail'] },
      }),
    ).toEqual([
      'apps[0].notify[0]: no channel named "support"',
      'apps[1].handle: "a" is listed twice',
      'digest.channels[0]: no channel named "team-mail"',
    ]);
  });

  it('names a bad value and an unknown channel in the same run', () => {
    expect(
      problems({
        apps: [{ handle: 'a', notify: ['support'] }],
        poll: { every: '15 minutes' },
      }),
    ).toEqual([
      'poll.every: "15 minutes" is not a duration (use e.g. 30s, 15m, 1h)',
      'apps[0].notify[0]: no channel named "support"',
    ]);
    // The rule reading a broken key waits for it: no second problem made of the first.
    expect(problems({ apps: [{ handle: 'a', notify: ['support'] }], channels: { support: 'nope' } })).toEqual(
      [expect.stringMatching(/^channels\.support/)],
    );
  });

  it('loads the shipped example and the simulator config', () => {
    const env = {
      CATALOG_API_BASE_URL: 'https://api.example',
      CATALOG_API_KEY: 'k',
      SLACK_WEBHOOK_URL: 'https://hooks.example/x',
    };
    expect(loadConfig('config/reviewwatch.example.yaml', env).apps.map((a) => a.handle)).toEqual([
      'my-app',
      'rival-app',
    ]);
    expect(loadConfig('config/simulator.yaml', {}).catalog.apiKey).toBeUndefined();
  });

  it('reports YAML syntax errors and a missing file', () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, 'bad.yaml');
      writeFileSync(file, 'apps:\n  - handle: a\n   notify: [x\n');
      expect(() => loadConfig(file)).toThrow(/YAML/);
      expect(() => loadConfig(join(dir, 'missing.yaml'))).toThrow(
        /not found \(copy config\/reviewwatch.example.yaml/,
      );
    } finally {
      cleanup();
    }
  });
});
