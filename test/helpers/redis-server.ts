import { type ChildProcess, spawn } from 'node:child_process';
import { connectRedis } from '../../src/queue/connection.js';
import { freePort, waitFor } from './index.js';

/**
 * A redis-server of a test's own, without persistence: a test may FLUSHALL it, stop it and start it
 * again (empty, as a Redis without persistence restarts) without touching the shared one.
 */
export interface PrivateRedis {
  url: string;
  /** Stops it (SIGKILL: an outage, not a shutdown). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  flushAll(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const answers = async () => {
    try {
      const redis = await connectRedis(url);
      await redis.quit();
      return true;
    } catch {
      return false;
    }
  };
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp'],
      { stdio: 'ignore' },
    );
    await waitFor(answers, 10_000, () => `redis-server on ${port} did not answer`);
  };
  const stop = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  await start();
  return {
    url,
    start,
    stop,
    async flushAll() {
      const redis = await connectRedis(url);
      await redis.flushall();
      await redis.quit();
    },
  };
}
