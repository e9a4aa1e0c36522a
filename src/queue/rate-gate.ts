import type { Redis } from 'ioredis';
import type { RequestGate } from '../catalog/index.js';

/**
 * Reserves the next free request slot (generic cell rate algorithm): each call moves a shared
 * "theoretical arrival time" one interval forward and returns how long the caller must wait for its
 * slot. Redis's own clock is used so processes on different hosts agree.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local interval = tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local nextTat = tat + interval
redis.call('SET', KEYS[1], tostring(nextTat), 'PX', math.ceil(nextTat - now) + 1000)
return tostring(tat - now)
`;

type GateRedis = Redis & { reviewwatchReserveSlot(key: string, intervalMs: string): Promise<string> };

/** Enforces `catalog.maxRequestsPerSecond` across every worker process sharing the Redis. */
export class RedisRequestGate implements RequestGate {
  readonly #redis: GateRedis;
  readonly #key: string;
  readonly #intervalMs: number;

  constructor(redis: Redis, options: { prefix: string; maxRequestsPerSecond: number }) {
    // defineCommand sends EVALSHA after the first call instead of the script text every time.
    redis.defineCommand('reviewwatchReserveSlot', { numberOfKeys: 1, lua: RESERVE });
    this.#redis = redis as GateRedis;
    this.#key = `${options.prefix}:catalog-gate`;
    this.#intervalMs = 1000 / options.maxRequestsPerSecond;
  }

  async acquire(): Promise<void> {
    const wait = Number(await this.#redis.reviewwatchReserveSlot(this.#key, String(this.#intervalMs)));
    if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
