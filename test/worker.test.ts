import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config/index.js';
import { ExitCode, ReviewwatchError } from '../src/errors.js';
import { partsOf, startWorker } from '../src/root/worker.js';
import { settingsOf } from '../src/settings.js';
import { captureLog, REDIS_URL, tempDir, uniquePrefix, waitFor } from './helpers/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** What this process holds open: file paths and the number of sockets, from /proc. */
function openHandles(): { files: string[]; sockets: number } {
  const files: string[] = [];
  let sockets = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target.startsWith('socket:')) sockets++;
    else files.push(target);
  }
  return { files, sockets };
}

function settingsFor(raw: Record<string, unknown>, env: Record<string, string> = {}) {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const databasePath = join(dir.dir, 'reviewwatch.db');
  return {
    ...settingsOf(parseConfig(raw, env), { ...env, REDIS_URL }, 'test'),
    databasePath,
    queuePrefix: uniquePrefix(),
  };
}

describe('startWorker', () => {
  it('refuses to start without an API key or base URL, naming them, before opening anything', async () => {
    const settings = settingsFor({
      apps: [{ handle: 'shop', notify: ['support'] }],
      channels: { support: { type: 'slack', webhookUrl: 'https://hooks.example/T/B/x' } },
    });
    const err = await startWorker(settings, { mode: 'service', logger: captureLog().logger }).catch((e) => e);
    expect(err).toBeInstanceOf(ReviewwatchError);
    expect(err.exitCode).toBe(ExitCode.Usage);
    expect(err.message).toMatch(/CATALOG_API_BASE_URL and CATALOG_API_KEY are not set/);
    expect(existsSync(settings.databasePath)).toBe(false);
  });

  it('gives back everything it opened when the start-up fails half-way (the port is taken)', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as { port: number }).port;
    const settings = settingsFor({
      catalog: { simulator: true },
      apps: [{ handle: 'shop' }],
      http: { port },
    });
    const before = openHandles();
    const err = await startWorker(settings, {
      mode: 'service',
      logger: captureLog().logger,
    }).catch((e) => e);
    expect(String(err)).toMatch(/Cannot serve health and metrics .*EADDRINUSE/);
    // The database was opened (and migrated), then closed again; the Redis, simulator and HTTP
    // sockets are gone too.
    expect(existsSync(settings.databasePath)).toBe(true);
    expect(openHandles().files.filter((f) => f.startsWith(settings.databasePath))).toEqual([]);
    await waitFor(
      () => openHandles().sockets <= before.sockets,
      10_000,
      () => `${openHandles().sockets} sockets open, ${before.sockets} before`,
    );
  });

  it('stops once however often it is asked, and kill abandons what runs', async () => {
    const settings = settingsFor({ catalog: { simulator: true }, apps: [{ handle: 'shop' }] });
    const worker = await startWorker(settings, {
      mode: 'once',
      logger: captureLog().logger,
      privateQueues: true,
    });
    expect(partsOf(worker).simulator).toBeDefined();
    const [outcome] = await worker.pollNow(['shop']);
    expect(outcome?.result?.status).toBe('baseline');
    await Promise.all([worker.stop(), worker.stop(), worker.kill()]);
    await worker.done;
    expect(openHandles().files.filter((f) => f.startsWith(settings.databasePath))).toEqual([]);
    await waitFor(
      () => partsOf(worker).redis.status === 'end',
      5_000,
      () => `Redis is ${partsOf(worker).redis.status}`,
    );
  });
});
