import { dirname, join } from 'node:path';
import type { Redis } from 'ioredis';
import { alertPolicyOf } from './alerts/policy.js';
import type { AlertPolicy } from './alerts/raise.js';
import { CatalogClient } from './catalog/index.js';
import { type Config, DEFAULT_CONFIG_PATH, loadConfig } from './config/index.js';
import type { Logger } from './log.js';
import { createSenders } from './notify/channels.js';
import type { ChannelSender } from './notify/sender.js';
import { Metrics } from './ops/metrics.js';
import { connectRedis, DEFAULT_QUEUE_PREFIX, DEFAULT_REDIS_URL } from './queue/connection.js';
import { resolveRedis } from './queue/local-redis.js';
import { RedisRequestGate } from './queue/rate-gate.js';
import type { Simulator } from './simulator/index.js';
import { startSimulator } from './simulator/index.js';
import { DEFAULT_DATABASE_PATH, openStore, type Store } from './store/db.js';

type Env = Record<string, string | undefined>;

export interface Settings {
  configPath: string;
  config: Config;
  redisUrl: string;
  /** False when REDIS_URL is unset: then a private redis-server may be started (queue/local-redis.ts). */
  redisUrlGiven: boolean;
  databasePath: string;
  queuePrefix: string;
  smtpUrl: string | undefined;
}

/** Reads the config file and the environment: everything a command needs before it connects anywhere. */
export function loadSettings(options: { configPath?: string; env?: Env } = {}): Settings {
  const env = options.env ?? process.env;
  const configPath = options.configPath ?? env.REVIEWWATCH_CONFIG ?? DEFAULT_CONFIG_PATH;
  return {
    configPath,
    config: loadConfig(configPath, env),
    redisUrl: env.REDIS_URL || DEFAULT_REDIS_URL,
    redisUrlGiven: Boolean(env.REDIS_URL),
    databasePath: env.DATABASE_PATH || DEFAULT_DATABASE_PATH,
    queuePrefix: env.REVIEWWATCH_QUEUE_PREFIX || DEFAULT_QUEUE_PREFIX,
    smtpUrl: env.SMTP_URL || undefined,
  };
}

export interface Runtime extends Settings {
  logger: Logger;
  store: Store;
  redis: Redis;
  client: CatalogClient;
  senders: Map<string, ChannelSender>;
  alerts: AlertPolicy;
  /** This process's Prometheus metrics; `start` serves them at /metrics. */
  metrics: Metrics;
  /** Set when no API key is configured and the built-in simulator stands in for the API. */
  simulator: Simulator | undefined;
  close(): Promise<void>;
}

/** How often the embedded simulator publishes a review, so a first run shows the flow working. */
const EMBEDDED_ARRIVAL_MS = 20_000;

/**
 * Opens what the worker commands share: the database, Redis, and the Catalog API (or, with no API key,
 * the built-in simulator serving the configured apps). Whatever opened is closed again if a later step
 * fails.
 */
export async function openRuntime(settings: Settings, logger: Logger): Promise<Runtime> {
  const closers: Array<() => Promise<void> | void> = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    const senders = createSenders(settings.config, settings.smtpUrl);
    closers.push(() => {
      for (const sender of senders.values()) sender.close?.();
    });
    const store = openStore(settings.databasePath);
    closers.push(() => store.close());
    const endpoint = await resolveRedis({
      redisUrl: settings.redisUrlGiven ? settings.redisUrl : undefined,
      dataDir: join(dirname(settings.databasePath), 'redis'),
      logger,
    });
    closers.push(() => endpoint.stop());
    const redis = await connectRedis(endpoint.url);
    closers.push(async () => {
      await redis.quit().catch(() => redis.disconnect());
    });

    const { catalog, apps } = settings.config;
    let simulator: Simulator | undefined;
    let baseUrl = catalog.baseUrl;
    let apiKey = catalog.apiKey;
    if (!apiKey || !baseUrl) {
      const handles = apps.map((app) => app.handle);
      simulator = await startSimulator({
        handles,
        appCount: 0,
        arrival: { everyMs: EMBEDDED_ARRIVAL_MS, handles },
      });
      closers.push(() => simulator?.close());
      baseUrl = simulator.url;
      apiKey = 'simulator';
      logger.warn(
        `No CATALOG_API_KEY set: polling the built-in Catalog API simulator at ${simulator.url} (a new review every ${EMBEDDED_ARRIVAL_MS / 1000}s). Set CATALOG_API_BASE_URL and CATALOG_API_KEY to watch the real marketplace.`,
      );
    }
    const gate = new RedisRequestGate(redis, {
      prefix: settings.queuePrefix,
      maxRequestsPerSecond: catalog.maxRequestsPerSecond,
    });
    const metrics = new Metrics();
    const client = new CatalogClient({
      baseUrl,
      apiKey,
      timeoutMs: catalog.timeout,
      gate,
      logger,
      onResponse: metrics.onCatalogResponse,
    });
    closers.push(() => client.close());
    return {
      ...settings,
      logger,
      store,
      redis,
      client,
      senders,
      alerts: alertPolicyOf(settings.config),
      metrics,
      simulator,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
