import { Queue } from 'bullmq';
import { removePrefixedKeys } from '../queue/connection.js';
import { MAINTENANCE_QUEUE } from '../queue/maintenance.js';
import { MARKET_QUEUE, type MarketJobData } from '../queue/market-worker.js';
import {
  DIGEST_QUEUE,
  NOTIFY_QUEUE,
  type NotifyJobData,
  ONCE_POLL_QUEUE,
  POLL_QUEUE,
  type PollJobData,
} from '../queue/names.js';
import { claimPrefix } from '../queue/prefix-claim.js';
import { RECONCILE_QUEUE, type ReconcileJobData } from '../queue/reconcile-worker.js';
import type { Settings } from '../settings.js';
import type { Releasers } from '../util/releasers.js';
import type { Mode } from './mode.js';
import type { Storage } from './storage.js';

export interface Queues {
  poll: Queue<PollJobData>;
  notify: Queue<NotifyJobData>;
  /** The weekly digest, the daily prune, the reconciliations and the market run where the schedules do (`service`). */
  digest: Queue | undefined;
  maintenance: Queue | undefined;
  reconcile: Queue<ReconcileJobData> | undefined;
  /** Category snapshots, listing and developer reads (`service`). */
  market: Queue<MarketJobData> | undefined;
  /** Every queue opened, for Bull Board and the queue depths of /metrics. */
  all: Queue[];
}

/**
 * The queues of a mode. A one-shot run polls on a queue of its own (ONCE_POLL_QUEUE says why). With
 * `privateQueues` the prefix is this run's alone (the demo's, a test's): every key under it is removed
 * before it starts and when it stops.
 */
export async function openQueues(
  settings: Settings,
  releasers: Releasers,
  parts: { storage: Storage; mode: Exclude<Mode, 'serve'>; privateQueues: boolean },
): Promise<Queues> {
  const { redis: connection, reportError } = parts.storage;
  const prefix = settings.queuePrefix;
  if (parts.privateQueues) {
    // Before anything of the prefix's is removed: another process's keys are not this one's to wipe.
    const claim = await claimPrefix(connection, prefix);
    releasers.add('queue prefix claim', () => claim.release());
  }
  const service = parts.mode === 'service';
  const open = <Data>(name: string) => new Queue<Data>(name, { connection, prefix });
  const queues: Omit<Queues, 'all'> = {
    poll: open<PollJobData>(service ? POLL_QUEUE : ONCE_POLL_QUEUE),
    notify: open<NotifyJobData>(NOTIFY_QUEUE),
    digest: service ? open(DIGEST_QUEUE) : undefined,
    maintenance: service ? open(MAINTENANCE_QUEUE) : undefined,
    reconcile: service ? open<ReconcileJobData>(RECONCILE_QUEUE) : undefined,
    market: service ? open<MarketJobData>(MARKET_QUEUE) : undefined,
  };
  const all = Object.values(queues).filter((q): q is Queue => q !== undefined);
  for (const queue of all) queue.on('error', reportError(`${queue.name} queue`));
  releasers.add('queues', async () => {
    for (const queue of all) await queue.close();
    // Last of what used Redis, so nothing writes a key after this (the rate gate, the limiter).
    if (parts.privateQueues) await removePrefixedKeys(connection, prefix);
  });
  if (parts.privateQueues) await removePrefixedKeys(connection, prefix);
  return { ...queues, all };
}

/** Every queue, read-only: what `serve` shows in Bull Board and counts in /metrics; it adds no job. */
export function allQueues(settings: Settings, releasers: Releasers, storage: Storage): Queue[] {
  const names = [
    POLL_QUEUE,
    ONCE_POLL_QUEUE,
    NOTIFY_QUEUE,
    DIGEST_QUEUE,
    MAINTENANCE_QUEUE,
    RECONCILE_QUEUE,
    MARKET_QUEUE,
  ];
  const queues = names.map(
    (name) => new Queue(name, { connection: storage.redis, prefix: settings.queuePrefix }),
  );
  releasers.add('queues', async () => {
    for (const queue of queues) await queue.close();
  });
  return queues;
}
