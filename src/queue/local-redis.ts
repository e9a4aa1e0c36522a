import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { ExitCode, ReviewwatchError } from '../errors.js';
import type { Logger } from '../log.js';
import { connectRedis, DEFAULT_REDIS_URL } from './connection.js';

export interface RedisEndpoint {
  url: string;
  /** Stops the private redis-server, if one was started for this process. */
  stop(): Promise<void>;
}

const HOW_TO_GET_REDIS =
  'Install one (Debian/Ubuntu: `sudo apt install redis-server`; macOS: `brew install redis`), run one in Docker ' +
  '(`docker run -d -p 127.0.0.1:6379:6379 redis:7`), or point REDIS_URL at yours.';

async function answers(url: string): Promise<boolean> {
  try {
    const redis = await connectRedis(url);
    await redis.quit();
    return true;
  } catch {
    return false;
  }
}

function redisServerInstalled(binary: string): boolean {
  return spawnSync(binary, ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Redis for a machine that has none running: REDIS_URL when set; else whatever answers on
 * 127.0.0.1:6379; else a private `redis-server` child on that address (loopback only, data under
 * `dataDir`, stopped with this process) when the binary is installed; else one message saying how to
 * get a Redis.
 */
export async function resolveRedis(options: {
  redisUrl: string | undefined;
  dataDir: string;
  logger: Logger;
  port?: number;
  binary?: string;
}): Promise<RedisEndpoint> {
  const noop = async () => {};
  if (options.redisUrl) return { url: options.redisUrl, stop: noop };
  const port = options.port ?? 6379;
  const url = port === 6379 ? DEFAULT_REDIS_URL : `redis://127.0.0.1:${port}`;
  if (await answers(url)) return { url, stop: noop };
  const binary = options.binary ?? 'redis-server';
  if (!redisServerInstalled(binary)) {
    throw new ReviewwatchError(
      `No Redis answers on 127.0.0.1:${port} and REDIS_URL is not set. ${HOW_TO_GET_REDIS}`,
      {
        exitCode: ExitCode.Unavailable,
      },
    );
  }
  return startPrivateRedis({ binary, port, dataDir: options.dataDir, logger: options.logger, url });
}

async function startPrivateRedis(options: {
  binary: string;
  port: number;
  dataDir: string;
  logger: Logger;
  url: string;
}): Promise<RedisEndpoint> {
  const dir = resolve(options.dataDir);
  mkdirSync(dir, { recursive: true });
  const child: ChildProcess = spawn(
    options.binary,
    [
      '--bind',
      '127.0.0.1',
      '--port',
      String(options.port),
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--save',
      '',
      '--maxmemory-policy',
      'noeviction',
      '--daemonize',
      'no',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  for (let i = 0; i < 50 && !exited; i++) {
    if (await answers(options.url)) {
      options.logger.info(
        `No Redis was running: started a private redis-server on ${options.url} (data in ${dir}); it stops with reviewwatch.`,
      );
      return {
        url: options.url,
        stop: () =>
          new Promise<void>((done) => {
            if (exited) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new ReviewwatchError(
    `Started redis-server on 127.0.0.1:${options.port}, but it did not answer. ${HOW_TO_GET_REDIS}`,
    {
      exitCode: ExitCode.Unavailable,
    },
  );
}
