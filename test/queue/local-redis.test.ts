import { describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { resolveRedis } from '../../src/queue/local-redis.js';
import { captureLog, freePort, REDIS_URL, tempDir } from '../helpers/index.js';

describe('resolveRedis', () => {
  it('uses REDIS_URL as given', async () => {
    const endpoint = await resolveRedis({
      redisUrl: REDIS_URL,
      dataDir: '/nonexistent',
      logger: captureLog().logger,
    });
    expect(endpoint.url).toBe(REDIS_URL);
  });

  it('starts a private redis-server when nothing answers, and stops it', async () => {
    const dir = tempDir();
    const log = captureLog();
    const port = await freePort();
    try {
      const endpoint = await resolveRedis({
        redisUrl: undefined,
        dataDir: dir.dir,
        logger: log.logger,
        port,
      });
      expect(endpoint.url).toBe(`redis://127.0.0.1:${port}`);
      const redis = await connectRedis(endpoint.url);
      expect(await redis.ping()).toBe('PONG');
      expect((await redis.config('GET', 'dir'))[1]).toBe(dir.dir);
      await redis.quit();
      expect(log.text()).toMatch(/started a private redis-server/);
      await endpoint.stop();
      await expect(connectRedis(endpoint.url)).rejects.toThrow(/Cannot reach Redis/);
    } finally {
      dir.cleanup();
    }
  });

  it('says how to get a Redis when there is none and no redis-server to start', async () => {
    const port = await freePort();
    await expect(
      resolveRedis({
        redisUrl: undefined,
        dataDir: '/tmp',
        logger: captureLog().logger,
        port,
        binary: 'no-such-redis-server',
      }),
    ).rejects.toThrow(/apt install redis-server.*brew install redis.*docker run.*REDIS_URL/);
  });
});
