import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { RedisRequestGate } from '../../src/queue/rate-gate.js';
import { REDIS_URL, uniquePrefix } from '../helpers/index.js';

/** A connection a gate has defined its command on. */
type GateRedis = Redis & { reviewwatchReserveSlots(...args: string[]): Promise<string> };

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
      Array.from({ length: 41 }, async (_, i) => {
        await gates[i % 2]?.acquire();
        times.push(Date.now() - start);
      }),
    );
    times.sort((x, y) => x - y);
    // What is measured is when each request got going, and a busy machine only makes that later than
    // its slot: a late early request shortens a span, by 100 ms and more on a loaded CI box. So the
    // bounds leave room for that, and still sit far above what broken gates give: two gates that did
    // not share one schedule would each run at 20/s (half these spans), and a burst gives 0.
    // 41 requests at 20/s: the last goes no sooner than two seconds after the first.
    expect((times.at(-1) ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(1_800);
    // And no burst anywhere: any 21 requests span 20 intervals (1 s).
    for (let i = 20; i < times.length; i++)
      expect((times[i] ?? 0) - (times[i - 20] ?? 0)).toBeGreaterThanOrEqual(600);
  });

  it('holds a high rate too, where slots are reserved in batches', async () => {
    const options = { prefix, maxRequestsPerSecond: 500 };
    const gates = [new RedisRequestGate(a, options), new RedisRequestGate(b, options)];
    // The gate's one Redis call, counted on each connection. Not through MONITOR: it streams every command
    // of the server, the other test fork's too, and parsing it here can delay this process's timers
    // (see the bound below).
    const calls = [a, b].map((redis) => vi.spyOn(redis as GateRedis, 'reviewwatchReserveSlots'));
    const start = Date.now();
    await Promise.all(Array.from({ length: 200 }, (_, i) => gates[i % 2]?.acquire()));
    // 200 requests at 500/s: at least 0.35 s (the first batch may start at once).
    expect(Date.now() - start).toBeGreaterThanOrEqual(350);
    // Far fewer Redis calls than requests: 50 slots (100 ms) per reservation, four in all when timers are
    // on time. A slot missed by more than an interval is dropped, not spent late, so a stalled process
    // reserves more: 20 calls would take 800 dropped slots, 1.6 s of stalls.
    const reservations = calls.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
    expect(reservations).toBeGreaterThanOrEqual(4);
    expect(reservations).toBeLessThanOrEqual(20);
  });
});
