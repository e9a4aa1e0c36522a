import type { Redis } from 'ioredis';
import { ExitCode, ReviewwatchError } from '../errors.js';
import { processId } from '../util/process-id.js';

/** How long a claim outlives a process that died without releasing it (SIGKILL). */
const CLAIM_TTL_MS = 15_000;

export interface PrefixClaim {
  release(): Promise<void>;
}

/**
 * A private queue prefix (the demo's) belongs to one process at a time. Its keys are removed when it starts
 * and stops, so a second process on the same prefix and Redis would wipe the first's jobs and share its
 * queues: each would run the other's notify jobs against its own database, and alerts would go missing.
 * The claim sits beside the prefix's keys (`prefix~owner`, not `prefix:…`), so their removal leaves it, and
 * it lapses CLAIM_TTL_MS after its process stops renewing it.
 */
export async function claimPrefix(redis: Redis, prefix: string): Promise<PrefixClaim> {
  const key = `${prefix}~owner`;
  const owner = processId();
  if ((await redis.set(key, owner, 'PX', CLAIM_TTL_MS, 'NX')) !== 'OK') {
    const holder = (await redis.get(key)) ?? 'another process';
    throw new ReviewwatchError(
      `the queue prefix "${prefix}" is in use by ${holder} on this Redis: stop that one first (its demo, say), or point REDIS_URL at another Redis`,
      { exitCode: ExitCode.Unavailable },
    );
  }
  const renew = async () => {
    // Taken again when a flush removed it; renewed only while it is this process's.
    await redis.set(key, owner, 'PX', CLAIM_TTL_MS, 'NX');
    if ((await redis.get(key)) === owner) await redis.pexpire(key, CLAIM_TTL_MS);
  };
  const timer = setInterval(() => void renew().catch(() => undefined), CLAIM_TTL_MS / 3);
  timer.unref();
  return {
    async release() {
      clearInterval(timer);
      if ((await redis.get(key)) === owner) await redis.del(key);
    },
  };
}
