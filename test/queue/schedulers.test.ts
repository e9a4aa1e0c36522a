import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { releaseLock } from '../../src/queue/app-lock.js';
import { type PollInterval, syncPollSchedulers } from '../../src/queue/schedulers.js';
import { captureLog } from '../helpers/index.js';
import { pollQueueFixture, type QueueFixture } from '../helpers/queue.js';

const RETRY = { attempts: 3, backoffMs: 1000 };
let fx: QueueFixture;

beforeEach(async () => {
  fx = await pollQueueFixture();
});
afterEach(() => fx.close());

function every(handles: string[], everyMs: number): PollInterval[] {
  return handles.map((handle) => ({ handle, everyMs }));
}

async function nextPolls(): Promise<Record<string, number | undefined>> {
  const list = await fx.queue.getJobSchedulers(0, -1);
  return Object.fromEntries(list.map((s) => [s.key.replace(/^poll-/, ''), s.next]));
}

async function schedulers() {
  const list = await fx.queue.getJobSchedulers(0, -1);
  return Object.fromEntries(list.map((s) => [s.key, s.every]));
}

describe('syncPollSchedulers', () => {
  it('adds one scheduler per app, updates a changed interval and removes apps that left the config', async () => {
    const log = captureLog();
    const first = await syncPollSchedulers(
      fx.queue,
      fx.redis,
      every(['a', 'b', 'c'], 60_000),
      RETRY,
      log.logger,
    );
    expect(first.added).toEqual(['a', 'b', 'c']);
    expect(await schedulers()).toEqual({ 'poll-a': 60_000, 'poll-b': 60_000, 'poll-c': 60_000 });
    // Each scheduler has its next poll queued with the app in its data.
    const jobs = await fx.queue.getJobs(['delayed', 'waiting']);
    expect(jobs.map((j) => j.data.handle).sort()).toEqual(['a', 'b', 'c']);

    const again = await syncPollSchedulers(
      fx.queue,
      fx.redis,
      every(['a', 'b', 'c'], 60_000),
      RETRY,
      log.logger,
    );
    expect(again).toMatchObject({ added: [], updated: [], removed: [], unchanged: ['a', 'b', 'c'] });

    const changed = await syncPollSchedulers(
      fx.queue,
      fx.redis,
      every(['a', 'c', 'd'], 30_000),
      RETRY,
      log.logger,
    );
    expect(changed).toMatchObject({ added: ['d'], updated: ['a', 'c'], removed: ['b'] });
    expect(await schedulers()).toEqual({ 'poll-a': 30_000, 'poll-c': 30_000, 'poll-d': 30_000 });
    expect(log.text()).toMatch(/1 added, 2 updated, 1 removed/);
  });

  it('puts back the next poll of a scheduler that lost it (a worker killed at the wrong moment)', async () => {
    const log = captureLog();
    await syncPollSchedulers(fx.queue, fx.redis, every(['a', 'b'], 60_000), RETRY, log.logger);
    const [lost] = (await fx.queue.getJobs(['delayed', 'waiting'])).filter((j) => j.data.handle === 'a');
    // BullMQ refuses to remove a scheduler's job; a crash loses it all the same.
    const keyOf = (name: string) => `${fx.prefix}:poll:${name}`;
    await fx.redis.zrem(keyOf('delayed'), String(lost?.id));
    await fx.redis.lrem(keyOf('wait'), 0, String(lost?.id));
    await fx.redis.del(keyOf(String(lost?.id)));
    expect((await fx.queue.getJobs(['delayed', 'waiting'])).map((j) => j.data.handle)).toEqual(['b']);
    await syncPollSchedulers(fx.queue, fx.redis, every(['a', 'b'], 60_000), RETRY, log.logger);
    expect((await fx.queue.getJobs(['delayed', 'waiting'])).map((j) => j.data.handle).sort()).toEqual([
      'a',
      'b',
    ]);
  });

  it('gives each app its own interval, counting a changed one from the last poll', async () => {
    const log = captureLog();
    const now = Date.now();
    await syncPollSchedulers(
      fx.queue,
      fx.redis,
      [
        { handle: 'busy', everyMs: 120_000 },
        { handle: 'quiet', everyMs: 3_600_000 },
      ],
      RETRY,
      log.logger,
    );
    expect(await schedulers()).toEqual({ 'poll-busy': 120_000, 'poll-quiet': 3_600_000 });
    // The quiet app slows down further; it was polled 10 minutes ago, so its next poll is 50 minutes
    // after that, not now and not a whole new interval from now.
    const sync = await syncPollSchedulers(
      fx.queue,
      fx.redis,
      [
        { handle: 'busy', everyMs: 120_000 },
        { handle: 'quiet', everyMs: 7_200_000 },
      ],
      RETRY,
      log.logger,
      { lastPolledAt: new Map([['quiet', now - 600_000]]), now },
    );
    expect(sync).toMatchObject({ updated: ['quiet'], unchanged: ['busy'] });
    expect(sync.inForce).toEqual(
      new Map([
        ['busy', 120_000],
        ['quiet', 7_200_000],
      ]),
    );
    const next = await nextPolls();
    expect(next.quiet).toBe(now - 600_000 + 7_200_000);
    // One job per app, no leftover of the old interval.
    expect((await fx.queue.getJobs(['delayed', 'waiting'])).map((j) => j.data.handle).sort()).toEqual([
      'busy',
      'quiet',
    ]);
  });

  it('keeps an interval within the tolerance, and its next poll with it', async () => {
    const log = captureLog();
    await syncPollSchedulers(fx.queue, fx.redis, every(['a', 'b'], 600_000), RETRY, log.logger);
    const before = await nextPolls();
    const sync = await syncPollSchedulers(
      fx.queue,
      fx.redis,
      [
        { handle: 'a', everyMs: 660_000 },
        { handle: 'b', everyMs: 1_200_000 },
      ],
      RETRY,
      log.logger,
      { tolerance: 0.2 },
    );
    expect(sync).toMatchObject({ unchanged: ['a'], updated: ['b'] });
    expect(sync.inForce.get('a')).toBe(600_000);
    expect(await schedulers()).toEqual({ 'poll-a': 600_000, 'poll-b': 1_200_000 });
    expect((await nextPolls()).a).toBe(before.a);
  });

  it('says it waits for a lock a killed process left, and takes it when it expires', async () => {
    const log = captureLog();
    await fx.redis.set(`${fx.prefix}:poll:scheduler-sync-lock`, 'dead', 'PX', 600);
    const started = Date.now();
    await syncPollSchedulers(fx.queue, fx.redis, every(['a'], 60_000), RETRY, log.logger);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(log.text()).toMatch(/waiting for the poll schedule lock/);
  });

  it('lets two processes sync at once without losing or doubling a scheduler', async () => {
    const log = captureLog();
    const handles = Array.from({ length: 20 }, (_, i) => `app-${i}`);
    await Promise.all([
      syncPollSchedulers(fx.queue, fx.redis, every(handles, 60_000), RETRY, log.logger),
      syncPollSchedulers(fx.queue, fx.redis, every(handles, 60_000), RETRY, log.logger),
    ]);
    const list = await fx.queue.getJobSchedulers(0, -1);
    expect(list.map((s) => s.key).sort()).toEqual(handles.map((h) => `poll-${h}`).sort());
  });
});

describe('releaseLock', () => {
  it('deletes the lock only while it holds our token', async () => {
    const lock = `${fx.prefix}:poll:scheduler-sync-lock`;
    // Ours expired and another process took it: releasing ours must leave theirs.
    await fx.redis.set(lock, 'theirs', 'PX', 5_000);
    expect(await releaseLock(fx.redis, lock, 'ours')).toBe(false);
    expect(await fx.redis.get(lock)).toBe('theirs');
    expect(await releaseLock(fx.redis, lock, 'theirs')).toBe(true);
    expect(await fx.redis.get(lock)).toBeNull();
  });
});
