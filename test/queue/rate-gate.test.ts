import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { RedisRequestGate } from '../../src/queue/rate-gate.js';
import { REDIS_URL, uniquePrefix } from '../helpers/index.js';

let a: Redis;
let b: Redis;
let prefix: string;

beforeEach(async () => {
  a = await connectRedis(REDIS_URL);
  b = await connectRedis(REDIS_URL);
  prefix = uniquePrefix();
});
afterEach(async () => {
  await a.del(`${prefix}:catalog-gate`);
  await a.quit();
  await b.quit();
});

describe('RedisRequestGate', () => {
  it('spaces requests from two processes to maxRequestsPerSecond together', async () => {
    const options = { prefix, maxRequestsPerSecond: 20 };
    const gates = [new RedisRequestGate(a, options), new RedisRequestGate(b, options)];
    const times: number[] = [];
    const start = Date.now();
    await Promise.all(
      Array.from({ length: 21 }, async (_, i) => {
        await gates[i % 2]?.acquire();
        times.push(Date.now() - start);
      }),
    );
    times.sort((x, y) => x - y);
    // 21 requests at 20/s: the last may go no sooner than one second after the first.
    expect((times.at(-1) ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(950);
    // And no 1-second window holds more than 21 (one per 50 ms).
    for (let i = 10; i < times.length; i++)
      expect((times[i] ?? 0) - (times[i - 10] ?? 0)).toBeGreaterThanOrEqual(440);
  });

  it('holds a high rate too, where slots are reserved in batches', async () => {
    const options = { prefix, maxRequestsPerSecond: 500 };
    const gates = [new RedisRequestGate(a, options), new RedisRequestGate(b, options)];
    const calls: string[] = [];
    const monitor = (await a.duplicate().monitor()) as unknown as NodeJS.EventEmitter & {
      disconnect(): void;
    };
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (/evalsha|eval/i.test(args[0] ?? '')) calls.push(args[0] ?? '');
    });
    const start = Date.now();
    await Promise.all(Array.from({ length: 200 }, (_, i) => gates[i % 2]?.acquire()));
    // 200 requests at 500/s: at least 0.35 s (the first batch may start at once).
    expect(Date.now() - start).toBeGreaterThanOrEqual(350);
    // Far fewer Redis calls than requests: 50 slots (100 ms) per reservation.
    await new Promise((resolve) => setTimeout(resolve, 50));
    monitor.disconnect();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.length).toBeLessThanOrEqual(20);
  });
});
