import { join } from 'node:path';
import { QueueEvents } from 'bullmq';
import { parseConfig } from '../../src/config/index.js';
import { connectRedis } from '../../src/queue/connection.js';
import { POLL_JOB, POLL_QUEUE } from '../../src/queue/names.js';
import { type PollJobResult, pollJobOptions } from '../../src/queue/poll-worker.js';
import { createServices, type Services } from '../../src/queue/services.js';
import { openRuntime, type Runtime } from '../../src/runtime.js';
import { deliveryStates } from '../../src/store/outbox.js';
import { captureLog, REDIS_URL, tempDir, uniquePrefix } from './index.js';

export interface Harness {
  rt: Runtime;
  services: Services;
  log: ReturnType<typeof captureLog>;
  /** Polls these apps through the queue and waits for the results. */
  poll(handles: string[]): Promise<PollJobResult[]>;
  /** Waits until none of these deliveries is pending. */
  settle(ids: number[], timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** The real runtime and workers, on a temporary database and a queue prefix of its own. */
export async function startHarness(
  raw: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<Harness> {
  const dir = tempDir();
  const log = captureLog();
  const config = parseConfig(raw, env);
  const rt = await openRuntime(
    {
      configPath: 'test',
      config,
      redisUrl: REDIS_URL,
      redisUrlGiven: true,
      databasePath: join(dir.dir, 'reviewwatch.db'),
      queuePrefix: uniquePrefix(),
      smtpUrl: env.SMTP_URL,
    },
    log.logger,
  );
  const services = createServices(rt);
  const events = new QueueEvents(POLL_QUEUE, { connection: rt.redis, prefix: rt.queuePrefix });
  await events.waitUntilReady();
  services.run();
  let run = 0;
  return {
    rt,
    services,
    log,
    async poll(handles) {
      run++;
      const jobs = await services.pollQueue.addBulk(
        handles.map((handle) => ({
          name: POLL_JOB,
          data: { handle },
          opts: { ...pollJobOptions(services.retry), jobId: `t${run}-${handle}` },
        })),
      );
      return Promise.all(jobs.map((job) => job.waitUntilFinished(events, 20_000) as Promise<PollJobResult>));
    },
    async settle(ids, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (deliveryStates(rt.store.db, ids).some((d) => d.status === 'pending')) {
        if (Date.now() > deadline) throw new Error('deliveries did not settle');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      await services.close(5_000);
      await events.close();
      const redis = await connectRedis(REDIS_URL);
      const keys = await redis.keys(`${rt.queuePrefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
      await rt.close();
      dir.cleanup();
    },
  };
}
