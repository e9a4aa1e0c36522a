import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../src/simulator/index.js';
import { getApp } from '../src/store/apps.js';
import { openStore } from '../src/store/db.js';
import { runCli, spawnCli } from './helpers/cli.js';
import { tempDir, waitFor } from './helpers/index.js';
import { type PrivateRedis, startPrivateRedis } from './helpers/redis-server.js';
import { type FakeSlack, startFakeSlack } from './helpers/slack.js';

/** A short command in a Node process of its own: a second or more, and far more on a loaded machine. */
const CLI_MS = 60_000;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Running {
  child: ChildProcess;
  stderr: () => string;
  opsUrl: () => Promise<string>;
  dbPath: string;
}

async function setUp(options: { apiKey?: string } = {}): Promise<{
  sim: Simulator;
  slack: FakeSlack;
  redis: PrivateRedis;
  run: Running;
  env: Record<string, string>;
}> {
  const redis = await startPrivateRedis();
  cleanups.push(() => redis.stop());
  const sim = await startSimulator({ appCount: 0, handles: ['shop'], maxReviewsPerApp: 20, apiKey: 'key' });
  cleanups.push(() => sim.close());
  const slack = await startFakeSlack();
  cleanups.push(() => slack.close());
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const configPath = join(dir.dir, 'reviewwatch.yaml');
  writeFileSync(
    configPath,
    [
      'poll: { every: 2s, backoff: 500ms }',
      'apps:',
      '  - handle: shop',
      '    notify: [support]',
      'channels:',
      '  support: { type: slack, webhookUrl: "${SLACK_WEBHOOK_URL}" }',
      'http: { port: 0 }',
    ].join('\n'),
  );
  const dbPath = join(dir.dir, 'reviewwatch.db');
  const env = {
    REDIS_URL: redis.url,
    CATALOG_API_BASE_URL: sim.url,
    CATALOG_API_KEY: options.apiKey ?? 'key',
    SLACK_WEBHOOK_URL: slack.url,
    DATABASE_PATH: dbPath,
    REVIEWWATCH_CONFIG: configPath,
  };
  const child = spawnCli(['start'], env);
  let stderr = '';
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  cleanups.push(async () => {
    if (child.exitCode !== null) return;
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGKILL');
    await closed;
  });
  const run: Running = {
    child,
    stderr: () => stderr,
    dbPath,
    async opsUrl() {
      // On a loaded machine `start` takes a while to say where it
      // listens. Given up on only when it exited, or well past any start-up.
      await waitFor(
        () => /ops server at (http:\/\/\S+?):/.test(stderr) || child.exitCode !== null,
        60_000,
        () => stderr,
      );
      expect(child.exitCode, stderr).toBeNull();
      return /ops server at (http:\/\/[^\s:]+:\d+)/.exec(stderr)?.[1] as string;
    },
  };
  return { sim, slack, redis, run, env };
}

function baselined(dbPath: string): boolean {
  const store = openStore(dbPath);
  try {
    return Boolean(getApp(store.db, 'shop')?.baselineAt);
  } finally {
    store.close();
  }
}

async function readyz(url: string): Promise<{ status: number; body: { checks: Record<string, string> } }> {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as { checks: Record<string, string> } };
}

describe('a worker left alone', () => {
  it('puts its schedules back after FLUSHALL, and the next low review is alerted', async () => {
    const { sim, slack, redis, run } = await setUp();
    const ops = await run.opsUrl();
    await waitFor(() => baselined(run.dbPath), 30_000, run.stderr);
    await redis.flushAll();
    sim.controls.addReviews('shop', [{ rating: 1, review_content: 'Broke my checkout after the flush' }]);
    await waitFor(
      () => slack.accepted().some((c) => JSON.stringify(c.body).includes('after the flush')),
      30_000,
      run.stderr,
    );
    expect(run.stderr()).toMatch(/Redis has lost reviewwatch's schedules/);
    expect((await readyz(ops)).status).toBe(200);
    // start serves the triage inbox beside its health endpoints, behind a login.
    const inbox = await fetch(`${ops}/`, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(inbox.status).toBe(303);
    expect(inbox.headers.get('location')).toMatch(/^\/login/);
    expect((await fetch(`${ops}/login`)).status).toBe(200);
  }, 180_000);

  it('says once that Redis went away and once that it came back, heals, and /readyz tells the truth meanwhile', async () => {
    const { sim, slack, redis, run } = await setUp();
    const ops = await run.opsUrl();
    await waitFor(() => baselined(run.dbPath), 30_000, run.stderr);
    // A slow baseline may have made the watchdog say polling stalled: ready again after the next poll.
    await waitFor(async () => (await readyz(ops)).status === 200, 30_000, run.stderr);

    // What the outage made it say: the start-up may have said its own things (a slow first poll).
    const said = () => run.stderr().split('\n').slice(0, -1);
    const before = said().length;
    await redis.stop();
    // Down longer than twice the poll interval: Redis fails the probe, and polling has stalled.
    await waitFor(async () => (await readyz(ops)).body.checks.polling !== 'ok', 30_000, run.stderr);
    const down = await readyz(ops);
    expect(down.status).toBe(503);
    expect(down.body.checks.redis).not.toBe('ok');
    expect(down.body.checks.polling).toMatch(/no poll finished/);

    // Back, and empty: a Redis without persistence restarted.
    await redis.start();
    sim.controls.addReviews('shop', [{ rating: 1, review_content: 'Lost my orders during the outage' }]);
    await waitFor(
      () => slack.accepted().some((c) => JSON.stringify(c.body).includes('during the outage')),
      45_000,
      run.stderr,
    );
    await waitFor(async () => (await readyz(ops)).status === 200, 30_000, run.stderr);

    const lines = said();
    // Every line is one JSON object: no raw stack dumps from reconnect attempts.
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    const messages = lines.slice(before).map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages.filter((m) => m.startsWith('lost the connection to Redis'))).toHaveLength(1);
    expect(messages.filter((m) => m.startsWith('Redis is back'))).toHaveLength(1);
    // Nor a line per reconnect attempt from any worker or queue (the digest's and the prune's included).
    expect(messages.filter((m) => / (worker|queue) error$/.test(m))).toEqual([]);
    expect(messages.filter((m) => m.startsWith('polling is not alive'))).toHaveLength(1);
  }, 240_000);

  it('is not ready while polling is paused for a rejected key, and status says so', async () => {
    const { run, env } = await setUp({ apiKey: 'revoked' });
    const ops = await run.opsUrl();
    await waitFor(async () => (await readyz(ops)).status === 503, 30_000, run.stderr);
    expect((await readyz(ops)).body.checks.polling).toMatch(/^paused: .*rejected the API key/);
    const status = await runCli(['status'], env, CLI_MS);
    expect(status.stdout).toMatch(/shop\s+\S+\s+\S+( ago)?\s+paused/);
    expect(status.stdout).toMatch(/polling paused: .*rejected the API key/);
    const json = JSON.parse((await runCli(['status', '--json'], env, CLI_MS)).stdout);
    expect(json.paused).toMatch(/rejected the API key/);
    expect(json.apps[0].nextPollAt).toBeNull();
  }, 180_000);
});
