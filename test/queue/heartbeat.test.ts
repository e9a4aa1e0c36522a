import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import {
  type Beat,
  beatOf,
  judgeWorkers,
  nothingPollingReason,
  readWorkers,
  scheduledPolling,
  startHeartbeat,
  type Vantage,
} from '../../src/queue/heartbeat.js';
import { workersKey } from '../../src/queue/names.js';
import { REDIS_URL, uniquePrefix } from '../helpers/index.js';

const HERE: Vantage = { scope: 'linux:boot-1:pid:[1]', alive: (pid) => pid === 100 };
const NOW = 1_000_000_000;

function beat(overrides: Partial<Beat> = {}): Beat {
  return { id: 'web-1:100', pid: 100, scope: HERE.scope, mode: 'service', everyMs: 5_000, ...overrides };
}

function entry(b: Beat, agoMs: number) {
  return { member: JSON.stringify(b), at: NOW - agoMs };
}

describe('judgeWorkers', () => {
  it('counts a beating process as live, and one whose pid is gone as exited at once', () => {
    const seen = judgeWorkers(
      [entry(beat(), 2_000), entry(beat({ id: 'web-1:200', pid: 200 }), 1_000)],
      NOW,
      HERE,
    );
    expect(seen.map((w) => [w.id, w.state, w.sinceBeatMs])).toEqual([
      ['web-1:200', 'exited', 1_000],
      ['web-1:100', 'live', 2_000],
    ]);
  });

  it("judges another scope's process by its beats alone: silent after three of them", () => {
    const elsewhere = { scope: 'linux:boot-2:pid:[9]', pid: 200 };
    const seen = judgeWorkers(
      [
        entry(beat({ ...elsewhere, id: 'web-2:200' }), 15_000),
        entry(beat({ ...elsewhere, id: 'web-2:201', pid: 201 }), 15_001),
      ],
      NOW,
      HERE,
    );
    expect(seen.map((w) => [w.id, w.state])).toEqual([
      ['web-2:200', 'live'],
      ['web-2:201', 'silent'],
    ]);
    // Its pid, dead here, says nothing about it: another pid namespace.
    expect(HERE.alive(200)).toBe(false);
  });

  it('never lets a live pid revive a silent heartbeat (a stuck process polls nothing)', () => {
    expect(judgeWorkers([entry(beat(), 60_000)], NOW, HERE)[0]?.state).toBe('silent');
  });

  it('skips what it cannot read', () => {
    const seen = judgeWorkers(
      [{ member: 'not json', at: NOW }, { member: '{"id":"x"}', at: NOW }, entry(beat(), 0)],
      NOW,
      HERE,
    );
    expect(seen.map((w) => w.id)).toEqual(['web-1:100']);
  });
});

describe('scheduledPolling and nothingPollingReason', () => {
  it('count only a live `start` as polling on schedule, and name the last one that stopped', () => {
    const once = judgeWorkers([entry(beat({ mode: 'once' }), 0)], NOW, HERE);
    expect(scheduledPolling(once)).toBe(false);
    expect(nothingPollingReason(once, 'rw')).toBe(
      'no `reviewwatch start` reports to this Redis under queue prefix "rw"',
    );
    const exited = judgeWorkers([entry(beat({ pid: 300, id: 'web-1:300' }), 42_000)], NOW, HERE);
    expect(scheduledPolling(exited)).toBe(false);
    expect(nothingPollingReason(exited, 'rw')).toBe(
      'the last `reviewwatch start`, web-1:300, exited (its last beat 42s ago)',
    );
    const silent = judgeWorkers([entry(beat({ scope: 'elsewhere' }), 150_000)], NOW, HERE);
    expect(nothingPollingReason(silent, 'rw')).toBe(
      'the last `reviewwatch start`, web-1:100, has not reported for 2.5m (killed, its host down, or stuck)',
    );
    expect(scheduledPolling(judgeWorkers([entry(beat(), 0)], NOW, HERE))).toBe(true);
  });
});

describe('the heartbeat in Redis', () => {
  let redis: Redis;
  const prefixes: string[] = [];
  beforeAll(async () => {
    redis = await connectRedis(REDIS_URL);
  });
  afterEach(async () => {
    for (const prefix of prefixes.splice(0)) await redis.del(workersKey(prefix));
  });
  afterAll(async () => {
    await redis.quit();
  });

  it('lists a beating process as live, takes it off at stop, and beats only while asked to', async () => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    let running = true;
    const heartbeat = await startHeartbeat({
      redis,
      prefix,
      beat: beatOf('this-host:1', 'service'),
      beating: () => running,
    });
    const seen = await readWorkers(redis, prefix);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ id: 'this-host:1', pid: process.pid, mode: 'service', state: 'live' });
    expect(seen[0]?.sinceBeatMs).toBeLessThan(5_000);
    expect(scheduledPolling(seen)).toBe(true);
    await heartbeat.stop();
    expect(await readWorkers(redis, prefix)).toEqual([]);

    running = false;
    const idle = await startHeartbeat({
      redis,
      prefix,
      beat: beatOf('this-host:1', 'service'),
      beating: () => running,
    });
    expect(await readWorkers(redis, prefix)).toEqual([]);
    await idle.stop();
  });

  it("reads a beat by Redis's clock: one written 16 s ago from another pid namespace is silent", async () => {
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    const [seconds] = await redis.time();
    const member = JSON.stringify(beat({ scope: 'another-container', id: 'web-2:7', pid: 7 }));
    await redis.zadd(workersKey(prefix), Number(seconds) * 1000 - 16_000, member);
    const [seen] = await readWorkers(redis, prefix);
    expect(seen).toMatchObject({ id: 'web-2:7', state: 'silent' });
    expect(seen?.sinceBeatMs).toBeGreaterThanOrEqual(15_000);
  });
});
