import { dirname, join } from 'node:path';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import { connectRedis, isConnectionError, isLostJobError, watchConnection } from '../queue/connection.js';
import { resolveRedis } from '../queue/local-redis.js';
import type { Settings } from '../settings.js';
import { openStore, type Store } from '../store/db.js';
import type { Releasers } from '../util/releasers.js';

export interface Storage {
  store: Store;
  redis: Redis;
  /**
   * An error handler for a component on the Redis connection. When Redis goes away every connection
   * reports its failure and each reconnect attempt: the connection watch says it once, so these go to
   * debug; a job Redis lost meanwhile is a warning; anything else an error.
   */
  reportError(what: string): (err: Error) => void;
  /** Runs `fn` whenever Redis comes back after an outage (it may have come back empty). */
  onRedisBack(fn: () => void): void;
}

/** The database and Redis (a private redis-server when none answers and REDIS_URL is unset). */
export async function openStorage(
  settings: Settings,
  releasers: Releasers,
  logger: Logger,
): Promise<Storage> {
  const store = openStore(settings.databasePath);
  releasers.add('SQLite', () => store.close());
  const endpoint = await resolveRedis({
    redisUrl: settings.redisUrlGiven ? settings.redisUrl : undefined,
    dataDir: join(dirname(settings.databasePath), 'redis'),
    logger,
  });
  releasers.add('private redis-server', () => endpoint.stop());
  const redis = await connectRedis(endpoint.url);
  releasers.add('Redis connection', async () => {
    await redis.quit().catch(() => redis.disconnect());
  });
  const whenBack: Array<() => void> = [];
  const connection = watchConnection(redis, logger, () => {
    for (const fn of whenBack) fn();
  });
  releasers.add('Redis connection watch', () => connection.stop());
  return {
    store,
    redis,
    reportError: (what) => (err) => {
      if (connection.down() || isConnectionError(err)) {
        logger.debug({ err: err.message }, `${what} error while Redis is down`);
      } else if (isLostJobError(err)) {
        logger.warn({ err: err.message }, `${what}: Redis lost a job while it ran; what it did is in SQLite`);
      } else {
        logger.error({ err: err.message }, `${what} error`);
      }
    },
    onRedisBack: (fn) => whenBack.push(fn),
  };
}
