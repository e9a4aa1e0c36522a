import { describe, expect, it } from 'vitest';
import { Releasers, withReleasers } from '../../src/util/releasers.js';

describe('Releasers', () => {
  it('releases last opened first, runs every release when one throws, and releases once', async () => {
    const order: string[] = [];
    const releasers = new Releasers();
    releasers.add('store', () => {
      order.push('store');
    });
    releasers.add('redis', () => {
      order.push('redis');
      throw new Error('connection reset');
    });
    releasers.add('workers', async () => {
      order.push('workers');
    });
    const first = releasers.releaseAll();
    const second = releasers.releaseAll();
    const errors = await first;
    expect(await second).toBe(errors);
    expect(order).toEqual(['workers', 'redis', 'store']);
    expect(errors.map((e) => e.message)).toEqual(['releasing redis failed: connection reset']);
    expect(() => releasers.add('late', () => {})).toThrow(/already released/);
  });

  it('gives back what a start-up opened before it failed', async () => {
    const released: string[] = [];
    await expect(
      withReleasers(async (releasers) => {
        releasers.add('store', () => {
          released.push('store');
        });
        releasers.add('redis', () => {
          released.push('redis');
        });
        throw new Error('port taken');
      }),
    ).rejects.toThrow('port taken');
    expect(released).toEqual(['redis', 'store']);
  });
});
