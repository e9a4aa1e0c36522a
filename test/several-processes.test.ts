/**
 * Two `reviewwatch start` processes on one host sharing one SQLite file and one Redis prefix, the way
 * docs/deployment.md adds capacity: each low review reaches Slack once, the survivor of a SIGKILL takes
 * over every app within two poll intervals, and `status` names the process that polled each app last.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { pollLockKey } from '../src/queue/app-lock.js';
import { connectRedis } from '../src/queue/connection.js';
import { POLL_QUEUE } from '../src/queue/names.js';
import { startSimulator } from '../src/simulator/index.js';
import { runCli, spawnCli } from './helpers/cli.js';
import { REDIS_URL, tempDir, uniquePrefix, waitFor } from './helpers/index.js';
import { type FakeSlack, startFakeSlack } from './helpers/slack.js';

const HANDLES = ['shop-a', 'shop-b', 'shop-c'];
const EVERY_MS = 2_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Started {
  child: ChildProcess;
  /** As the process records itself in `apps.last_poll_by` (src/util/process-id.ts). */
  id: string;
  log: () => string;
  exited: Promise<number | null>;
}

function start(env: Record<string, string>): Started {
  const child = spawnCli(['start'], env);
  let log = '';
  child.stderr?.on('data', (d) => {
    log += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  });
  return { child, id: `${hostname()}:${child.pid}`, log: () => log, exited };
}

/** The process's state letter from /proc (Linux) or ps: `T` once a SIGSTOP has taken effect. */
function processState(pid: number): string {
  const stat = `/proc/${pid}/stat`;
  if (existsSync(stat))
    return readFileSync(stat, 'utf8')
      .replace(/^.*\) /s, '')
      .charAt(0);
  throw new Error('this test reads process states from /proc');
}

/** The apps whose per-app poll lock (src/queue/app-lock.ts) this process holds: its token starts with its pid. */
async function locksHeldBy(redis: Redis, prefix: string, pid: number): Promise<string[]> {
  const held: string[] = [];
  for (const handle of HANDLES) {
    if ((await redis.get(pollLockKey(prefix, handle)))?.startsWith(`${pid}-`)) held.push(handle);
  }
  return held;
}

/**
 * Whether `pid` is between two polls: no poll job active in any process, none of whose locks it holds.
 * A poll job goes active before its process re-arms the app's job scheduler (BullMQ does that in a second
 * round trip), and its app's poll lock outlives a killed holder by 30 s: a kill inside either window
 * keeps the app from being polled for longer than two of this test's intervals, cases that
 * docs/deployment.md and bench/crash.ts --alongside cover rather than this test.
 */
async function betweenPolls(redis: Redis, prefix: string, pid: number): Promise<boolean> {
  return (
    (await redis.llen(`${prefix}:${POLL_QUEUE}:active`)) === 0 &&
    (await locksHeldBy(redis, prefix, pid)).length === 0
  );
}

/**
 * Stops `victim` (SIGSTOP) at a moment it is between two polls, and returns that moment: from then on it
 * does nothing, so the SIGKILL that follows lands between polls. The check runs twice: a command the
 * process sent just before it stopped is then surely through Redis.
 */
async function freezeBetweenPolls(victim: Started, redis: Redis, prefix: string): Promise<number> {
  const pid = victim.child.pid as number;
  for (;;) {
    const at = Date.now();
    victim.child.kill('SIGSTOP');
    await waitFor(
      () => processState(pid) === 'T',
      5_000,
      () => `pid ${pid} did not stop`,
    );
    if ((await betweenPolls(redis, prefix, pid)) && (await betweenPolls(redis, prefix, pid))) return at;
    victim.child.kill('SIGCONT');
    await waitFor(() => betweenPolls(redis, prefix, pid), 10_000);
  }
}

describe('two start processes on one store', () => {
  it('alert each low review once, take over from a killed one within two intervals, and status says who polled', async () => {
    const sim = await startSimulator({ appCount: 0, handles: HANDLES, maxReviewsPerApp: 5, apiKey: 'key' });
    cleanups.push(() => sim.close());
    const slack: FakeSlack = await startFakeSlack();
    cleanups.push(() => slack.close());
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const prefix = uniquePrefix();
    const redis = await connectRedis(REDIS_URL);
    cleanups.push(async () => {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    });
    const configPath = join(dir.dir, 'reviewwatch.yaml');
    writeFileSync(
      configPath,
      [
        `poll: { every: ${EVERY_MS / 1000}s, backoff: 500ms }`,
        'apps:',
        ...HANDLES.map((h) => `  - { handle: ${h}, notify: [support] }`),
        // One message per low review: no grouping, incident, rating drop or throttle in between.
        'alerts:',
        '  lowRating: { maxRating: 3 }',
        '  ratingDrop: { minDrop: 5, displayed: false }',
        '  incident: { count: 1000 }',
        '  groupAbove: 1000',
        '  throttle: { max: 10000 }',
        'channels:',
        '  support: { type: slack, webhookUrl: "${SLACK_WEBHOOK_URL}" }',
        // Each process its own ops port: two on the default 9464 would not both start.
        'http: { port: 0 }',
      ].join('\n'),
    );
    const dbPath = join(dir.dir, 'reviewwatch.db');
    const env = {
      REDIS_URL,
      REVIEWWATCH_QUEUE_PREFIX: prefix,
      CATALOG_API_BASE_URL: sim.url,
      CATALOG_API_KEY: 'key',
      SLACK_WEBHOOK_URL: slack.url,
      DATABASE_PATH: dbPath,
      REVIEWWATCH_CONFIG: configPath,
    };

    // Started together, as two services at boot: one store, one queue prefix.
    const first = start(env);
    const second = start(env);
    const both = () => `first:\n${first.log()}\nsecond:\n${second.log()}`;
    await waitFor(() => [first, second].every((p) => /watching 3 apps/.test(p.log())), 30_000, both);

    let db: Database.Database | undefined;
    const store = () => {
      db ??= new Database(dbPath, { readonly: true, fileMustExist: true });
      return db;
    };
    cleanups.push(() => {
      db?.close();
    });
    const apps = () =>
      store()
        .prepare('select handle, baseline_at, last_poll_at, last_poll_by from apps order by handle')
        .all() as Array<{
        handle: string;
        baseline_at: number | null;
        last_poll_at: number | null;
        last_poll_by: string | null;
      }>;
    const unsent = () =>
      (store().prepare(`select count(*) as n from deliveries where status != 'sent'`).get() as { n: number })
        .n;

    await waitFor(() => apps().filter((a) => a.baseline_at !== null).length === HANDLES.length, 30_000, both);
    // Both take polls off the shared queue: each is the last to have polled some app at some point.
    const seen = new Set<string>();
    await waitFor(
      () => {
        for (const app of apps()) if (app.last_poll_by) seen.add(app.last_poll_by);
        return seen.has(first.id) && seen.has(second.id);
      },
      30_000,
      () => `last_poll_by seen: ${[...seen].join(', ')}; expected ${first.id} and ${second.id}`,
    );
    expect([...seen].sort()).toEqual([first.id, second.id].sort());

    const markers: string[] = [];
    const addLow = (round: string) => {
      for (const handle of HANDLES) {
        const marker = `multi-${round}-${handle}`;
        markers.push(marker);
        sim.controls.addReviews(handle, [{ rating: 1, review_content: `${marker}: checkout broke again` }]);
      }
    };
    const arrivals = (marker: string) => slack.calls.filter((c) => JSON.stringify(c.body).includes(marker));
    const delivered = () => markers.every((m) => arrivals(m).length > 0) && unsent() === 0;

    addLow('both');
    await waitFor(delivered, 30_000, both);

    // SIGKILL the first between two of its polls, with nothing left to send. It stopped working when it
    // was frozen, a few milliseconds before the kill: the survivor's time is counted from then.
    const frozenAt = await freezeBetweenPolls(first, redis, prefix);
    first.child.kill('SIGKILL');
    await first.exited;

    // Every app is polled again, by the survivor, within two intervals.
    const firstPollSince = () =>
      store()
        .prepare(
          `select app_handle as handle, min(finished_at) as at from poll_runs
            where kind = 'poll' and started_at >= ? group by app_handle order by app_handle`,
        )
        .all(frozenAt) as Array<{ handle: string; at: number }>;
    await waitFor(
      () => firstPollSince().length === HANDLES.length,
      4 * EVERY_MS,
      () => JSON.stringify(firstPollSince()),
    );
    for (const run of firstPollSince()) {
      expect(run.at - frozenAt, run.handle).toBeLessThanOrEqual(2 * EVERY_MS);
    }
    expect(new Set(apps().map((a) => a.last_poll_by))).toEqual(new Set([second.id]));

    addLow('survivor');
    await waitFor(delivered, 30_000, second.log);

    // status names the survivor as the process that polled each app last, in text and JSON.
    const status = await runCli(['status'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^APP\s.*\sSTORED\s+BY\s+LAST ERROR$/m);
    for (const handle of HANDLES) {
      const row = status.stdout.split('\n').find((line) => line.startsWith(`${handle} `));
      expect(row, status.stdout).toBeDefined();
      expect(row?.trimEnd().endsWith(` ${second.id}`), row).toBe(true);
    }
    expect(status.stdout).not.toContain(first.id);
    const json = JSON.parse((await runCli(['status', '--json'], env)).stdout) as {
      apps: Array<{ handle: string; lastPollBy: string; storedReviews: number }>;
    };
    expect(json.apps.map((a) => [a.handle, a.lastPollBy])).toEqual(HANDLES.map((h) => [h, second.id]));

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    // Each low review reached Slack exactly once, the ones raised while both ran included.
    for (const marker of markers) expect(arrivals(marker), marker).toHaveLength(1);
    expect(slack.calls).toHaveLength(markers.length);
  }, 90_000);
});
