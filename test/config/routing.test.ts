import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { routingWarnings } from '../../src/config/routing.js';

const env = { CATALOG_API_KEY: 'key', CATALOG_API_BASE_URL: 'http://127.0.0.1:9' };
const SLACK = { type: 'slack', webhookUrl: 'https://hooks.slack.com/services/T/B/x' };

function warningsOf(raw: Record<string, unknown>): string[] {
  return routingWarnings(parseConfig(raw, env));
}

describe('routingWarnings', () => {
  it('says which own apps name no channel, and which channel nothing names', () => {
    const warnings = warningsOf({
      apps: [{ handle: 'shop-one' }, { handle: 'shop-two' }, { handle: 'rival', role: 'competitor' }],
      channels: { team: SLACK },
    });
    expect(warnings).toEqual([
      '2 own apps (shop-one, shop-two) name no channel in `notify`: their alerts go to the inbox only (add `notify: [team]` to send them)',
      'channel "team" is in no app\'s or category\'s `notify` and not in `digest.channels`: it receives nothing',
    ]);
  });

  it('is quiet when every own app and every channel is routed, a competitor without notify included', () => {
    const warnings = warningsOf({
      apps: [
        { handle: 'shop-one', notify: ['team'] },
        { handle: 'rival', role: 'competitor' },
      ],
      channels: { team: SLACK, weekly: SLACK },
      digest: { channels: ['weekly'] },
    });
    expect(warnings).toEqual([]);
  });

  it('counts a category’s channel as named, and says nothing of a config with no channels at all', () => {
    expect(
      warningsOf({
        apps: [{ handle: 'shop-one', notify: ['team'] }],
        categories: [{ handle: 'store-design', notify: ['market'] }],
        channels: { team: SLACK, market: SLACK },
      }),
    ).toEqual([]);
    expect(warningsOf({ apps: [{ handle: 'shop-one' }] })).toEqual([]);
  });

  it('names five apps and counts the rest', () => {
    const apps = Array.from({ length: 8 }, (_, i) => ({ handle: `shop-${i}` }));
    const [first] = warningsOf({ apps, channels: { team: SLACK } });
    expect(first).toMatch(/^8 own apps \(shop-0, shop-1, shop-2, shop-3, shop-4 and 3 more\)/);
  });
});
