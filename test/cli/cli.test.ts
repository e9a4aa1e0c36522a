import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/queue/connection.js';
import type { Simulator } from '../../src/simulator/index.js';
import { openStore } from '../../src/store/db.js';
import { listUsers } from '../../src/store/users.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { type CliWorld, startCliWorld } from '../helpers/cli-world.js';
import { REDIS_URL, tempDir, waitFor } from '../helpers/index.js';
import type { FakeSlack } from '../helpers/slack.js';
import { Browser } from '../helpers/web.js';

const KEY = 'cli-test-key-9f8e7d';
/** Each CLI run starts a Node process: a second or more apiece on a busy two-core box. */
const CLI_TEST_MS = 120_000;
let sim: Simulator;
let slack: FakeSlack;
let world: CliWorld;
let env: Record<string, string>;

beforeAll(async () => {
  world = await startCliWorld(
    KEY,
    { appCount: 0, handles: ['shop-one', 'shop-two'], maxReviewsPerApp: 30 },
    [
      'catalog:',
      '  baseUrl: "${CATALOG_API_BASE_URL}"',
      '  apiKey: "${CATALOG_API_KEY}"',
      '  maxRequestsPerSecond: 50',
      'poll: { every: 10m, baselinePages: 2 }',
      'apps:',
      '  - handle: shop-one',
      '  - handle: shop-two',
      '    notify: [support]',
      'alerts: { lowRating: { maxRating: 2 }, ratingDrop: { minDrop: 5, displayed: false } }',
      'channels:',
      '  support: { type: slack, webhookUrl: "${SLACK_WEBHOOK_URL}" }',
    ].join('\n'),
    { REVIEWWATCH_HTTP_PORT: '0' },
  );
  ({ sim, slack, env } = world);
});

afterAll(() => world.close());

describe('reviewwatch CLI', () => {
  it(
    'poll --once: a baseline, then one request per app, then the new low-rated reviews',
    async () => {
      const baseline = await runCli(['poll', '--once'], env);
      expect(baseline.code).toBe(0);
      expect(baseline.stdout).toMatch(/shop-one: baseline, \d+ reviews stored as history/);

      sim.controls.resetStats();
      const quiet = await runCli(['poll', '--once'], env);
      expect(quiet.code).toBe(0);
      expect(quiet.stdout).toMatch(/Polled 2 of 2 apps with 2 API requests: 0 new low-rated reviews/);
      expect(sim.controls.stats().requests).toBe(2);

      sim.controls.addReviews('shop-two', [
        { rating: 1, reviewer: 'Angry <!channel> Store', review_content: 'Charged twice, no refund' },
        { rating: 5, review_content: 'Great' },
      ]);
      const found = await runCli(['poll', '--once', '--app', 'shop-two'], env);
      expect(found.code).toBe(0);
      expect(found.stdout).toMatch(/shop-two: 2 new, 1 low-rated \(1 request\)/);
      expect(found.stdout).toMatch(/★☆☆☆☆ shop-two — Angry <!channel> Store: Charged twice, no refund/);
      expect(found.stdout).toMatch(/support: 1 delivered/);
      expect(slack.accepted()).toHaveLength(1);
      // Neither the key nor the webhook's secret reaches the output or the logs.
      expect(found.stdout + found.stderr).not.toContain(KEY);
      expect(found.stdout + found.stderr).not.toContain('secret-token-xyz');
    },
    CLI_TEST_MS,
  );

  it(
    'notify test sends to a channel; rules test replays stored reviews through the rules',
    async () => {
      const test = await runCli(['notify', 'test', '--channel', 'support'], env);
      expect(test.code).toBe(0);
      expect(slack.accepted().at(-1)?.body.text).toMatch(/test, not an alert/);
      expect(JSON.stringify(slack.accepted().at(-1)?.body)).not.toMatch(/★/);
      const unknown = await runCli(['notify', 'test', '--channel', 'nope'], env);
      expect(unknown.code).toBe(2);

      const rules = await runCli(['rules', 'test', '--days', '30'], env);
      expect(rules.code).toBe(0);
      expect(rules.stdout).toMatch(/support: \d+ alert\(s\)/);
      expect(rules.stdout).toMatch(/Charged twice, no refund/);
      expect(rules.stdout).toMatch(/mentions billing/);
      // The topics this config gives stored history, to tune custom topics on before a start.
      expect(rules.stdout).toMatch(/Topics under this config, on \d+ stored review\(s\) of the last 30 days/);
      expect(rules.stdout).toMatch(/^ {2}billing +\d+ \(\d+%\) {2}e\.g\. "[^"]*charged twice/im);
    },
    CLI_TEST_MS,
  );

  it(
    "topics shows each app's topics since a moment, as text and JSON, and computes them with --backfill",
    async () => {
      const since = new Date(Date.now() - 365 * 86_400_000).toISOString();
      const shown = await runCli(['topics', '--since', since], env);
      expect(shown.code).toBe(0);
      expect(shown.stderr).not.toMatch(/no database was at/);
      expect(shown.stdout).toMatch(/^shop-two: \d+ reviews$/m);
      expect(shown.stdout).toMatch(/^ {2}TOPIC +REVIEWS +SHARE +STARS +TREND$/m);
      expect(shown.stdout).toMatch(/^ {2}billing +\d+ +\d+%/m);
      const json = await runCli(['topics', '--app', 'shop-two', '--since', since, '--json'], env);
      expect(json.code).toBe(0);
      const body = JSON.parse(json.stdout) as {
        apps: Array<{ app: string; topics: Array<{ topic: string }> }>;
      };
      expect(body.apps.map((a) => a.app)).toEqual(['shop-two']);
      expect(body.apps[0]?.topics.map((t) => t.topic)).toContain('billing');
      const unknown = await runCli(['topics', '--app', 'nope'], env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/--app nope is not a watched app/);
      const backfill = await runCli(['topics', '--backfill'], env);
      expect(backfill.code).toBe(0);
      expect(backfill.stdout).toMatch(/already has its topics under this config/);
      // Pointed at no database (a mistyped DATABASE_PATH), it says so rather than only "0 reviews"; once.
      const elsewhere = { ...env, DATABASE_PATH: join(world.dir, 'typo', 'reviewwatch.db') };
      const empty = await runCli(['topics'], elsewhere);
      expect(empty.code).toBe(0);
      expect(empty.stdout).toMatch(/^shop-two: 0 reviews$/m);
      expect(empty.stderr).toContain(
        `no database was at ${elsewhere.DATABASE_PATH}: created an empty one. If the worker stores elsewhere, set DATABASE_PATH`,
      );
      expect((await runCli(['topics'], elsewhere)).stderr).not.toMatch(/no database was at/);
    },
    CLI_TEST_MS,
  );

  it(
    'never prints the API key or the webhook secret, even in debug logs',
    async () => {
      sim.controls.addReviews('shop-two', [{ rating: 1, review_content: 'Still broken' }]);
      const debug = await runCli(['--verbose', 'poll', '--once'], env);
      expect(debug.code).toBe(0);
      expect(debug.stderr).toMatch(/catalog request/);
      expect(debug.stdout + debug.stderr).not.toContain(KEY);
      expect(debug.stdout + debug.stderr).not.toContain('secret-token-xyz');
    },
    CLI_TEST_MS,
  );

  it(
    'status shows every watched app with its rating and stored reviews',
    async () => {
      const status = await runCli(['status'], env);
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(/^APP\s+STATE\s+LAST POLL/m);
      expect(status.stdout).toMatch(/shop-one\s+ok\s+\d+s ago/);
      // Every review stored by these polls got its topics at ingest: nothing left to backfill.
      expect(status.stdout).toMatch(
        /^topics: every stored review computed under the config's topics \([0-9a-f]+\)$/m,
      );
      expect(status.stdout).toMatch(/poll queue: \d+ waiting/);
      expect(status.stdout).toMatch(
        /notifications to support: \d+ sent, 0 pending, 0 held by the throttle, 0 failed/,
      );
      const json = JSON.parse((await runCli(['status', '--json'], env)).stdout);
      expect(json.apps.map((a: { handle: string }) => a.handle)).toEqual(['shop-one', 'shop-two']);

      // A review the marketplace removed is still stored, and said to be removed.
      const store = openStore(env.DATABASE_PATH as string);
      try {
        store.db.$client
          .prepare(
            "update reviews set removed_at = 1 where id = (select min(id) from reviews where app_handle = 'shop-one')",
          )
          .run();
      } finally {
        store.close();
      }
      const stored = json.apps[0].storedReviews;
      expect((await runCli(['status'], env)).stdout).toMatch(
        new RegExp(`^shop-one .* ${stored} \\(1 removed\\)`, 'm'),
      );
      const after = JSON.parse((await runCli(['status', '--json'], env)).stdout);
      expect(after.apps[0]).toMatchObject({ storedReviews: stored, removedReviews: 1 });
      expect(after.apps[1]).toMatchObject({ removedReviews: 0 });

      // A channel that is down: its pending deliveries are retried, and status says why they wait.
      const down = openStore(env.DATABASE_PATH as string);
      try {
        const failing = down.db.$client
          .prepare(
            "update deliveries set status = 'pending', attempts = 2, last_error = 'Slack unreachable (ECONNREFUSED)' where id = (select min(id) from deliveries)",
          )
          .run();
        expect(failing.changes).toBe(1);
      } finally {
        down.close();
      }
      const waiting = (await runCli(['status'], env)).stdout;
      expect(waiting).toMatch(/notifications to support: \d+ sent, 1 pending,/);
      expect(waiting).toMatch(
        /^ {2}1 pending after a failed attempt, retried; last error: Slack unreachable \(ECONNREFUSED\)$/m,
      );
      const waitingJson = JSON.parse((await runCli(['status', '--json'], env)).stdout);
      expect(waitingJson.notifications).toContainEqual(
        expect.objectContaining({
          channel: 'support',
          retrying: 1,
          lastError: 'Slack unreachable (ECONNREFUSED)',
        }),
      );
    },
    CLI_TEST_MS,
  );

  it(
    'exits non-zero with one clear line for a failed poll, a bad config and an unknown app',
    async () => {
      sim.controls.delist('shop-one');
      const missing = await runCli(['poll', '--once'], env);
      expect(missing.code).toBe(1);
      expect(missing.stdout).toMatch(/shop-one: unavailable: "shop-one" is not in the marketplace/);
      sim.controls.relist('shop-one');

      const unknown = await runCli(['poll', '--once', '--app', 'nope'], env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/^reviewwatch: "nope" is not a watched app/);

      const bad = join(world.dir, 'bad.yaml');
      writeFileSync(bad, 'apps:\n  - handle: shop-one\nalerts:\n  lowRatingg: { maxRating: 2 }\n');
      const check = await runCli(['check-config', '--config', bad], env);
      expect(check.code).toBe(2);
      expect(check.stderr).toContain('alerts.lowRatingg: unknown key');
      expect(check.stderr).not.toMatch(/\n\s+at /);
      const ok = await runCli(['check-config'], env);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/is valid/);
    },
    CLI_TEST_MS,
  );

  it(
    'poll --once ends within --timeout on an app whose answers stay malformed, naming it',
    async () => {
      sim.controls.malformNext(10_000, { pathIncludes: '/app/shop-two/' });
      try {
        const started = Date.now();
        const result = await runCli(
          ['poll', '--once', '--timeout', '4'],
          { ...env, LOG_LEVEL: 'error' },
          60_000,
        );
        const elapsed = Date.now() - started;
        expect(result.code).toBe(1);
        expect(result.stdout).toMatch(
          /failed: shop-two: did not finish in time \(\d+ attempts? made; last error: .*malformed/,
        );
        // The failed requests count: at least the first try of each app.
        expect(Number(/with (\d+) API requests/.exec(result.stdout)?.[1])).toBeGreaterThanOrEqual(2);
        // 4 s of polling, plus starting the CLI and stopping: far less than the 5 attempts'
        // backoff (5 s, 10 s, 20 s …) it would otherwise wait for.
        expect(elapsed).toBeLessThan(30_000);
      } finally {
        sim.controls.faults.clear();
      }
    },
    CLI_TEST_MS,
  );

  it(
    'check-config checks what start needs from the environment: the API key and SMTP_URL',
    async () => {
      const mail = join(world.dir, 'mail.yaml');
      writeFileSync(
        mail,
        [
          'apps:',
          '  - handle: shop-one',
          '    notify: [team]',
          'channels:',
          '  team: { type: email, from: rw@example.com, to: [team@example.com] }',
        ].join('\n'),
      );
      const { CATALOG_API_KEY: _key, CATALOG_API_BASE_URL: _url, ...noKey } = env;
      const result = await runCli(['check-config', '--config', mail], noKey);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/CATALOG_API_BASE_URL and CATALOG_API_KEY are not set/);
      expect(result.stderr).toMatch(/channels\.team: an email channel needs SMTP_URL/);
      const ok = await runCli(['check-config', '--config', mail], {
        ...env,
        SMTP_URL: 'smtp://127.0.0.1:2525',
      });
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/environment has what it needs/);
      expect(ok.stdout).not.toContain('warning');

      // Valid, but the app's alerts would reach no one: said, and still valid.
      writeFileSync(mail, readFileSync(mail, 'utf8').replace('    notify: [team]\n', ''));
      const unrouted = await runCli(['check-config', '--config', mail], {
        ...env,
        SMTP_URL: 'smtp://127.0.0.1:2525',
      });
      expect(unrouted.code).toBe(0);
      expect(unrouted.stdout).toContain(
        'warning: own app shop-one names no channel in `notify`: its alerts go to the inbox only',
      );
      expect(unrouted.stdout).toContain('warning: channel "team" is in no app\'s or category\'s `notify`');
    },
    CLI_TEST_MS,
  );

  it(
    'exits 2 on every usage error, in every subcommand',
    async () => {
      for (const args of [
        ['poll', '--bogus'],
        ['poll', '--once', '--wait', 'abc'],
        ['poll', '--once', '--timeout', '0'],
        ['notify', 'test'],
        ['rules', 'test', '--days', 'abc'],
        ['status', '--nope'],
      ]) {
        const result = await runCli(args, env);
        expect(result.code, args.join(' ')).toBe(2);
      }
      // Only the named command's module is loaded: help and a misspelt command still know every command.
      const misspelt = await runCli(['--config', 'status', 'stauts'], env);
      expect(misspelt.code).toBe(2);
      expect(misspelt.stderr).toMatch(/unknown command 'stauts'\n\(Did you mean status\?\)/);
      const unknownOption = await runCli(['--bogus', 'status'], env);
      expect(unknownOption.code).toBe(2);
      expect(unknownOption.stderr).toMatch(/unknown option '--bogus'[\s\S]* init /);
      const help = await runCli(['--help'], env);
      expect(help.code).toBe(0);
      const listed = [...help.stdout.matchAll(/^ {2}([a-z][a-z-]*) /gm)].map((m) => m[1]);
      expect(listed).toEqual([
        ...['start', 'poll', 'status', 'check-config', 'demo', 'digest', 'notify', 'rules', 'simulate'],
        ...['prune', 'user', 'serve', 'reconcile', 'market', 'topics', 'init', 'help'],
      ]);
      // The version is package.json's, for a bug report or a deploy check.
      const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
      for (const flag of ['--version', '-V']) {
        const printed = await runCli([flag], env);
        expect(printed.code).toBe(0);
        expect(printed.stdout).toBe(`${version}\n`);
      }
    },
    CLI_TEST_MS,
  );

  it(
    'exits 3 when the API rejects the key, saying what to fix',
    async () => {
      const result = await runCli(['poll', '--once', '--app', 'shop-one'], {
        ...env,
        CATALOG_API_KEY: 'wrong-key',
      });
      expect(result.code).toBe(3);
      expect(result.stdout).toMatch(/rejected the API key \(HTTP 403.*check CATALOG_API_KEY/);
      expect(result.stdout + result.stderr).not.toContain('wrong-key');
    },
    CLI_TEST_MS,
  );

  it(
    'reports an unreachable Redis in one line with what to do',
    async () => {
      const result = await runCli(['poll', '--once'], { ...env, REDIS_URL: 'redis://127.0.0.1:1' });
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(/Cannot reach Redis at redis:\/\/127\.0\.0\.1:1 .*set REDIS_URL/);
    },
    CLI_TEST_MS,
  );

  it(
    'start schedules every app and stops cleanly on SIGTERM',
    async () => {
      const child = spawnCli(['start'], env);
      let stderr = '';
      child.stderr?.on('data', (d) => {
        stderr += d;
      });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`start did not come up:\n${stderr}`)), 20_000);
        const check = setInterval(() => {
          if (/watching 2 apps every 10m/.test(stderr)) {
            clearInterval(check);
            clearTimeout(timer);
            resolve();
          }
        }, 50);
      });
      const redis = await connectRedis(REDIS_URL);
      const queue = new Queue('poll', { connection: redis, prefix: env.REVIEWWATCH_QUEUE_PREFIX });
      const schedulers = await queue.getJobSchedulers(0, -1);
      await queue.close();
      const maintenance = new Queue('maintenance', {
        connection: redis,
        prefix: env.REVIEWWATCH_QUEUE_PREFIX,
      });
      const prune = await maintenance.getJobSchedulers(0, -1);
      await maintenance.close();
      expect(prune.map((s) => s.key)).toEqual(['daily-prune']);
      await redis.quit();
      expect(schedulers.map((s) => s.key).sort()).toEqual(['poll-shop-one', 'poll-shop-two']);

      child.kill('SIGTERM');
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(0);
      expect(stderr).toMatch(/SIGTERM: stopping/);
      expect(stderr).toMatch(/"msg":"stopped"/);
    },
    CLI_TEST_MS,
  );
});

describe('reviewwatch demo', () => {
  it(
    'shows the scripted alerts in the terminal, a possible incident among them, and stops cleanly',
    async () => {
      const dir = tempDir();
      // A database of its own: a demo a developer runs beside the tests holds the demo's queue prefix on
      // theirs (queue/prefix-claim.ts), and this run would be refused.
      const redisUrl = new URL(REDIS_URL);
      redisUrl.pathname = '/9';
      const child = spawnCli(['demo'], { REDIS_URL: redisUrl.href, DATABASE_PATH: 'unused' }, dir.dir);
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (d) => {
        stdout += d;
      });
      child.stderr?.on('data', (d) => {
        stderr += d;
      });
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      try {
        // The burst is published as soon as every baseline is stored: wait for what it raises, not a clock.
        await waitFor(
          () => {
            if (child.exitCode !== null) throw new Error(`the demo exited (${child.exitCode}):\n${stderr}`);
            return /Possible incident: \d+ low reviews of Bolt Subscriptions/.test(stdout);
          },
          60_000,
          () => `no incident yet:\n${stdout}\n${stderr}`,
        );
        expect(stdout).toMatch(/reviewwatch demo: watching/);
        // The burst is one message: the incident carrying its reviews, each scored and explained.
        expect(stdout).toMatch(
          /CRITICAL · 100\/100 · .*\n.*The last update broke checkout.*\n {3}Why: 1 star/,
        );
        // Its data is made up, and every alert says so: no headline without the tag.
        expect(stdout).toMatch(/^\[SIMULATED DATA\] ⚠ bolt-subscriptions: \d+ low reviews in 1 h$/m);
        expect(stdout).not.toMatch(/─{72}\n[★▼⚠]/);

        // The inbox, on loopback, opens to the printed user and password and lists the burst's reviews.
        const inbox =
          /Triage them in the inbox: (http:\/\/127\.0\.0\.1:\d+\/)\n {2}log in as "demo" with the password (\S+)\n/.exec(
            stdout,
          );
        expect(inbox, stdout).not.toBeNull();
        const [, url = '', password = ''] = inbox ?? [];
        expect(password).toMatch(/^[\w-]{20}$/);
        // Printed on the terminal only, never logged.
        expect(stderr).not.toContain(password);
        const base = url.replace(/\/$/, '');
        const browser = new Browser(base);
        expect((await browser.get('/')).status).toBe(303);
        expect((await browser.login('demo', 'not the password')).status).toBe(401);
        expect((await browser.login('demo', password)).status).toBe(303);
        const page = await browser.get('/?app=bolt-subscriptions');
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('Lost all my subscriber data after the update!');
        expect((await browser.get('/metrics')).status).toBe(200);

        child.kill('SIGINT');
        expect(await closed, stderr).toBe(0);
        expect(stdout).toMatch(/Stopping the demo/);
        // The account ends with the run, and was only ever in the demo's own database, not DATABASE_PATH.
        expect(existsSync(join(dir.dir, 'unused'))).toBe(false);
        const demoDb = openStore(join(dir.dir, 'data/demo/reviewwatch.db'));
        expect(listUsers(demoDb.db)).toEqual([]);
        demoDb.close();
        // It leaves nothing of its own in the shared Redis.
        const redis = await connectRedis(redisUrl.href);
        const left = await redis.keys('reviewwatch-demo:*');
        await redis.quit();
        expect(left).toEqual([]);
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
        dir.cleanup();
      }
    },
    CLI_TEST_MS,
  );
});
