import { Redis, type RedisOptions } from 'ioredis';
import { ExitCode, errorMessage, ReviewwatchError } from '../errors.js';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_QUEUE_PREFIX = 'reviewwatch';

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return '(unparseable REDIS_URL)';
  }
}

/**
 * A connection BullMQ can use for workers and queues alike: workers need `maxRetriesPerRequest: null`,
 * so every connection gets it.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true, ...options });
}

/**
 * Connects and pings, failing fast with a message that says how to get a Redis. Without this, ioredis
 * retries forever and the CLI looks hung.
 */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = createRedis(url, { retryStrategy: () => null, connectTimeout: 5_000 });
  redis.on('error', () => {
    // Reported by the ping below; without a listener ioredis prints every retry to stderr.
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new ReviewwatchError(
      `Cannot reach Redis at ${redactUrl(url)} (${errorMessage(err)}): start one (e.g. \`redis-server\`, or \`docker run -p 6379:6379 redis:7\`) or set REDIS_URL.`,
      { cause: err, exitCode: ExitCode.Unavailable },
    );
  }
  // From here on, reconnect after a Redis restart instead of giving up.
  redis.options.retryStrategy = (attempt: number) => Math.min(attempt * 200, 5_000);
  return redis;
}

/** Deletes every key under `prefix:` (a private queue prefix: the demo's, a test's). */
export async function removePrefixedKeys(redis: Redis, prefix: string): Promise<number> {
  let removed = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) removed += await redis.del(...keys);
  } while (cursor !== '0');
  return removed;
}

/** Socket failures of a connection to Redis: ioredis reconnects by itself, and the outage is reported once. */
const CONNECTION_FAILURE =
  /\b(ECONNRESET|ECONNREFUSED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)\b|^Connection is closed/;

/**
 * Whether an error only says a connection to Redis failed. Every connection of every queue and worker
 * reports it on its own, in whatever order its socket fails, often before the connection watch has seen
 * the outage; the watch says it once for all of them.
 */
export function isConnectionError(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return CONNECTION_FAILURE.test(code ?? '') || CONNECTION_FAILURE.test(err.message);
}

/**
 * Whether BullMQ could not finish a job because Redis no longer has it (flushed, or restarted empty, while
 * the job ran). Nothing is lost: what the job did is in SQLite, and upkeep puts the schedules back.
 */
export function isLostJobError(err: Error): boolean {
  return /^Missing key for job /.test(err.message);
}

/**
 * Logs a lost Redis connection once, and its return once, however many reconnect attempts lie between;
 * `down()` tells the queue and worker error handlers to stay quiet meanwhile (each of their connections
 * would otherwise report every failed attempt).
 */
export function watchConnection(
  redis: Redis,
  logger: { warn(msg: string): void; info(msg: string): void },
  onBack?: () => void,
): { down(): boolean; stop(): void } {
  let lostAt: number | undefined;
  let stopped = false;
  redis.on('close', () => {
    if (lostAt !== undefined || stopped) return;
    lostAt = Date.now();
    logger.warn(
      `lost the connection to Redis at ${redactUrl(redis.options.host ? `redis://${redis.options.host}:${redis.options.port}` : 'redis')}: reconnecting; polls and deliveries wait, nothing is lost`,
    );
  });
  redis.on('ready', () => {
    if (lostAt === undefined) return;
    logger.info(`Redis is back after ${Math.round((Date.now() - lostAt) / 1000)}s`);
    lostAt = undefined;
    onBack?.();
  });
  return {
    down: () => lostAt !== undefined,
    // Before our own quit: closing it on purpose is no outage.
    stop: () => {
      stopped = true;
    },
  };
}
