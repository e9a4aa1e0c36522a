import { describe, expect, it } from 'vitest';
import { CatalogAuthError, CatalogRateLimitError, CatalogUnavailableError } from '../../src/catalog/index.js';
import { type BackoffNotice, withBackoff } from '../../src/onboard/backoff.js';
import { closestHandles, editDistance } from '../../src/onboard/closest.js';
import { parseRendered, renderConfig } from '../../src/onboard/config-writer.js';
import type { Discovery } from '../../src/onboard/discover.js';

describe('closest handles', () => {
  it('counts a swapped pair of letters as one edit', () => {
    expect(editDistance('acme-inventory', 'acme-invnetory')).toBe(1);
    expect(editDistance('acme', 'acne')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting', 1)).toBe(2);
  });

  it('suggests the closest handles within a typo of what was typed, closest first', () => {
    const handles = ['acme-inventory', 'acme-invoices', 'bolt-reviews', 'acme-inventory-pro', 'zeta'];
    expect(closestHandles('acme-inventroy', handles)).toEqual(['acme-inventory']);
    expect(closestHandles('acme-inventor', handles)).toEqual(['acme-inventory', 'acme-inventory-pro']);
    // A part of a handle is no typo of it, but is likely what was meant.
    expect(closestHandles('inventory', handles)).toEqual(['acme-inventory', 'acme-inventory-pro']);
    expect(closestHandles('bolt-review', handles)).toEqual(['bolt-reviews']);
    expect(closestHandles('nothing-like-it', handles)).toEqual([]);
  });
});

describe('backing off', () => {
  const endpoint = 'GET /v1/scrape/platform/apps';

  it("waits the API's Retry-After on a 429, else doubles from a second, and gives up on what cannot change", async () => {
    const waits: BackoffNotice[] = [];
    const slept: number[] = [];
    const failures = [
      new CatalogRateLimitError(endpoint, 7_000),
      new CatalogRateLimitError(endpoint, undefined),
      // An hour asked: waited five minutes at most.
      new CatalogRateLimitError(endpoint, 3_600_000),
    ];
    const options = {
      sleep: async (ms: number) => void slept.push(ms),
      random: () => 1,
      onWait: (n: BackoffNotice) => void waits.push(n),
    };
    const result = await withBackoff(async () => {
      const next = failures.shift();
      if (next) throw next;
      return 'read';
    }, options);
    expect(result).toBe('read');
    expect(slept).toEqual([7_000, 2_000, 300_000]);
    expect(waits.map((w) => [w.reason, w.attempt])).toEqual([
      ['rate limit', 2],
      ['rate limit', 3],
      ['rate limit', 4],
    ]);

    let calls = 0;
    const rejected = withBackoff(async () => {
      calls++;
      throw new CatalogAuthError(endpoint, 401, '');
    }, options);
    await expect(rejected).rejects.toBeInstanceOf(CatalogAuthError);
    expect(calls).toBe(1);

    calls = 0;
    const down = withBackoff(
      async () => {
        calls++;
        throw new CatalogUnavailableError(endpoint, 'HTTP 503');
      },
      { ...options, failureAttempts: 3 },
    );
    await expect(down).rejects.toBeInstanceOf(CatalogUnavailableError);
    expect(calls).toBe(3);
  });
});

describe('the written config', () => {
  const discovery: Pick<Discovery, 'developer' | 'own' | 'categories'> = {
    developer: { handle: 'my-dev', name: 'My Dev\nrole: competitor' },
    own: [{ handle: 'my-app', name: 'Mine\n  - handle: injected\u0007', categories: ['store-design'] }],
    categories: [
      { handle: 'store-design', name: 'Store design', ranks: [{ handle: 'my-app', rank: 4 }], pages: 2 },
    ],
  };

  it('keeps names from the marketplace to single comment lines, so none can add a key', () => {
    const text = renderConfig({
      discovery,
      competitors: [
        {
          handle: 'rival',
          name: '# x\r\napps: []',
          category: 'store-design',
          rank: 3,
          near: { handle: 'my-app', rank: 4 },
        },
      ],
      command: 'reviewwatch init --developer my-dev',
      writtenAt: new Date('2026-01-05T00:00:00Z'),
    });
    const config = parseRendered(text, 'written');
    expect(config.apps.map((a) => [a.handle, a.role])).toEqual([
      ['my-app', 'own'],
      ['rival', 'competitor'],
    ]);
    expect(config.categories).toEqual([{ handle: 'store-design', pages: 2, notify: [] }]);
    expect(config.channels).toEqual({ terminal: { type: 'console', minPriority: 'low' } });
    expect(text.includes('\u0007') || text.includes('\r')).toBe(false);
  });

  it('refuses to write a handle that is not one', () => {
    const draft = {
      discovery: { ...discovery, own: [{ handle: 'Bad Handle', name: 'x', categories: [] }] },
      competitors: [],
      command: 'reviewwatch init',
      writtenAt: new Date(),
    };
    expect(() => renderConfig(draft)).toThrow(/not a handle/);
  });
});
