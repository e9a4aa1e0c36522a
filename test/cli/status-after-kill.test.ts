/**
 * A `reviewwatch start` killed with SIGKILL leaves its job schedulers in Redis and its pid in the store.
 * `status` and the /readyz of a `serve` beside it must say that nothing is polling and what to do, not
 * that each app's next poll comes in a second, and say it no more once a worker runs again.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import { startSimulator } from '../../src/simulator/index.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { REDIS_URL, tempDir, uniquePrefix, waitFor } from '../helpers/index.js';

const HANDLES = ['shop-a', 'shop-b'];

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Started {
  child: ChildProcess;
  /** As the process records itself in `apps.last_poll_by` (src/util/process-id.ts). */
  id: string;
  log: () => string;
  exited: Promise<unknown>;
}

function spawn(args: string[], env: Record<string, string>): Started {
  const child = spawnCli(args, env);
  let log = '';
  child.stderr?.on('data', (d) => {
    log += d;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await exited;
  });
  return { child, id: `${hostname()}:${child.pid}`, log: () => log, exited };
}

/** Each watched app's row of `status`'s table. */
function rows(stdout: string): string[] {
  return HANDLES.map((handle) => stdout.split('\n').find((line) => line.startsWith(`${handle} `)) ?? '');
}

describe('status after the worker was killed', () => {
  it('says nothing is polling and what to do, shows overdue polls as overdue, and /readyz of serve agrees', async () => {
    const sim = await startSimulator({ appCount: 0, handles: HANDLES, maxReviewsPerApp: 5, apiKey: 'key' });
    cleanups.push(() => sim.close());
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
        'poll: { every: 2s, backoff: 500ms }',
        'apps:',
        ...HANDLES.map((h) => `  - { handle: ${h}, notify: [terminal] }`),
        'channels:',
        '  terminal: { type: console }',
        'http: { port: 0 }',
      ].join('\n'),
    );
    const dbPath = join(dir.dir, 'reviewwatch.db');
    const env = {
      REDIS_URL,
      REVIEWWATCH_QUEUE_PREFIX: prefix,
      CATALOG_API_BASE_URL: sim.url,
      CATALOG_API_KEY: 'key',
      DATABASE_PATH: dbPath,
      REVIEWWATCH_CONFIG: configPath,
    };
    const status = async () => {
      const run = await runCli(['status'], env);
      expect(run.code, run.stderr).toBe(0);
      return run.stdout;
    };
    // Waited for in `status` itself, the output under test: a read of the store beside it once passed
    // while the `status` run after it still showed an app by the killed process (CI, loaded machine).
    const statusPolledBy = async (worker: Started) => {
      let out = '';
      await waitFor(
        async () => {
          out = await status();
          return rows(out).every((row) => row.endsWith(` ${worker.id}`));
        },
        30_000,
        () => `${out}\n${worker.log()}`,
      );
      return out;
    };

    const first = spawn(['start'], env);
    await waitFor(() => /watching 2 apps/.test(first.log()), 30_000, first.log);
    const serve = spawn(['serve', '--port', '0'], env);
    await waitFor(() => /ops server at http:/.test(serve.log()), 30_000, serve.log);
    const readyzUrl = `${/ops server at (http:\/\/[^\s:]+:\d+)/.exec(serve.log())?.[1]}/readyz`;
    const readyz = async () => {
      const res = await fetch(readyzUrl);
      return {
        status: res.status,
        checks: ((await res.json()) as { checks: Record<string, string> }).checks,
      };
    };
    expect(await readyz()).toEqual({ status: 200, checks: { redis: 'ok', sqlite: 'ok', polling: 'ok' } });
    const running = await statusPolledBy(first);
    expect(running).not.toContain('nothing is polling');

    first.child.kill('SIGKILL');
    await first.exited;

    // At once, on the worker's own host: its pid is gone.
    const killed = await status();
    expect(killed).toContain(
      `\nnothing is polling: the last \`reviewwatch start\`, ${first.id}, exited (its last beat `,
    );
    expect(killed).toContain(`\n  start the worker: reviewwatch start --config ${configPath} `);
    for (const row of rows(killed)) {
      expect(row, killed).toMatch(new RegExp(` ${first.id} \\(exited\\)$`));
      expect(row, killed).toMatch(/ (overdue since \d\d:\d\d:\d\d|in \d+s \(no worker\)) /);
    }
    const unready = await readyz();
    expect(unready.status).toBe(503);
    expect(unready.checks.polling).toMatch(
      new RegExp(`^nothing is polling: the last \`reviewwatch start\`, ${first.id}, exited`),
    );

    // Once every poll it had scheduled is due, each is overdue: none says "in 0s" or "due now".
    const json = JSON.parse((await runCli(['status', '--json'], env)).stdout) as {
      polling: { scheduled: boolean; reason: string; workers: Array<{ id: string; state: string }> };
      apps: Array<{ nextPollAt: number }>;
    };
    expect(json.polling).toMatchObject({ scheduled: false, workers: [{ id: first.id, state: 'exited' }] });
    expect(json.polling.reason).toMatch(/^the last `reviewwatch start`, .*, exited/);
    const due = Math.max(...json.apps.map((app) => app.nextPollAt));
    await waitFor(() => Date.now() > due, 10_000);
    const overdue = await status();
    for (const row of rows(overdue)) {
      expect(row, overdue).toMatch(/ overdue since \d\d:\d\d:\d\d /);
      expect(row, overdue).not.toMatch(/ in \d+s| due now/);
    }

    // Restarted: polling again, said by both, and the new process polls every app.
    const second = spawn(['start'], env);
    await waitFor(async () => (await readyz()).status === 200, 30_000, second.log);
    const again = await statusPolledBy(second);
    expect(again).not.toContain('nothing is polling');
    for (const row of rows(again)) {
      expect(row, again).toMatch(/ (in \d+s|due now) /);
    }
  }, 180_000);
});
