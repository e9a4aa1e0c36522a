import type { Redis } from 'ioredis';
import type { RequestGate } from '../catalog/index.js';

/**
 * Reserves the next `count` free request slots (generic cell rate algorithm): each call moves a shared
 * "theoretical arrival time" `count` intervals forward and returns how long until the first reserved
 * slot. Redis's own clock is used so processes on different hosts agree.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local interval = tonumber(ARGV[1])
local count = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local nextTat = tat + interval * count
redis.call('SET', KEYS[1], tostring(nextTat), 'PX', math.ceil(nextTat - now) + 1000)
return tostring(tat - now)
`;

type GateRedis = Redis & {
  reviewwatchReserveSlots(key: string, intervalMs: string, count: string): Promise<string>;
};

/** Slots reserved per Redis call cover this long: one round trip per request is the gate's own cost. */
const BATCH_MS = 100;
const MAX_BATCH = 50;

/**
 * Enforces `catalog.maxRequestsPerSecond` across every worker process sharing the Redis. At low rates
 * each request reserves its own slot; at high rates a process reserves the slots of the next 100 ms at
 * once and spends them locally, so the limit holds without a Redis round trip per request.
 */
export class RedisRequestGate implements RequestGate {
  readonly #redis: GateRedis;
  readonly #key: string;
  readonly #intervalMs: number;
  readonly #batch: number;
  /** Local times (Date.now()) of the slots this process reserved and has not used yet. */
  #slots: number[] = [];
  #refill: Promise<void> | undefined;

  constructor(redis: Redis, options: { prefix: string; maxRequestsPerSecond: number }) {
    // defineCommand sends EVALSHA after the first call instead of the script text every time.
    redis.defineCommand('reviewwatchReserveSlots', { numberOfKeys: 1, lua: RESERVE });
    this.#redis = redis as GateRedis;
    this.#key = `${options.prefix}:catalog-gate`;
    this.#intervalMs = 1000 / options.maxRequestsPerSecond;
    this.#batch = Math.min(MAX_BATCH, Math.max(1, Math.floor(BATCH_MS / this.#intervalMs)));
  }

  async acquire(): Promise<void> {
    let slot = this.#take();
    while (slot === undefined) {
      this.#refill ??= this.#reserve().finally(() => {
        this.#refill = undefined;
      });
      await this.#refill;
      slot = this.#take();
    }
    const wait = slot - Date.now();
    if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  /** The next unused slot; slots whose moment has long passed are dropped, not spent late. */
  #take(): number | undefined {
    const stale = Date.now() - this.#intervalMs;
    while (this.#slots.length > 0 && (this.#slots[0] as number) < stale) this.#slots.shift();
    return this.#slots.shift();
  }

  async #reserve(): Promise<void> {
    const first = Number(
      await this.#redis.reviewwatchReserveSlots(this.#key, String(this.#intervalMs), String(this.#batch)),
    );
    const start = Date.now() + first;
    for (let i = 0; i < this.#batch; i++) this.#slots.push(start + i * this.#intervalMs);
  }
}
