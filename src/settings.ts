import { type Config, DEFAULT_CONFIG_PATH, loadConfig } from './config/index.js';
import { ExitCode, ReviewwatchError } from './errors.js';
import type { LogOptions } from './log.js';
import { DEFAULT_QUEUE_PREFIX, DEFAULT_REDIS_URL } from './queue/connection.js';
import { DEFAULT_DATABASE_PATH } from './store/db.js';
import type { AdminCredentials } from './web/auth.js';

/**
 * The environment as reviewwatch reads it. This module is the only place that reads `process.env`: the
 * rest of the code gets what it needs from `Settings`, so a test can run two workers side by side with
 * different environments, and the list of variables below is the whole contract.
 */
export type Env = Readonly<Record<string, string | undefined>>;

export interface Settings {
  configPath: string;
  config: Config;
  redisUrl: string;
  /** False when REDIS_URL is unset: then a private redis-server may be started (queue/local-redis.ts). */
  redisUrlGiven: boolean;
  databasePath: string;
  queuePrefix: string;
  smtpUrl: string | undefined;
  /** Where the ops server listens: `http.host`/`http.port`, overridden by REVIEWWATCH_HTTP_HOST/PORT. */
  http: { host: string; port: number };
  admin: AdminCredentials;
  /**
   * The catalog data is made up (`catalog.simulator: true`; the demo sets it for its own simulator):
   * every alert and digest built from it says so. Decided here, once, and passed to what renders.
   */
  simulated: boolean;
}

/** LOG_LEVEL and LOG_FORMAT; `--verbose` wins over LOG_LEVEL. */
export function logOptionsFrom(env: Env = process.env, verbose = false): LogOptions {
  const format = env.LOG_FORMAT === 'json' || env.LOG_FORMAT === 'pretty' ? env.LOG_FORMAT : undefined;
  const level = verbose ? 'debug' : env.LOG_LEVEL || undefined;
  return { ...(format ? { format } : {}), ...(level ? { level } : {}) };
}

/** Reads the config file and the environment: everything a command needs before it connects anywhere. */
export function loadSettings(options: { configPath?: string; env?: Env } = {}): Settings {
  const env = options.env ?? process.env;
  const configPath = options.configPath ?? (env.REVIEWWATCH_CONFIG || DEFAULT_CONFIG_PATH);
  return settingsOf(loadConfig(configPath, env), env, configPath);
}

/** Settings for a config built in code (the demo, tests), with the rest from `env`. */
export function settingsOf(config: Config, env: Env = process.env, configPath = '(built in)'): Settings {
  return {
    configPath,
    config,
    redisUrl: env.REDIS_URL || DEFAULT_REDIS_URL,
    redisUrlGiven: Boolean(env.REDIS_URL),
    databasePath: env.DATABASE_PATH || DEFAULT_DATABASE_PATH,
    queuePrefix: env.REVIEWWATCH_QUEUE_PREFIX || DEFAULT_QUEUE_PREFIX,
    smtpUrl: env.SMTP_URL || undefined,
    http: httpAddress(config.http, env),
    admin: adminCredentials(env),
    simulated: config.catalog.simulator,
  };
}

/** `http.host` / `http.port` of the config, overridden by REVIEWWATCH_HTTP_HOST / REVIEWWATCH_HTTP_PORT. */
export function httpAddress(http: { host: string; port: number }, env: Env): { host: string; port: number } {
  const rawPort = env.REVIEWWATCH_HTTP_PORT?.trim();
  let port = http.port;
  if (rawPort) {
    port = /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : Number.NaN;
    if (!(port >= 0 && port <= 65_535)) {
      throw new ReviewwatchError(
        `REVIEWWATCH_HTTP_PORT must be a port number from 0 to 65535, got "${rawPort.slice(0, 40)}"`,
        { exitCode: ExitCode.Usage },
      );
    }
  }
  return { host: env.REVIEWWATCH_HTTP_HOST?.trim() || http.host, port };
}

export function adminCredentials(env: Env): AdminCredentials {
  const token = env.REVIEWWATCH_ADMIN_TOKEN || undefined;
  const user = env.REVIEWWATCH_ADMIN_USER || undefined;
  const password = env.REVIEWWATCH_ADMIN_PASSWORD || undefined;
  const problem =
    (user === undefined) === (password === undefined)
      ? undefined
      : `${user ? 'REVIEWWATCH_ADMIN_USER is set without REVIEWWATCH_ADMIN_PASSWORD' : 'REVIEWWATCH_ADMIN_PASSWORD is set without REVIEWWATCH_ADMIN_USER'}: basic auth stays off`;
  return {
    ...(token ? { token } : {}),
    ...(user && password ? { basic: { user, password } } : {}),
    ...(problem ? { problem } : {}),
  };
}

/** What the demo reads: where else to show its alerts besides the terminal. */
export function demoChannelsFrom(env: Env = process.env): {
  slackWebhookUrl?: string;
  email?: { smtpUrl: string; from: string; to: string };
} {
  return {
    ...(env.SLACK_WEBHOOK_URL ? { slackWebhookUrl: env.SLACK_WEBHOOK_URL } : {}),
    ...(env.SMTP_URL
      ? {
          email: {
            smtpUrl: env.SMTP_URL,
            from: env.DEMO_EMAIL_FROM || 'reviewwatch-demo@example.com',
            to: env.DEMO_EMAIL_TO || 'reviewwatch-demo@example.com',
          },
        }
      : {}),
  };
}
