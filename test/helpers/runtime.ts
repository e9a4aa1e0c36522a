import { join } from 'node:path';
import { parseConfig } from '../../src/config/index.js';
import type { PollJobResult } from '../../src/queue/poll-worker.js';
import { startWorker, type Worker, type WorkerOptions } from '../../src/root/worker.js';
import { settingsOf } from '../../src/settings.js';
import { captureLog, REDIS_URL, tempDir, uniquePrefix } from './index.js';

export interface Harness {
  worker: Worker;
  log: ReturnType<typeof captureLog>;
  /** Polls these apps through the queue and waits for the results; a failed poll throws. */
  poll(handles: string[]): Promise<PollJobResult[]>;
  /** Waits until none of these deliveries is pending. */
  settle(ids: number[], timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** The real worker (startWorker), on a temporary database and a queue prefix of its own. */
export async function startHarness(
  raw: Record<string, unknown>,
  env: Record<string, string> = {},
  options: Partial<WorkerOptions> = {},
): Promise<Harness> {
  const dir = tempDir();
  const log = captureLog();
  // Port 0: a service's ops server on a free port, never the default another test holds.
  const settings = settingsOf(
    parseConfig(raw, env),
    { REVIEWWATCH_HTTP_PORT: '0', ...env, REDIS_URL },
    'test',
  );
  const worker = await startWorker(
    { ...settings, databasePath: join(dir.dir, 'reviewwatch.db'), queuePrefix: uniquePrefix() },
    { mode: 'once', logger: log.logger, privateQueues: true, stopGraceMs: 5_000, ...options },
  );
  return {
    worker,
    log,
    async poll(handles) {
      const outcomes = await worker.pollNow(handles);
      return outcomes.map((o) => {
        if (!o.result) throw new Error(`poll of ${o.handle} failed: ${o.error}`);
        return o.result;
      });
    },
    async settle(ids, timeoutMs = 15_000) {
      const states = await worker.settle(ids, { timeoutMs });
      if (states.some((s) => s.status === 'pending')) throw new Error('deliveries did not settle');
    },
    async close() {
      await worker.stop();
      dir.cleanup();
    },
  };
}
