import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { ChannelSender } from '../notify/sender.js';
import type { PollingHealth } from '../ops/health.js';
import type { Metrics } from '../ops/metrics.js';
import { enqueueOverdueDigest, syncDigestSchedule } from '../queue/digest-worker.js';
import { syncMaintenanceSchedule } from '../queue/maintenance.js';
import { syncMarketScheduler } from '../queue/market-worker.js';
import { pollPausedKey, SWEEP_JOB, SWEEP_SCHEDULER_ID } from '../queue/names.js';
import { enqueueUndelivered } from '../queue/notify-worker.js';
import { PollSchedule } from '../queue/poll-schedule.js';
import { enqueueReadOn, retryPolicyOf } from '../queue/poll-worker.js';
import { syncReconcileSchedulers } from '../queue/reconcile-worker.js';
import { startUpkeep } from '../queue/upkeep.js';
import type { Settings } from '../settings.js';
import { openGaps } from '../store/gaps.js';
import type { Releasers } from '../util/releasers.js';
import type { Queues } from './queues.js';
import type { Storage } from './storage.js';
import type { Workers } from './workers.js';

/** How often the outbox is checked for messages that never reached the notify queue. */
const SWEEP_EVERY_MS = 60_000;

/** How often a long-running worker checks that Redis still holds its schedules (or every poll interval). */
const UPKEEP_EVERY_MS = 30_000;

/**
 * Each app's poll interval (poll.schedule), kept in its job scheduler. Made before the workers so that
 * it stops after them: a poll finishing during the stop still reschedules its app.
 */
export function planPollSchedule(
  settings: Settings,
  releasers: Releasers,
  parts: { storage: Storage; queues: Queues; metrics: Metrics; health: PollingHealth; logger: Logger },
): PollSchedule {
  const { storage, queues, metrics, health } = parts;
  const schedule = new PollSchedule({
    queue: queues.poll,
    redis: storage.redis,
    store: storage.store,
    config: settings.config,
    retry: retryPolicyOf(settings.config),
    logger: parts.logger,
    metrics,
    onPlan: (plan) => {
      if (plan.entries.length > 0)
        health.setExpectedEvery(Math.min(...plan.entries.map((entry) => entry.plannedMs)));
    },
  });
  metrics.watchSchedulers(queues.poll);
  releasers.add('poll schedule', () => schedule.stop());
  return schedule;
}

/**
 * Everything a long-running worker keeps in Redis, made from the config and SQLite: each app's poll
 * schedule, the outbox sweep, the digest, prune, reconciliation and market schedulers, and what the
 * outbox still owes. Made now, and again whenever Redis comes back without it (upkeep).
 */
export async function startScheduling(
  settings: Settings,
  releasers: Releasers,
  parts: {
    schedule: PollSchedule;
    storage: Storage;
    queues: Queues;
    workers: Workers;
    senders: ReadonlyMap<string, ChannelSender>;
    health: PollingHealth;
    logger: Logger;
    /** After Redis lost the schedules and they were put back (the heartbeat was lost with them). */
    onRestored?: () => void;
  },
): Promise<void> {
  const { config } = settings;
  const { schedule, storage, queues, health, logger } = parts;
  const { store, redis } = storage;
  parts.workers.poll.on('completed', (job, result) => {
    schedule
      .pollFinished(result.handle, result, job.processedOn ?? Date.now())
      .catch((err) => logger.warn(`could not reschedule ${result.handle}: ${errorMessage(err)}`));
  });
  const digestDeps = { config, store, senders: parts.senders, logger, simulated: settings.simulated };
  const reassert = async () => {
    await schedule.sync();
    await queues.notify.upsertJobScheduler(
      SWEEP_SCHEDULER_ID,
      { every: SWEEP_EVERY_MS },
      { name: SWEEP_JOB },
    );
    if (queues.digest) await syncDigestSchedule(queues.digest, digestDeps);
    if (queues.maintenance) await syncMaintenanceSchedule(queues.maintenance, digestDeps);
    if (queues.reconcile) await syncReconcileSchedulers(queues.reconcile);
    // A burst gap left open (by `poll --once`, a stop, a flush) is read on now, not at the next poll.
    const step = `resume-${Date.now()}`;
    for (const gap of openGaps(store.db))
      await enqueueReadOn(queues.poll, gap.handle, step, 0, retryPolicyOf(config));
    if (queues.market) await syncMarketScheduler(queues.market, config);
    // Whatever a crash or a flushed Redis left undelivered goes out now; the sweep catches the rest.
    const undelivered = await enqueueUndelivered(queues.notify, store);
    if (undelivered > 0) logger.info(`re-enqueued ${undelivered} undelivered notification(s)`);
  };
  await redis.del(pollPausedKey(settings.queuePrefix));
  await reassert();
  const upkeep = await startUpkeep({
    redis,
    prefix: settings.queuePrefix,
    everyMs: Math.min(config.poll.every, UPKEEP_EVERY_MS),
    logger,
    reassert,
    // The watchdog logs a stall even when nobody probes /readyz.
    onTick: () => health.verdict(),
    ...(parts.onRestored ? { onRestored: parts.onRestored } : {}),
  });
  // A Redis that comes back may have come back empty: check at once rather than at the next tick.
  storage.onRedisBack(() => void upkeep.check());
  health.watchSchedules({ present: () => upkeep.present(), restore: () => void upkeep.check() });
  schedule.start();
  releasers.add('upkeep', () => upkeep.stop());
  if (queues.digest) await enqueueOverdueDigest(queues.digest, digestDeps);
}
