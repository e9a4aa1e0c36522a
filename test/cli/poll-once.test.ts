import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertPolicyOf } from '../../src/alerts/policy.js';
import { CatalogClient } from '../../src/catalog/index.js';
import { parseConfig } from '../../src/config/index.js';
import { silentLogger } from '../../src/log.js';
import { pollLockKey } from '../../src/queue/app-lock.js';
import { connectRedis } from '../../src/queue/connection.js';
import {
  NOTIFY_QUEUE,
  type NotifyJobData,
  ONCE_POLL_QUEUE,
  POLL_JOB,
  POLL_QUEUE,
  type PollJobData,
} from '../../src/queue/names.js';
import { enqueueMessages } from '../../src/queue/notify-worker.js';
import type { Simulator } from '../../src/simulator/index.js';
import { openStore } from '../../src/store/db.js';
import { pollApp } from '../../src/watch/poll.js';
import { runCli } from '../helpers/cli.js';
import { type CliWorld, startCliWorld } from '../helpers/cli-world.js';
import { REDIS_URL, waitFor } from '../helpers/index.js';

const KEY = 'poll-once-key';
const CLI_TEST_MS = 120_000;
const HANDLES = ['shop-one', 'shop-two'];
let sim: Simulator;
let redis: Redis;
let world: CliWorld;
let env: Record<string, string>;
let prefix: string;
let raw: Record<string, unknown>;

beforeAll(async () => {
  raw = {
    catalog: { baseUrl: '${CATALOG_API_BASE_URL}', apiKey: '${CATALOG_API_KEY}', maxRequestsPerSecond: 50 },
    poll: { every: '10m', baselinePages: 2 },
    apps: HANDLES.map((handle) => ({ handle, notify: ['support'] })),
    alerts: { lowRating: { maxRating: 2 }, ratingDrop: { minDrop: 5, displayed: false } },
    channels: { support: { type: 'slack', webhookUrl: '${SLACK_WEBHOOK_URL}' } },
  };
  world = await startCliWorld(KEY, { appCount: 0, handles: HANDLES, maxReviewsPerApp: 20 }, raw, {
    REVIEWWATCH_HTTP_PORT: '0',
  });
  ({ sim, env, prefix } = world);
  redis = await connectRedis(REDIS_URL);
  const baseline = await runCli(['poll', '--once'], env, CLI_TEST_MS);
  expect(baseline.code, baseline.stdout + baseline.stderr).toBe(0);
}, CLI_TEST_MS);

afterAll(async () => {
  await redis.quit();
  await world.close();
});

describe('poll --once', () => {
  it(
    'polls every app itself and leaves the overdue scheduled polls of a stopped start to start',
    async () => {
      // What a stopped `start` leaves in Redis: one scheduler per app, its next poll overdue by now.
      const queue = new Queue<PollJobData>(POLL_QUEUE, { connection: redis, prefix });
      try {
        for (const handle of HANDLES) {
          await queue.upsertJobScheduler(
            `poll-${handle}`,
            { every: 600_000, startDate: Date.now() - 1_000 },
            { name: POLL_JOB, data: { handle } },
          );
        }
        const overdue = async () => (await queue.getJobs(['waiting', 'delayed', 'prioritized'])).length;
        expect(await overdue()).toBe(2);
        sim.controls.addReviews('shop-one', [{ rating: 1, review_content: 'Lost all my orders' }]);
        const run = await runCli(['poll', '--once'], env, CLI_TEST_MS);
        expect(run.code, run.stdout + run.stderr).toBe(0);
        expect(run.stdout).toMatch(/Polled 2 of 2 apps with 2 API requests: 1 new low-rated review\./);
        expect(run.stdout).toMatch(/shop-one — .*: Lost all my orders/);
        expect(run.stdout).not.toMatch(/skipped/);
        expect(run.stdout).toMatch(/support: 1 delivered/);
        // Still there for `start`: a one-shot run takes none of them.
        expect(await overdue()).toBe(2);
      } finally {
        await queue.obliterate({ force: true });
        await queue.close();
      }
    },
    CLI_TEST_MS,
  );

  it(
    'waits for a poll of the app running elsewhere, then polls, and reports what that poll found',
    async () => {
      const lock = pollLockKey(prefix, 'shop-two');
      // Another process is polling shop-two: it holds the app's lock, finds a low review, raises its alert.
      await redis.set(lock, 'other-process', 'PX', 60_000);
      sim.controls.addReviews('shop-two', [{ rating: 2, review_content: 'Support never answered' }]);
      const running = runCli(['poll', '--once', '--app', 'shop-two'], env, CLI_TEST_MS);
      const store = openStore(env.DATABASE_PATH as string);
      const notify = new Queue<NotifyJobData>(NOTIFY_QUEUE, { connection: redis, prefix });
      const once = new Queue<PollJobData>(ONCE_POLL_QUEUE, { connection: redis, prefix });
      try {
        // The run's poll of shop-two has started and waits for the lock.
        await waitFor(
          async () => (await once.getActiveCount()) === 1,
          60_000,
          () => 'the run never started its poll',
        );
        const config = parseConfig(raw, env);
        const other = await pollApp(
          {
            client: new CatalogClient({ baseUrl: sim.url, apiKey: KEY }),
            store,
            logger: silentLogger,
            alerts: alertPolicyOf(config),
          },
          'shop-two',
          { maxPages: 10, baselinePages: 2 },
        );
        expect(other.newReviews).toHaveLength(1);
        await enqueueMessages(notify, other.messages);
        sim.controls.resetStats();
        await redis.del(lock);
        const run = await running;
        expect(run.code, run.stdout + run.stderr).toBe(0);
        // It polled after the other poll (one request, nothing new left) and still lists what was found.
        expect(run.stdout).toMatch(/shop-two: 0 new \(1 request\)/);
        expect(run.stdout).toMatch(/Polled 1 of 1 apps with 1 API requests: 1 new low-rated review\./);
        expect(run.stdout).toMatch(/shop-two — .*: Support never answered/);
        expect(run.stdout).toMatch(/support: 1 delivered/);
        expect(sim.controls.stats().requests).toBe(1);
      } finally {
        await redis.del(lock);
        await notify.close();
        await once.close();
        store.close();
      }
    },
    CLI_TEST_MS,
  );

  it(
    'says which app it could not poll within --timeout, and why, with a non-zero exit',
    async () => {
      const lock = pollLockKey(prefix, 'shop-one');
      await redis.set(lock, 'other-process', 'PX', 60_000);
      try {
        const run = await runCli(['poll', '--once', '--timeout', '4'], env, CLI_TEST_MS);
        expect(run.code).toBe(1);
        expect(run.stdout).toMatch(/Polled 1 of 2 apps/);
        expect(run.stdout).toMatch(
          /skipped: shop-one: another poll of it .* was still running when the time ran out/,
        );
      } finally {
        await redis.del(lock);
      }
    },
    CLI_TEST_MS,
  );
});
