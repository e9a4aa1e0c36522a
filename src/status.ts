import type { Alert } from './alerts/types.js';
import { errorMessage } from './errors.js';
import { handleOfSchedulerId, POLL_QUEUE, pollPausedKey } from './queue/names.js';
import type { CommandResources } from './resources.js';
import { type PlanReason, type Projection, planFromStore, type SchedulePolicy } from './schedule/index.js';
import { type DeliveryWithAlert, failedDeliveries, type OutboxCounts, outboxCounts } from './store/outbox.js';
import { reconcileCost } from './store/reconcile.js';
import { type AppStatus, appStatuses } from './store/status.js';

export interface AppReport extends AppStatus {
  /** The interval its job scheduler has in Redis; null when it has none or Redis did not answer. */
  intervalMs: number | null;
  /** When its next poll is due (epoch ms); null when paused, unscheduled or unknown. */
  nextPollAt: number | null;
  scheduled: boolean;
  /** The interval its pace calls for (poll.schedule), and why it has the one in force ('tightened'). */
  plannedIntervalMs: number;
  intervalReason: PlanReason;
  /** Its estimated new reviews a day, from the stored review dates. */
  ratePerDay: number;
}

export interface StatusReport {
  apps: AppReport[];
  schedule: {
    policy: SchedulePolicy;
    /** Requests a day the plan is projected to spend, by what spends them. */
    projected: Projection;
    budget: number | null;
    warnings: string[];
  };
  paused: string | null;
  queue: Record<string, number> | null;
  queueError: string | null;
  notifications: OutboxCounts[];
  reconciliation: { runs: number; requests: number; period: '24h' };
  failed: Array<DeliveryWithAlert<Alert>>;
}

/**
 * Everything `status` shows, read from the store and Redis. The plan is made afresh from the store as the
 * worker makes it; the intervals and next polls are the ones in force in Redis. A Redis that does not
 * answer leaves those unknown rather than failing the report.
 */
export async function collectStatus(resources: CommandResources, now: number): Promise<StatusReport> {
  const { settings, store } = resources;
  const { config } = settings;
  const handles = config.apps.map((app) => app.handle);
  const apps = appStatuses(store.db, handles);
  const plan = planFromStore(store.db, config, { now });
  const planned = new Map(plan.entries.map((entry) => [entry.handle, entry]));
  const notifications = outboxCounts(store.db);
  const failed = failedDeliveries<Alert>(store.db);
  // What the deep checks cost: the last day's runs and their requests, failed ones included.
  const reconciliation = reconcileCost(store.db, new Date(now - 86_400_000));

  let queue: Record<string, number> | null = null;
  let queueError: string | null = null;
  let paused: string | null = null;
  const schedulers = new Map<string, { every: number | null; next: number | null }>();
  try {
    const redis = await resources.redis();
    const pollQueue = await resources.queue(POLL_QUEUE);
    queue = await pollQueue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
    for (const s of await pollQueue.getJobSchedulers(0, -1)) {
      schedulers.set(handleOfSchedulerId(s.key) ?? s.key, { every: s.every ?? null, next: s.next ?? null });
    }
    paused = await redis.get(pollPausedKey(settings.queuePrefix));
  } catch (err) {
    queueError = errorMessage(err);
  }

  return {
    apps: apps.map((app): AppReport => {
      const entry = planned.get(app.handle);
      const scheduler = schedulers.get(app.handle);
      return {
        ...app,
        intervalMs: scheduler?.every ?? null,
        nextPollAt: paused ? null : (scheduler?.next ?? null),
        scheduled: scheduler !== undefined,
        plannedIntervalMs: entry?.plannedMs ?? config.poll.every,
        intervalReason: entry?.reason ?? 'fixed',
        ratePerDay: entry?.ratePerDay ?? 0,
      };
    }),
    schedule: {
      policy: plan.policy,
      projected: plan.projected,
      budget: plan.budget,
      warnings: plan.warnings,
    },
    paused,
    queue,
    queueError,
    notifications,
    reconciliation: { ...reconciliation, period: '24h' },
    failed,
  };
}
