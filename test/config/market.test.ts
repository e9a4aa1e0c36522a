import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';

function problems(raw: unknown): string[] {
  try {
    parseConfig(raw, {});
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

const apps = [{ handle: 'my-app' }];

describe('market config', () => {
  it('defaults: no categories, snapshots every 6h, listings every 24h, nothing ignored', () => {
    const config = parseConfig({ apps }, {});
    expect(config.categories).toEqual([]);
    expect(config.market).toEqual({ every: 6 * 3_600_000 });
    expect(config.listing).toEqual({ every: 24 * 3_600_000, ignore: [] });
  });

  it('reads categories with their pages and channels, and the intervals and ignored fields', () => {
    const config = parseConfig(
      {
        apps,
        channels: { support: { type: 'console' } },
        categories: [
          { handle: 'store-design', notify: ['support'] },
          { handle: 'finances', pages: 3 },
        ],
        market: { every: '12h' },
        listing: { every: '2d', ignore: ['description', 'languages'] },
      },
      {},
    );
    expect(config.categories).toEqual([
      { handle: 'store-design', pages: 2, notify: ['support'] },
      { handle: 'finances', pages: 3, notify: [] },
    ]);
    expect(config.market.every).toBe(12 * 3_600_000);
    expect(config.listing).toEqual({ every: 48 * 3_600_000, ignore: ['description', 'languages'] });
  });

  it('names the key of every bad value', () => {
    expect(
      problems({
        apps,
        categories: [
          { handle: 'Store Design', pages: 0 },
          { handle: 'finances', notify: ['nowhere'], page: 2 },
          { handle: 'finances' },
        ],
        market: { every: '1m', often: true },
        listing: { every: 'daily', ignore: ['title', 'price'] },
      }),
    ).toEqual([
      'categories[0].handle: a handle is lowercase letters, digits and hyphens (e.g. my-app)',
      'categories[0].pages: Too small: expected number to be >=1',
      'categories[1].page: unknown key',
      'market.every: must be at least 15m',
      'market.often: unknown key',
      'listing.every: "daily" is not a duration (use e.g. 30s, 15m, 1h)',
      expect.stringMatching(/^listing\.ignore\[1\]: Invalid option: expected one of "title"\|.*"badge"$/),
      // The rules across keys run too, in the same round: the categories parsed, bad values aside.
      'categories[1].notify[0]: no channel named "nowhere"',
      'categories[2].handle: "finances" is listed twice',
    ]);
    expect(
      problems({
        apps,
        categories: [{ handle: 'finances', notify: ['nowhere'] }, { handle: 'finances' }],
      }),
    ).toEqual([
      'categories[0].notify[0]: no channel named "nowhere"',
      'categories[1].handle: "finances" is listed twice',
    ]);
  });

  it('the shipped example tracks a category', () => {
    const env = {
      CATALOG_API_BASE_URL: 'https://api.example',
      CATALOG_API_KEY: 'k',
      SLACK_WEBHOOK_URL: 'https://hooks.example/x',
    };
    const config = loadConfig('config/reviewwatch.example.yaml', env);
    expect(config.categories.map((c) => c.handle)).toEqual(['store-design']);
    expect(config.listing.ignore).toEqual(['description']);
  });
});
