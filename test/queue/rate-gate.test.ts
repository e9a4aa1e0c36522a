import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { RedisRequestGate } from '../../src/queue/rate-gate.js';
import { REDIS_URL, uniquePrefix, waitFor } from '../helpers/index.js';

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
    const calls: string[] = [];
    const monitor = (await a.duplicate().monitor()) as unknown as NodeJS.EventEmitter & {
      disconnect(): void;
    };
    // The monitor sees the whole server: other test files' queues run scripts too, so count only ours.
    const gateKey = `${prefix}:catalog-gate`;
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (/evalsha|eval/i.test(args[0] ?? '') && args.includes(gateKey)) calls.push(args[0] ?? '');
    });
    const start = Date.now();
    await Promise.all(Array.from({ length: 200 }, (_, i) => gates[i % 2]?.acquire()));
    // 200 requests at 500/s: at least 0.35 s (the first batch may start at once).
    expect(Date.now() - start).toBeGreaterThanOrEqual(350);
    // Far fewer Redis calls than requests: 50 slots (100 ms) per reservation. Redis reports commands to a
    // monitor in the order it runs them, so once a marker sent after the last reservation shows up, every
    // reservation has been counted.
    const marker = `${prefix}:monitor-marker`;
    let seen = false;
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args[1] === marker) seen = true;
    });
    await a.exists(marker);
    await waitFor(
      () => seen,
      15_000,
      () => 'the monitor did not report the marker',
    );
    monitor.disconnect();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.length).toBeLessThanOrEqual(20);
  });
});
