import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectRedis, removePrefixedKeys } from '../../src/queue/connection.js';
import { type Simulator, type SimulatorOptions, startSimulator } from '../../src/simulator/index.js';
import { REDIS_URL, tempDir, uniquePrefix } from './index.js';
import { type FakeSlack, startFakeSlack } from './slack.js';

/** What the CLI of a test file runs against: a simulator, a Slack, a config file and its environment. */
export interface CliWorld {
  sim: Simulator;
  slack: FakeSlack;
  /** The environment `runCli` is given: the config file, the database, the queue prefix, the URLs. */
  env: Record<string, string>;
  dir: string;
  prefix: string;
  /** Removes the prefix's keys from Redis, closes the simulator and Slack, deletes the directory. */
  close(): Promise<void>;
}

/**
 * A simulator with the API key `key` and a fake Slack; `config` is written as the config file, a YAML
 * text or an object (JSON is YAML), and may name `${CATALOG_API_BASE_URL}`, `${CATALOG_API_KEY}` and
 * `${SLACK_WEBHOOK_URL}`.
 */
export async function startCliWorld(
  key: string,
  simulator: Omit<SimulatorOptions, 'apiKey'>,
  config: string | Record<string, unknown>,
  extraEnv: Record<string, string> = {},
): Promise<CliWorld> {
  const sim = await startSimulator({ apiKey: key, ...simulator });
  const slack = await startFakeSlack();
  const dir = tempDir();
  const prefix = uniquePrefix();
  const configPath = join(dir.dir, 'reviewwatch.yaml');
  writeFileSync(configPath, typeof config === 'string' ? config : JSON.stringify(config));
  const env = {
    REVIEWWATCH_CONFIG: configPath,
    CATALOG_API_BASE_URL: sim.url,
    CATALOG_API_KEY: key,
    DATABASE_PATH: join(dir.dir, 'reviewwatch.db'),
    REDIS_URL,
    REVIEWWATCH_QUEUE_PREFIX: prefix,
    SLACK_WEBHOOK_URL: slack.url,
    ...extraEnv,
  };
  return {
    sim,
    slack,
    env,
    dir: dir.dir,
    prefix,
    async close() {
      const redis = await connectRedis(REDIS_URL);
      await removePrefixedKeys(redis, prefix);
      await redis.quit();
      await sim.close();
      await slack.close();
      dir.cleanup();
    },
  };
}
