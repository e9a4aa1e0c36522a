import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';

function problems(raw: Record<string, unknown>): string[] {
  try {
    parseConfig({ apps: [{ handle: 'my-app' }], ...raw }, {});
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('scheduling config', () => {
  it('defaults to the fixed schedule, with bounds for the adaptive ones', () => {
    const config = parseConfig({ apps: [{ handle: 'my-app' }] }, {});
    expect(config.poll).toMatchObject({ schedule: 'fixed', minEvery: 120_000, maxEvery: 43_200_000 });
    expect(config.catalog.dailyRequestBudget).toBeUndefined();
    expect(config.apps[0]?.weight).toBeUndefined();
  });

  it('takes a budget, bounds and weights', () => {
    const config = parseConfig(
      {
        poll: { schedule: 'budget', minEvery: '1m', maxEvery: '1d' },
        catalog: { dailyRequestBudget: 20_000 },
        apps: [
          { handle: 'my-app', weight: 2 },
          { handle: 'rival', role: 'competitor' },
        ],
      },
      {},
    );
    expect(config.poll).toMatchObject({ schedule: 'budget', minEvery: 60_000, maxEvery: 86_400_000 });
    expect(config.catalog.dailyRequestBudget).toBe(20_000);
    expect(config.apps.map((a) => a.weight)).toEqual([2, undefined]);
  });

  it('says what is wrong', () => {
    expect(problems({ poll: { schedule: 'budget' } })).toEqual([
      'catalog.dailyRequestBudget: required when poll.schedule is budget (requests a day, e.g. 20000)',
    ]);
    expect(problems({ poll: { schedule: 'sometimes' } })[0]).toMatch(/^poll\.schedule: /);
    expect(problems({ poll: { minEvery: '2h', maxEvery: '1h' } })).toEqual([
      'poll.minEvery: must be at most poll.maxEvery',
    ]);
    expect(problems({ poll: { schedule: 'adaptive', every: '1m' } })).toEqual([
      'poll.every: must lie between poll.minEvery and poll.maxEvery when poll.schedule is adaptive',
    ]);
    // The fixed schedule ignores the bounds.
    expect(problems({ poll: { every: '1m' } })).toEqual([]);
    expect(problems({ catalog: { dailyRequestBudget: 0 } })[0]).toMatch(/^catalog\.dailyRequestBudget: /);
    expect(problems({ apps: [{ handle: 'a', weight: -1 }] })[0]).toMatch(/^apps\[0\]\.weight: /);
  });
});
