import type { Alert } from '../../alerts/types.js';
import type { Config } from '../../config/index.js';
import { errorMessage } from '../../errors.js';
import {
  nothingPollingReason,
  readWorkers,
  type SeenWorker,
  scheduledPolling,
} from '../../queue/heartbeat.js';
import { handleOfSchedulerId, POLL_QUEUE, pollPausedKey } from '../../queue/names.js';
import type { CommandResources } from '../../root/resources.js';
import {
  appWeight,
  capOf,
  competitorDevelopers,
  type MarketCost,
  marketCost,
  type Plan,
  type PlanReason,
  type Projection,
  planFromStore,
  planSchedule,
  reservedPerDay,
  type SchedulePolicy,
  scheduleSettings,
} from '../../schedule/index.js';
import type { StoreDb } from '../../store/db.js';
import { categoryRows } from '../../store/market/categories.js';
import { type MarketRunKind, marketRequestsSince } from '../../store/market/runs.js';
import { appsOutsideCategories, type OutsideCategories } from '../../store/market/snapshots.js';
import {
  type DeliveryWithAlert,
  failedDeliveries,
  type OutboxCounts,
  outboxCounts,
} from '../../store/outbox.js';
import { reconcileCost } from '../../store/reconcile.js';
import { type AppStatus, appStatuses } from '../../store/status.js';
import { configTaxonomy, reviewsWithoutTopics } from '../../store/topic-backfill.js';

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
  /** Whether anything polls, from the processes' heartbeats in Redis (queue/heartbeat.ts). */
  polling: PollingStatus;
  queue: Record<string, number> | null;
  queueError: string | null;
  notifications: OutboxCounts[];
  reconciliation: { runs: number; requests: number; period: '24h' };
  /** The market watch: its requests a day by kind, and the watched apps in no tracked category. */
  market: MarketStatus;
  failed: Array<DeliveryWithAlert<Alert>>;
  /** The config's taxonomy version, and the stored reviews whose topics are not computed under it yet. */
  topics: { version: string; pending: number };
}

export interface PollingStatus {
  /** Whether a `start` polls on schedule; null when Redis did not answer. */
  scheduled: boolean | null;
  /** Why not, when not: which `start` ran last and what became of it. */
  reason: string | null;
  /** The processes that took poll jobs within the last day, the latest first. */
  workers: Array<Pick<SeenWorker, 'id' | 'mode' | 'state' | 'sinceBeatMs'>>;
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
  let workers: SeenWorker[] | null = null;
  const schedulers = new Map<string, { every: number | null; next: number | null }>();
  try {
    const redis = await resources.redis();
    const pollQueue = await resources.queue(POLL_QUEUE);
    queue = await pollQueue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
    for (const s of await pollQueue.getJobSchedulers(0, -1)) {
      schedulers.set(handleOfSchedulerId(s.key) ?? s.key, { every: s.every ?? null, next: s.next ?? null });
    }
    paused = await redis.get(pollPausedKey(settings.queuePrefix));
    workers = await readWorkers(redis, settings.queuePrefix);
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
    polling: pollingStatus(workers, settings.queuePrefix),
    queue,
    queueError,
    notifications,
    reconciliation: { ...reconciliation, period: '24h' },
    market: marketStatus(config, store.db, now),
    failed,
    topics: topicsStatus(store.db, config),
  };
}

function pollingStatus(workers: SeenWorker[] | null, prefix: string): PollingStatus {
  if (workers === null) return { scheduled: null, reason: null, workers: [] };
  const scheduled = scheduledPolling(workers);
  return {
    scheduled,
    reason: scheduled ? null : nothingPollingReason(workers, prefix),
    workers: workers.map(({ id, mode, state, sinceBeatMs }) => ({ id, mode, state, sinceBeatMs })),
  };
}

function topicsStatus(db: StoreDb, config: Config): StatusReport['topics'] {
  const { version } = configTaxonomy(config);
  return { version, pending: reviewsWithoutTopics(db, version) };
}

// ---------------------------------------------------------------------------------------------------------
// The market: what it costs and covers, for `status` and `check-config`.

export interface MarketStatus {
  /** The tracked categories (config `categories`). */
  categories: string[];
  /** At the configured periods (before any stretch a budget makes). */
  planned: MarketCost;
  /** Requests the market reads spent in the last 24 hours, by kind; null without a store. */
  last24h: Record<MarketRunKind, number> | null;
  outside: OutsideCategories;
  /** Tracked categories the API answered 404 for, and since when. */
  unavailable: Array<{ handle: string; since: Date; reason: string | null }>;
}

export function marketStatus(config: Config, db: StoreDb | undefined, now: number): MarketStatus {
  const apps = config.apps.map((a) => a.handle);
  const categories = config.categories.map((c) => c.handle);
  if (db === undefined) {
    return {
      categories,
      planned: marketCost(config),
      last24h: null,
      outside: {
        apps: apps.map((handle) => ({ handle, listingCategories: null })),
        unsnapshotted: categories,
      },
      unavailable: [],
    };
  }
  return {
    categories,
    planned: marketCost(config, competitorDevelopers(db, config)),
    last24h: marketRequestsSince(db, new Date(now - 86_400_000)),
    outside: appsOutsideCategories(db, apps, categories),
    unavailable: categoryRows(db, categories).flatMap((row) =>
      row.unavailableSince
        ? [{ handle: row.handle, since: row.unavailableSince, reason: row.unavailableReason }]
        : [],
    ),
  };
}

/** "app-a (its listing names Store design), app-b (unknown until the first listing read)". */
export function outsideLine(report: MarketStatus): string | undefined {
  if (report.categories.length === 0) return undefined;
  const { apps, unsnapshotted } = report.outside;
  if (unsnapshotted.length === report.categories.length) {
    return `watched apps outside the tracked categories: unknown until the first snapshot of ${unsnapshotted.join(', ')}`;
  }
  if (apps.length === 0) return undefined;
  const each = apps.map((a) =>
    a.listingCategories === null
      ? `${a.handle} (its categories unknown until the first listing read)`
      : a.listingCategories.length === 0
        ? `${a.handle} (its listing names no category)`
        : `${a.handle} (its listing names ${a.listingCategories.join(', ')})`,
  );
  const pending = unsnapshotted.length > 0 ? `; ${unsnapshotted.join(', ')} not snapshotted yet` : '';
  return `watched apps in no tracked category: ${each.join('; ')}${pending}`;
}

/** "category pages 8, listings 2, developers 1 (at most)" */
export function costParts(cost: MarketCost): string {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  return `category pages ${n(cost.categoryPages)}, listings ${n(cost.listings)}, developers ${n(cost.developers)}${cost.developersKnown ? '' : ' (at most)'}`;
}

/**
 * What a config will cost a day before it is started, everything counted against
 * `catalog.dailyRequestBudget`: the polls as the schedule plans them (from the store's history when there
 * is one, else every app at `poll.every`, as a new app starts), then the market reads.
 */
export function configCost(
  config: Config,
  db: StoreDb | undefined,
  now: number,
): { plan: Plan; market: MarketStatus } {
  if (db !== undefined)
    return { plan: planFromStore(db, config, { now }), market: marketStatus(config, db, now) };
  const cold = { ratePerDay: 0, longRatePerDay: 0, cold: true, observedDays: 0, arrivals: 0 };
  const demands = config.apps.map((app) => ({
    handle: app.handle,
    role: app.role,
    weight: appWeight(app),
    rate: cold,
    lastIncidentAt: null,
    ...capOf(config, app),
  }));
  const apps = config.apps.length;
  const reserved = reservedPerDay({
    apps,
    pendingBaselines: apps,
    baselinePages: config.poll.baselinePages,
    reconcileEveryMs: config.poll.reconcileEvery,
    reconcilePages: config.poll.reconcilePages,
  });
  const market = marketStatus(config, undefined, now);
  return {
    plan: planSchedule(demands, scheduleSettings(config, reserved, market.planned.total), now),
    market,
  };
}
