import { Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { connectRedis } from '../../src/queue/connection.js';
import { POLL_QUEUE, type PollJobData } from '../../src/queue/names.js';
import { REDIS_URL, uniquePrefix } from './index.js';

export interface QueueFixture {
  redis: Redis;
  prefix: string;
  queue: Queue<PollJobData>;
  events: QueueEvents;
  close(): Promise<void>;
}

/** A poll queue under a prefix of its own, obliterated afterwards. */
export async function pollQueueFixture(): Promise<QueueFixture> {
  const redis = await connectRedis(REDIS_URL);
  const prefix = uniquePrefix();
  const queue = new Queue<PollJobData>(POLL_QUEUE, { connection: redis, prefix });
  const events = new QueueEvents(POLL_QUEUE, { connection: redis, prefix });
  await events.waitUntilReady();
  return {
    redis,
    prefix,
    queue,
    events,
    async close() {
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    },
  };
}

/** Waits until no job of `queue` is waiting, active or delayed: what was enqueued has run. */
export async function drained(queue: Queue, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    if (Object.values(counts).every((n) => n === 0)) return;
    if (Date.now() > deadline)
      throw new Error(`queue ${queue.name} did not drain: ${JSON.stringify(counts)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
