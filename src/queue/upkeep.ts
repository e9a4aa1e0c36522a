import type { Redis } from 'ioredis';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';

/**
 * Job schedulers, the outbox sweep and the digest schedule live only in Redis: a FLUSHALL, an eviction or
 * a restart of a Redis without persistence removes them, and BullMQ recreates none of it. A marker key
 * written after they were put in place tells when Redis came back empty; SQLite is the truth for what is
 * owed, so putting them back from the config and the outbox loses nothing.
 */
export interface Upkeep {
  /** Checks the marker now; re-asserts everything when it is gone. */
  check(): Promise<void>;
  /**
   * Whether the marker is there: false from a flush until `check` has put everything back; true while
   * Redis is not connected, when there is nothing to tell.
   */
  present(): Promise<boolean>;
  stop(): void;
}

export async function startUpkeep(options: {
  redis: Redis;
  prefix: string;
  everyMs: number;
  logger: Logger;
  /** Puts the schedules, the sweep and whatever the outbox owes (back) in Redis; idempotent. */
  reassert: () => Promise<void>;
  /** Also called at every check. */
  onTick?: () => void;
  /** Called once everything was put back after a loss. */
  onRestored?: () => void;
}): Promise<Upkeep> {
  const { redis, logger } = options;
  const marker = `${options.prefix}:upkeep`;
  let running: Promise<void> | undefined;
  const check = () => {
    running ??= (async () => {
      try {
        if ((await redis.exists(marker)) === 1) return;
        logger.warn(
          "Redis has lost reviewwatch's schedules (flushed, or restarted without persistence): putting them back from the config and the outbox",
        );
        await options.reassert();
        await redis.set(marker, String(Date.now()));
        options.onRestored?.();
      } catch (err) {
        // Redis is down: the connection watcher has said so; the next check (or its return) retries.
        logger.debug(`upkeep check failed: ${errorMessage(err)}`);
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  await redis.set(marker, String(Date.now()));
  const timer = setInterval(() => {
    options.onTick?.();
    void check();
  }, options.everyMs);
  timer.unref();
  return {
    check,
    // Not asked while the connection is down: the command would wait for it (and the probe with it), and
    // /readyz reports Redis itself then.
    present: async () => redis.status !== 'ready' || (await redis.exists(marker)) === 1,
    stop: () => clearInterval(timer),
  };
}
