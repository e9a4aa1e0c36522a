import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import type { Logger } from '../../src/log.js';
import { openStore, type Store } from '../../src/store/db.js';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh directory removed by the returned cleanup. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'reviewwatch-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A real SQLite file in a fresh directory. */
export function tempStore(): Store & { cleanup: () => void } {
  const { dir, cleanup } = tempDir();
  const store = openStore(join(dir, 'reviewwatch.db'));
  return {
    ...store,
    cleanup: () => {
      store.close();
      cleanup();
    },
  };
}

/**
 * Deletes every key under `prefix:` in one step, as Redis loses data: a FLUSHALL, a restart without
 * persistence or a failover to an empty replica takes every key at once. A SCAN and DEL from here would
 * not: a plan running beside it could write keys the cursor has passed between deletions of others, and
 * leave a state no real loss leaves (a scheduler's next job kept while the scheduler is gone). Only this
 * prefix, because the test files share one Redis.
 */
export async function loseEverything(redis: Redis, prefix: string): Promise<number> {
  const script = `
    local removed, cursor = 0, '0'
    repeat
      local page = redis.call('SCAN', cursor, 'MATCH', ARGV[1], 'COUNT', 1000)
      cursor = page[1]
      for _, key in ipairs(page[2]) do removed = removed + redis.call('DEL', key) end
    until cursor == '0'
    return removed`;
  return (await redis.eval(script, 0, `${prefix}:*`)) as number;
}

/** A BullMQ prefix of its own per test, so parallel test files never share queues. */
export function uniquePrefix(): string {
  return `rwtest-${randomUUID().slice(0, 8)}`;
}

export interface CapturedLog {
  logger: Logger;
  lines: () => Array<{ level: number; msg: string; [key: string]: unknown }>;
  text: () => string;
}

/** A real pino logger whose JSON lines the test can read. */
export function captureLog(level = 'debug'): CapturedLog {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = pino({ level }, sink);
  const text = () => chunks.join('');
  return {
    logger,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
  };
}

/** A port nothing listens on: one the OS gave out, then closed again. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/** Resolves once `condition` holds, checking every 25 ms; rejects with `describe()` after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
  describe: () => string = () => 'condition not met',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
