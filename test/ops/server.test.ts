import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CatalogClient } from '../../src/catalog/index.js';
import { ReviewwatchError } from '../../src/errors.js';
import { Metrics } from '../../src/ops/metrics.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';
import { connectRedis } from '../../src/queue/connection.js';
import { DIGEST_QUEUE, NOTIFY_QUEUE, POLL_QUEUE } from '../../src/queue/names.js';
import { adminCredentials, httpAddress } from '../../src/settings.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { captureLog, REDIS_URL, tempStore, uniquePrefix } from '../helpers/index.js';
import { sampleValue } from './helpers.js';

let redis: Redis;
let prefix: string;
let queues: Queue[];
let store: ReturnType<typeof tempStore>;
let metrics: Metrics;
const servers: OpsServer[] = [];
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  redis = await connectRedis(REDIS_URL);
});
afterAll(async () => {
  await redis.quit();
});
beforeEach(() => {
  prefix = uniquePrefix();
  queues = [POLL_QUEUE, NOTIFY_QUEUE, DIGEST_QUEUE].map(
    (name) => new Queue(name, { connection: redis, prefix }),
  );
  store = tempStore();
  metrics = new Metrics();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const cleanup of cleanups.splice(0)) await cleanup();
  for (const queue of queues) {
    await queue.obliterate({ force: true });
    await queue.close();
  }
  store.cleanup();
});

async function start(
  options: {
    env?: Record<string, string>;
    redis?: Redis;
    store?: typeof store;
    readyTimeoutMs?: number;
  } = {},
) {
  const log = captureLog();
  const server = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    deps: { redis: options.redis ?? redis, store: options.store ?? store, queues, metrics },
    admin: adminCredentials(options.env ?? {}),
    logger: log.logger,
    ...(options.readyTimeoutMs ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
  });
  servers.push(server);
  return { url: server.url, log, server };
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

describe('health and readiness', () => {
  it('answers /healthz, and logs its URL once', async () => {
    const { url, log } = await start();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(log.lines().filter((l) => l.msg.includes(url))).toHaveLength(1);
  });

  it('is ready when Redis and SQLite answer', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', failed: [], checks: { redis: 'ok', sqlite: 'ok' } });
  });

  it('is not ready, naming redis, when its Redis connection is gone', async () => {
    const lost = await connectRedis(REDIS_URL);
    const ended = new Promise((resolve) => lost.once('end', resolve));
    lost.disconnect();
    await ended;
    const { url, log } = await start({ redis: lost });
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { checks: Record<string, string> };
    expect(body).toMatchObject({ status: 'unavailable', failed: ['redis'], checks: { sqlite: 'ok' } });
    expect(body.checks.redis).toBe('not connected');
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|redis:\/\//);
    // Said once in the log, not on every probe.
    await fetch(`${url}/readyz`);
    expect(log.lines().filter((l) => l.msg.startsWith('not ready'))).toHaveLength(1);
  });

  it('is not ready when Redis does not answer within the timeout', async () => {
    const busy = await connectRedis(REDIS_URL);
    cleanups.push(() => {
      busy.disconnect();
    });
    // A blocking pop with no timeout holds the connection until the cleanup drops it: the PING queued
    // behind it cannot answer in time, however long the server takes to start.
    void busy.blpop(`${prefix}:nothing`, 0).catch(() => undefined);
    const { url } = await start({ redis: busy, readyTimeoutMs: 200 });
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ failed: ['redis'], checks: { redis: 'timeout', sqlite: 'ok' } });
  });

  it('is not ready, naming sqlite, when the database is closed', async () => {
    const closed = tempStore();
    cleanups.push(() => closed.cleanup());
    closed.close();
    const { url } = await start({ store: closed });
    const res = await fetch(`${url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ failed: ['sqlite'], checks: { redis: 'ok', sqlite: 'error' } });
  });
});

describe('/metrics', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ appCount: 0, handles: ['shop'], maxReviewsPerApp: 5 });
  });
  afterAll(() => sim.close());

  const TOKEN = 'metrics-token-0123';
  const bearer = { authorization: `Bearer ${TOKEN}` };

  it('answers only with credentials, with a 401 a scraper reports (not a login redirect)', async () => {
    const env = { REVIEWWATCH_ADMIN_TOKEN: TOKEN };
    const { url } = await start({ env });
    for (const authorization of [undefined, 'Bearer wrong', basic('me', 'wrong')]) {
      const res = await fetch(`${url}/metrics`, {
        headers: authorization ? { authorization } : {},
        redirect: 'manual',
      });
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
      const body = await res.text();
      expect(body).toContain('REVIEWWATCH_ADMIN_TOKEN');
      expect(body).not.toContain('reviewwatch_polls_total');
    }
    expect((await fetch(`${url}/metrics`, { headers: bearer })).status).toBe(200);
    // Basic auth opens it as it opens Bull Board: the token as password, or the configured pair.
    expect((await fetch(`${url}/metrics`, { headers: { authorization: basic('me', TOKEN) } })).status).toBe(
      200,
    );
    const pair = await start({ env: { REVIEWWATCH_ADMIN_USER: 'ops', REVIEWWATCH_ADMIN_PASSWORD: 'pw' } });
    expect(
      (await fetch(`${pair.url}/metrics`, { headers: { authorization: basic('ops', 'pw') } })).status,
    ).toBe(200);
  });

  it('says at startup how to reach /metrics when no credentials are configured', async () => {
    const { url, log } = await start();
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    const warning = log.lines().find((l) => l.msg.startsWith('/metrics answers no one'));
    expect(warning?.msg).toContain('Set REVIEWWATCH_ADMIN_TOKEN');
    expect(warning?.msg).toContain('Authorization: Bearer');
    const { log: quiet } = await start({ env: { REVIEWWATCH_ADMIN_TOKEN: TOKEN } });
    expect(quiet.text()).not.toContain('/metrics answers no one');
  });

  it('exposes the metric names, what the catalog client reported and the queue depths', async () => {
    const { url } = await start({ env: { REVIEWWATCH_ADMIN_TOKEN: TOKEN } });
    const client = new CatalogClient({
      baseUrl: sim.url,
      apiKey: 'k',
      onResponse: metrics.onCatalogResponse,
    });
    await client.reviews('shop');
    await client.app('shop');
    sim.controls.failNext(1, { status: 429, retryAfterSec: 1 });
    await expect(client.reviews('shop')).rejects.toThrow();
    const [poll, notify] = queues;
    await poll?.add('poll', { handle: 'shop' }, { delay: 60_000 });
    await notify?.add('deliver', { deliveryIds: [1] });
    await notify?.add('deliver', { deliveryIds: [2] });

    const res = await fetch(`${url}/metrics`, { headers: bearer });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    for (const name of [
      'reviewwatch_polls_total',
      'reviewwatch_poll_duration_seconds',
      'reviewwatch_catalog_requests_total',
      'reviewwatch_catalog_rate_limited_total',
      'reviewwatch_notifications_total',
      'reviewwatch_queue_jobs',
      'reviewwatch_reviews_new_total',
      'reviewwatch_alerts_raised_total',
      'process_cpu_user_seconds_total',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
    expect(
      sampleValue(text, 'reviewwatch_catalog_requests_total', { endpoint: 'reviews', status: '200' }),
    ).toBe(1);
    expect(sampleValue(text, 'reviewwatch_catalog_requests_total', { endpoint: 'app', status: '200' })).toBe(
      1,
    );
    expect(
      sampleValue(text, 'reviewwatch_catalog_requests_total', { endpoint: 'reviews', status: '429' }),
    ).toBe(1);
    expect(sampleValue(text, 'reviewwatch_catalog_rate_limited_total')).toBe(1);
    expect(sampleValue(text, 'reviewwatch_queue_jobs', { queue: 'poll', state: 'delayed' })).toBe(1);
    expect(sampleValue(text, 'reviewwatch_queue_jobs', { queue: 'poll', state: 'waiting' })).toBe(0);
    expect(sampleValue(text, 'reviewwatch_queue_jobs', { queue: 'notify', state: 'waiting' })).toBe(2);
    expect(sampleValue(text, 'reviewwatch_queue_jobs', { queue: 'digest', state: 'failed' })).toBe(0);
    // No handle ever becomes a label.
    expect(text).not.toContain('shop');
  });

  it('still answers when Redis does not, without the queue depths', async () => {
    const lost = await connectRedis(REDIS_URL);
    const offline = [POLL_QUEUE].map((name) => new Queue(name, { connection: lost, prefix }));
    for (const queue of offline) queue.on('error', () => undefined);
    lost.disconnect();
    cleanups.push(async () => {
      for (const queue of offline) await queue.close().catch(() => undefined);
    });
    const log = captureLog();
    const server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      deps: { redis: lost, store, queues: offline, metrics },
      admin: adminCredentials({ REVIEWWATCH_ADMIN_TOKEN: TOKEN }),
      logger: log.logger,
    });
    servers.push(server);
    const res = await fetch(`${server.url}/metrics`, { headers: bearer });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('# TYPE reviewwatch_queue_jobs gauge');
    expect(text).not.toMatch(/^reviewwatch_queue_jobs\{/m);
  });
});

describe('Bull Board at /admin/queues', () => {
  it('is closed when no credentials are set, saying which variables open it', async () => {
    const { url } = await start();
    for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
      const res = await fetch(`${url}${path}`, { headers: { authorization: 'Bearer anything' } });
      expect(res.status).toBe(404);
      const body = (await res.json()) as { hint: string };
      expect(body.hint).toContain('REVIEWWATCH_ADMIN_TOKEN');
      expect(body.hint).toContain('REVIEWWATCH_ADMIN_USER');
    }
  });

  it('with a token: 401 without or with a wrong one, the board with the right one', async () => {
    const { url } = await start({ env: { REVIEWWATCH_ADMIN_TOKEN: 's3cret-token' } });
    const missing = await fetch(`${url}/admin/queues`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/Bearer realm=/);
    expect(missing.headers.get('www-authenticate')).toMatch(/Basic realm=/);
    for (const authorization of [
      'Bearer wrong',
      'Bearer s3cret-toke',
      'Bearer s3cret-token-',
      'Token s3cret-token',
    ]) {
      const res = await fetch(`${url}/admin/queues`, { headers: { authorization } });
      expect(res.status, authorization).toBe(401);
    }
    const page = await fetch(`${url}/admin/queues`, { headers: { authorization: 'Bearer s3cret-token' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('<base href="/admin/queues/"');
    // A browser's login prompt: any user, the token as password.
    const browser = await fetch(`${url}/admin/queues`, {
      headers: { authorization: basic('me', 's3cret-token') },
    });
    expect(browser.status).toBe(200);
  });

  it('with basic auth: 401 with a challenge on wrong credentials, the board and its API with the right ones', async () => {
    const env = { REVIEWWATCH_ADMIN_USER: 'ops', REVIEWWATCH_ADMIN_PASSWORD: 'pa:ss word' };
    const { url } = await start({ env });
    for (const authorization of [
      undefined,
      basic('ops', 'nope'),
      basic('nope', 'pa:ss word'),
      'Bearer pa:ss word',
    ]) {
      const res = await fetch(`${url}/admin/queues/api/queues`, {
        headers: authorization ? { authorization } : {},
      });
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="reviewwatch admin"/);
    }
    const authorization = basic('ops', 'pa:ss word');
    const page = await fetch(`${url}/admin/queues`, { headers: { authorization } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<!DOCTYPE html>');

    const [poll] = queues;
    await poll?.add('poll', { handle: 'shop' }, { delay: 60_000 });
    const api = await fetch(`${url}/admin/queues/api/queues`, { headers: { authorization } });
    expect(api.status).toBe(200);
    const body = (await api.json()) as { queues: Array<{ name: string; counts: Record<string, number> }> };
    expect(body.queues.map((q) => q.name).sort()).toEqual(['digest', 'notify', 'poll']);
    expect(body.queues.find((q) => q.name === 'poll')?.counts.delayed).toBe(1);
  });

  it('stays closed when only half of the basic credentials are set, and says so', async () => {
    const { url, log } = await start({ env: { REVIEWWATCH_ADMIN_USER: 'ops' } });
    expect((await fetch(`${url}/admin/queues`)).status).toBe(404);
    expect(log.text()).toContain('REVIEWWATCH_ADMIN_USER is set without REVIEWWATCH_ADMIN_PASSWORD');
  });
});

describe('the server', () => {
  it('answers unknown paths with a JSON 404', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/nope`);
    expect(res.status).toBe(404);
    // Nothing more: a guessed address learns nothing of the other endpoints.
    expect(await res.json()).toEqual({ error: 'not found' });
  });

  it('says clearly when its port is taken', async () => {
    const { url } = await start();
    const port = Number(new URL(url).port);
    const taken = await startOpsServer({
      host: '127.0.0.1',
      port,
      deps: { redis, store, queues, metrics },
      admin: {},
      logger: captureLog().logger,
    }).then(
      (server) => {
        servers.push(server);
        return undefined;
      },
      (err: unknown) => err,
    );
    expect(taken).toBeInstanceOf(ReviewwatchError);
    expect(String(taken)).toMatch(/EADDRINUSE.*REVIEWWATCH_HTTP_PORT/);
  });

  it('takes its address from the config, the environment winning', () => {
    const http = { host: '127.0.0.1', port: 9464 };
    expect(httpAddress(http, {})).toEqual(http);
    expect(httpAddress(http, { REVIEWWATCH_HTTP_PORT: '0', REVIEWWATCH_HTTP_HOST: '::1' })).toEqual({
      host: '::1',
      port: 0,
    });
    for (const bad of ['http', '70000', '-1', '12.5'])
      expect(() => httpAddress(http, { REVIEWWATCH_HTTP_PORT: bad })).toThrow(/REVIEWWATCH_HTTP_PORT/);
  });
});
