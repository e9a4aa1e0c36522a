import { describe, expect, it } from 'vitest';
import { PollingHealth, WorkersHealth } from '../../src/ops/health.js';
import { connectRedis } from '../../src/queue/connection.js';
import { beatOf, readWorkers, startHeartbeat } from '../../src/queue/heartbeat.js';
import { workersKey } from '../../src/queue/names.js';
import { startUpkeep } from '../../src/queue/upkeep.js';
import { captureLog, REDIS_URL, uniquePrefix, waitFor } from '../helpers/index.js';

const MINUTE = 60_000;

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('PollingHealth', () => {
  it('turns unhealthy when no poll finished within twice the expected interval, and logs it once', () => {
    const c = clock();
    const log = captureLog();
    const health = new PollingHealth({ expectedEveryMs: 15 * MINUTE, logger: log.logger, now: c.now });
    c.advance(29 * MINUTE);
    expect(health.verdict().ok).toBe(true);
    c.advance(2 * MINUTE);
    expect(health.verdict()).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/no poll finished in 1860s/),
    });
    health.verdict();
    expect(log.text().match(/polling is not alive/g)).toHaveLength(1);
    health.pollFinished();
    expect(health.verdict().ok).toBe(true);
    expect(log.text()).toMatch(/polling is alive again/);
  });

  it('judges afresh from now when a plan makes polls due sooner, and not when it makes them due later', () => {
    const c = clock();
    const health = new PollingHealth({
      expectedEveryMs: 12 * 60 * MINUTE,
      logger: captureLog().logger,
      now: c.now,
    });
    c.advance(60 * MINUTE);
    // The busiest app is now polled every 5 minutes: the hour already waited is no stall.
    health.setExpectedEvery(5 * MINUTE);
    expect(health.verdict().ok).toBe(true);
    c.advance(11 * MINUTE);
    expect(health.verdict().ok).toBe(false);
    // A longer interval keeps counting from the last poll, so a stall does not hide behind a re-plan.
    health.setExpectedEvery(10 * MINUTE);
    expect(health.verdict().ok).toBe(true);
    c.advance(10 * MINUTE);
    expect(health.verdict().ok).toBe(false);
    // Already stalled: a plan that makes polls due sooner still does not make it look alive.
    health.setExpectedEvery(MINUTE);
    expect(health.verdict().ok).toBe(false);
  });
});

describe('PollingHealth readiness', () => {
  it('is not ready while Redis has lost the schedules, and has them put back at once rather than at the next tick', async () => {
    const redis = await connectRedis(REDIS_URL);
    const prefix = uniquePrefix();
    let reasserted = 0;
    // An hour between ticks and between beats: only the probe can have put things back within this test.
    const heartbeat = await startHeartbeat({
      redis,
      prefix,
      beat: { ...beatOf('h:1', 'service'), everyMs: 3_600_000 },
      beating: () => true,
    });
    const upkeep = await startUpkeep({
      redis,
      prefix,
      everyMs: 3_600_000,
      logger: captureLog().logger,
      reassert: async () => {
        reasserted += 1;
      },
      onRestored: () => void heartbeat.beat(),
    });
    try {
      const c = clock();
      const health = new PollingHealth({
        expectedEveryMs: 15 * MINUTE,
        logger: captureLog().logger,
        now: c.now,
      });
      expect(await health.readiness()).toEqual({ ok: true });
      health.watchSchedules({ present: () => upkeep.present(), restore: () => void upkeep.check() });
      expect(await health.readiness()).toEqual({ ok: true });

      // What a FLUSHALL does to this worker's keys: the heartbeat goes with the schedules, and comes back
      // with them, not at the next beat.
      await redis.del(`${prefix}:upkeep`, workersKey(prefix));
      expect(await health.readiness()).toEqual({
        ok: false,
        reason: expect.stringMatching(/^not scheduled: Redis lost the poll schedules .*putting them back$/),
      });
      await waitFor(async () => (await health.readiness()).ok, 5_000);
      expect(reasserted).toBe(1);
      await waitFor(async () => (await readWorkers(redis, prefix)).some((w) => w.id === 'h:1'), 5_000);

      // Lost again at once: said, but put back by the probes at most every 10 s (a restore that keeps
      // failing is not rerun at every probe).
      await redis.del(`${prefix}:upkeep`);
      expect((await health.readiness()).ok).toBe(false);
      expect(reasserted).toBe(1);
      c.advance(10_000);
      await waitFor(async () => (await health.readiness()).ok, 5_000);
      expect(reasserted).toBe(2);

      // A stall still shows through once the schedules are there.
      health.pause('the API rejected the key');
      expect((await health.readiness()).reason).toMatch(/^paused: /);
    } finally {
      upkeep.stop();
      await heartbeat.stop();
      await redis.quit();
    }
  });
});

describe('WorkersHealth', () => {
  it('says whether a `start` beats in Redis, for a server that polls nothing, and logs each change once', async () => {
    const redis = await connectRedis(REDIS_URL);
    const prefix = uniquePrefix();
    const log = captureLog();
    try {
      const health = new WorkersHealth({ redis, prefix, logger: log.logger });
      expect(await health.verdict()).toEqual({
        ok: false,
        reason: `nothing is polling: no \`reviewwatch start\` reports to this Redis under queue prefix "${prefix}"`,
      });
      await health.verdict();
      expect(log.text().match(/nothing is polling/g)).toHaveLength(1);

      // A one-shot run polls now and then, not on schedule.
      const once = await startHeartbeat({ redis, prefix, beat: beatOf('h:1', 'once'), beating: () => true });
      expect((await health.verdict()).ok).toBe(false);
      const service = await startHeartbeat({
        redis,
        prefix,
        beat: beatOf('h:2', 'service'),
        beating: () => true,
      });
      expect(await health.verdict()).toEqual({ ok: true });
      expect(log.text()).toMatch(/a `reviewwatch start` is polling/);
      await service.stop();
      await once.stop();
      expect((await health.verdict()).ok).toBe(false);
    } finally {
      await redis.del(workersKey(prefix));
      await redis.quit();
    }
  });
});
