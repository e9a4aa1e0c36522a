import { Queue, QueueEvents, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { alertPolicyOf } from '../../src/alerts/policy.js';
import { CatalogClient } from '../../src/catalog/index.js';
import { parseConfig } from '../../src/config/index.js';
import { createSenders } from '../../src/notify/channels.js';
import { Metrics } from '../../src/ops/metrics.js';
import { connectRedis } from '../../src/queue/connection.js';
import {
  NOTIFY_QUEUE,
  type NotifyJobData,
  POLL_JOB,
  POLL_QUEUE,
  type PollJobData,
} from '../../src/queue/names.js';
import { createNotifyWorker, enqueueMessages, type NotifyResult } from '../../src/queue/notify-worker.js';
import { createPollWorker, type PollJobResult, pollJobOptions } from '../../src/queue/poll-worker.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { captureLog, REDIS_URL, tempStore, uniquePrefix, waitFor } from '../helpers/index.js';
import { type FakeSlack, startFakeSlack } from '../helpers/slack.js';
import { sampleValue } from './helpers.js';

let sim: Simulator;
let slack: FakeSlack;
let redis: Redis;
let prefix: string;
let store: ReturnType<typeof tempStore>;
let metrics: Metrics;
let pollQueue: Queue<PollJobData>;
let notifyQueue: Queue<NotifyJobData>;
let events: QueueEvents;
let workers: Array<Worker<PollJobData, PollJobResult> | Worker<NotifyJobData, NotifyResult>>;
let run = 0;

beforeAll(async () => {
  sim = await startSimulator({ appCount: 0, handles: ['shop'], maxReviewsPerApp: 12 });
});
afterAll(() => sim.close());

beforeEach(async () => {
  sim.controls.reset();
  slack = await startFakeSlack();
  redis = await connectRedis(REDIS_URL);
  prefix = uniquePrefix();
  store = tempStore();
  metrics = new Metrics({ defaultMetrics: false });
  const config = parseConfig(
    {
      catalog: { baseUrl: sim.url, apiKey: 'k', maxRequestsPerSecond: 200 },
      poll: { baselinePages: 2 },
      apps: [{ handle: 'shop', notify: ['support'] }],
      // One alert per low review: no rating drop or incident beside them.
      alerts: {
        lowRating: { maxRating: 2 },
        throttle: { max: 100 },
        ratingDrop: { minDrop: 5, displayed: false },
        incident: { count: 50 },
      },
      channels: { support: { type: 'slack', webhookUrl: slack.url } },
    },
    {},
  );
  const log = captureLog();
  pollQueue = new Queue<PollJobData>(POLL_QUEUE, { connection: redis, prefix });
  notifyQueue = new Queue<NotifyJobData>(NOTIFY_QUEUE, { connection: redis, prefix });
  events = new QueueEvents(POLL_QUEUE, { connection: redis, prefix });
  await events.waitUntilReady();
  const client = new CatalogClient({ baseUrl: sim.url, apiKey: 'k', onResponse: metrics.onCatalogResponse });
  workers = [
    createPollWorker({
      connection: redis,
      queue: pollQueue,
      prefix,
      concurrency: 2,
      maxRequestsPerSecond: 200,
      poll: { maxPages: 10, baselinePages: 2 },
      lowRatingMax: 2,
      deps: { client, store, logger: log.logger, alerts: alertPolicyOf(config) },
      logger: log.logger,
      onMessages: (messages) => enqueueMessages(notifyQueue, messages),
      rateLimitBaseMs: 50,
      metrics,
    }),
    createNotifyWorker({
      connection: redis,
      prefix,
      queue: notifyQueue,
      store,
      senders: createSenders(config, undefined),
      throttle: { max: 100, windowMs: 3_600_000 },
      logger: log.logger,
      metrics,
    }),
  ];
  for (const worker of workers) void worker.run();
});

afterEach(async () => {
  for (const worker of workers) await worker.close();
  await events.close();
  for (const queue of [pollQueue, notifyQueue]) {
    await queue.obliterate({ force: true });
    await queue.close();
  }
  await redis.quit();
  await slack.close();
  store.cleanup();
});

async function poll(handle = 'shop', attempts = 3): Promise<PollJobResult> {
  run++;
  const job = await pollQueue.add(
    POLL_JOB,
    { handle },
    { ...pollJobOptions({ attempts, backoffMs: 50 }), jobId: `m${run}-${handle}` },
  );
  return job.waitUntilFinished(events, 15_000) as Promise<PollJobResult>;
}

async function value(name: string, labels: Record<string, string> = {}): Promise<number> {
  return sampleValue(await metrics.metrics(), name, labels);
}

describe('the workers report to the metrics', () => {
  it('count polls by status, their durations, new reviews, alerts and deliveries', async () => {
    await poll();
    expect(await value('reviewwatch_polls_total', { status: 'baseline' })).toBe(1);
    // History is not new.
    expect(await value('reviewwatch_reviews_new_total')).toBe(0);
    expect(
      await value('reviewwatch_catalog_requests_total', { endpoint: 'reviews', status: '200' }),
    ).toBeGreaterThanOrEqual(1);

    sim.controls.addReviews('shop', [
      { rating: 1, review_content: 'Charged twice, no refund' },
      { rating: 5, review_content: 'Love it' },
    ]);
    const result = await poll();
    expect(result.deliveryIds).toHaveLength(1);
    expect(await value('reviewwatch_polls_total', { status: 'ok' })).toBe(1);
    expect(await value('reviewwatch_reviews_new_total')).toBe(2);
    expect(await value('reviewwatch_alerts_raised_total', { kind: 'review' })).toBe(1);
    expect(await value('reviewwatch_poll_duration_seconds_count')).toBe(2);
    await waitFor(
      async () =>
        (await value('reviewwatch_notifications_total', { channel: 'support', outcome: 'sent' })) === 1,
    );
    expect(slack.accepted()).toHaveLength(1);

    // A channel 429 is a retry; the message then goes out once.
    slack.respond({ status: 429, retryAfter: 0 });
    sim.controls.addReviews('shop', [{ rating: 2, review_content: 'Crashes on start' }]);
    await poll();
    await waitFor(
      async () =>
        (await value('reviewwatch_notifications_total', { channel: 'support', outcome: 'sent' })) === 2,
    );
    expect(await value('reviewwatch_notifications_total', { channel: 'support', outcome: 'retried' })).toBe(
      1,
    );

    // A webhook that is gone fails for good.
    slack.respond({ status: 404, body: 'no_service' });
    sim.controls.addReviews('shop', [{ rating: 1, review_content: 'Lost my data' }]);
    await poll();
    await waitFor(
      async () =>
        (await value('reviewwatch_notifications_total', { channel: 'support', outcome: 'failed' })) === 1,
    );
    expect(await value('reviewwatch_notifications_total', { outcome: 'sent' })).toBe(2);
  });

  it('count failed attempts, unavailable apps and 429s (which are not failures)', async () => {
    await poll();
    sim.controls.failNext(1, { status: 429, retryAfterSec: 0 });
    await poll();
    expect(await value('reviewwatch_catalog_rate_limited_total')).toBe(1);
    expect(await value('reviewwatch_catalog_requests_total', { endpoint: 'reviews', status: '429' })).toBe(1);
    expect(await value('reviewwatch_polls_total', { status: 'failed' })).toBe(0);
    expect(await value('reviewwatch_polls_total', { status: 'ok' })).toBe(1);

    sim.controls.failNext(1, { status: 500 });
    await poll();
    expect(await value('reviewwatch_polls_total', { status: 'failed' })).toBe(1);
    expect(await value('reviewwatch_polls_total', { status: 'ok' })).toBe(2);
    expect(await value('reviewwatch_catalog_requests_total', { endpoint: 'reviews', status: '500' })).toBe(1);

    await poll('not-listed');
    expect(await value('reviewwatch_polls_total', { status: 'unavailable' })).toBe(1);
    expect(await value('reviewwatch_catalog_requests_total', { endpoint: 'reviews', status: '404' })).toBe(1);
  });
});
