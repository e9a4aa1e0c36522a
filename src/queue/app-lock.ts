import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** Held while an app is being polled, by whichever process polls it; `status` and tests may read it. */
export function pollLockKey(prefix: string, handle: string): string {
  return `${prefix}:poll-lock:${handle}`;
}

/**
 * Deletes the lock only if it still holds our token, in one step: a GET then a DEL could delete a lock
 * that expired in between and was taken by another process.
 */
const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/** Extends the lock only if it still holds our token: one that lapsed and was taken is not ours to extend. */
const REFRESH_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

/** Deletes `key` if it holds `token`; returns whether it did. */
export async function releaseLock(redis: Redis, key: string, token: string): Promise<boolean> {
  return (await redis.eval(RELEASE_LOCK, 1, key, token)) === 1;
}

/** Gives `key` another `ttlMs` if it holds `token`; returns whether it did. */
export async function refreshLock(redis: Redis, key: string, token: string, ttlMs: number): Promise<boolean> {
  return (await redis.eval(REFRESH_LOCK, 1, key, token, ttlMs)) === 1;
}

export type LockedRun<T> = { taken: true; value: T } | { taken: false };

/**
 * Runs `fn` under a Redis lock (SET NX PX with a random token), or not at all when another holds it.
 * The lock is refreshed every third of `ttlMs` while `fn` runs, so a slow run keeps it however long it
 * takes, and a killed holder's lock frees itself within `ttlMs`. It is released by compare-and-delete.
 */
export async function withLock<T>(
  redis: Redis,
  key: string,
  options: { ttlMs: number; onLost?: () => void },
  fn: () => Promise<T>,
): Promise<LockedRun<T>> {
  const { ttlMs } = options;
  const token = `${process.pid}-${randomUUID()}`;
  if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') return { taken: false };
  let lost = false;
  const refresh = setInterval(
    () => {
      refreshLock(redis, key, token, ttlMs).then(
        (extended) => {
          if (!extended && !lost) {
            lost = true;
            options.onLost?.();
          }
        },
        // Redis unreachable: the next tick tries again; if it stays away the lock lapses, as it should.
        () => undefined,
      );
    },
    Math.max(1, Math.floor(ttlMs / 3)),
  );
  refresh.unref();
  try {
    return { taken: true, value: await fn() };
  } finally {
    clearInterval(refresh);
    // A release that fails (Redis away) leaves the lock to its TTL: it must not fail a finished run.
    await releaseLock(redis, key, token).catch(() => false);
  }
}
