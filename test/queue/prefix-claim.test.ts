/**
 * A private queue prefix (the demo's) is one process's: a second process on the same prefix and Redis is
 * refused, saying what to do, rather than wiping the first's jobs and running them against its own database.
 */
import { expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { claimPrefix } from '../../src/queue/prefix-claim.js';
import { REDIS_URL, uniquePrefix } from '../helpers/index.js';

it('refuses a second claim on a prefix until the first is released, and names who holds it', async () => {
  const redis = await connectRedis(REDIS_URL);
  const prefix = uniquePrefix();
  try {
    const first = await claimPrefix(redis, prefix);
    await expect(claimPrefix(redis, prefix)).rejects.toThrow(
      new RegExp(`queue prefix "${prefix}" is in use by [^ ]+:\\d+ on this Redis: stop that one first`),
    );
    // Another prefix is another demo's, or a test's.
    const other = await claimPrefix(redis, `${prefix}-other`);
    await other.release();
    await first.release();
    const second = await claimPrefix(redis, prefix);
    await second.release();
    expect(await redis.exists(`${prefix}~owner`)).toBe(0);
  } finally {
    await redis.quit();
  }
});
