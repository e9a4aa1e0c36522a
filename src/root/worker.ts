/**
 * The composition root: opens what a run of reviewwatch needs, in named steps, each after what it
 * depends on, and gives everything back in reverse when it stops (or when the start-up fails half-way).
 * `start`, the demo, `poll --once`, `reconcile`, `serve`, the benchmarks and the test harness all run
 * through here, so there is one wiring to trust. The steps live in `src/root/`; the mode says which run
 * (`src/root/mode.ts`).
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { alertPolicyOf } from '../alerts/policy.js';
import type { CatalogClient } from '../catalog/index.js';
import type { Logger } from '../log.js';
import { createSenders } from '../notify/channels.js';
import type { ChannelSender } from '../notify/sender.js';
import { PollingHealth, WorkersHealth } from '../ops/health.js';
import { Metrics } from '../ops/metrics.js';
import type { Heartbeat } from '../queue/heartbeat.js';
import type { MarketJobData } from '../queue/market-worker.js';
import type { NotifyJobData, PollJobData } from '../queue/names.js';
import type { PollSchedule } from '../queue/poll-schedule.js';
import type { RetryPolicy } from '../queue/poll-worker.js';
import type { ReconcileJobData } from '../queue/reconcile-worker.js';
import type { Settings } from '../settings.js';
import type { Simulator } from '../simulator/index.js';
import type { Store } from '../store/db.js';
import { type BackfillProgress, configTaxonomy } from '../store/topic-backfill.js';
import { type Releasers, withReleasers } from '../util/releasers.js';
import { type Catalog, catalogTargetOf, type OnFatal, openCatalog } from './catalog.js';
import { type Controls, lifecycle, marketOnDemand, onDemand, reconcileOnDemand } from './handle.js';
import type { Mode } from './mode.js';
import { openOps } from './ops.js';
import { allQueues, openQueues, type Queues } from './queues.js';
import { planPollSchedule, startScheduling } from './scheduling.js';
import { openStorage, type Storage } from './storage.js';
import { startTopicBackfill } from './topic-backfill.js';
import { createWorkers, type NotifyWorker, type PollWorker, runWorkers, type Workers } from './workers.js';

/** How long a graceful stop waits for jobs in flight before abandoning them (they run again later). */
export const STOP_GRACE_MS = 30_000;

export interface WorkerOptions {
  logger: Logger;
  mode: Exclude<Mode, 'serve'>;
  /**
   * The queue prefix is this run's alone (the demo's, a test's): every key under it is removed before it
   * starts and when it stops.
   */
  privateQueues?: boolean;
  /**
   * The catalog rejected the key or the credits ran out: nothing will work until someone acts. By
   * default polling pauses and the error is logged once.
   */
  onFatal?: OnFatal;
  /** How long `stop()` lets jobs in flight finish; `STOP_GRACE_MS` by default. */
  stopGraceMs?: number;
}

/**
 * A started worker, as its callers use it: its settings and store to report from, polls and
 * reconciliations on demand, waiting on deliveries, stopping. The parts it was wired from stay inside;
 * tests reach them through `partsOf`.
 */
export interface Worker extends Controls {
  readonly settings: Settings;
  readonly store: Store;
  /** Where the ops server (and the inbox) listens, in `service` mode with `http.enabled`. */
  readonly opsUrl: string | undefined;
  /** Catalog API requests this worker sent, answered or not (429s, errors and timeouts included). */
  requests(): number;
}

/** What a worker was wired from: for tests and benchmarks that look inside, never for the commands. */
export interface WorkerParts {
  readonly mode: Exclude<Mode, 'serve'>;
  /** The start's backfill of stored reviews' topics (service mode), resolved when it is done. */
  readonly topicsBackfill: Promise<BackfillProgress> | undefined;
  readonly redis: Redis;
  readonly client: CatalogClient;
  readonly senders: ReadonlyMap<string, ChannelSender>;
  readonly metrics: Metrics;
  readonly pollQueue: Queue<PollJobData>;
  readonly notifyQueue: Queue<NotifyJobData>;
  readonly pollWorker: PollWorker;
  readonly notifyWorker: NotifyWorker;
  readonly retry: RetryPolicy;
  /** The digest, prune and reconciliation queues, in `service` mode. */
  readonly digestQueue: Queue | undefined;
  readonly maintenanceQueue: Queue | undefined;
  readonly reconcileQueue: Queue<ReconcileJobData> | undefined;
  /** Category snapshots, listing and developer reads, in `service` mode. */
  readonly marketQueue: Queue<MarketJobData> | undefined;
  /** The polling watchdog, in `service` mode. */
  readonly health: PollingHealth | undefined;
  /** Set when `catalog.simulator: true`: the built-in simulator this worker polls. */
  readonly simulator: Simulator | undefined;
  /** Each app's poll interval, in `service` mode. */
  readonly schedule: PollSchedule | undefined;
}

const PARTS = new WeakMap<Worker, WorkerParts>();

/** The parts a worker was wired from. Test-only: `test/layering.test.ts` keeps it out of src/. */
export function partsOf(worker: Worker): WorkerParts {
  const parts = PARTS.get(worker);
  if (!parts) throw new Error('partsOf: not a worker started by startWorker');
  return parts;
}

/** A service's start gives stored reviews their topics in the background; a one-shot run does not wait. */
function backfillInService(
  mode: Exclude<Mode, 'serve'>,
  settings: Settings,
  deps: { store: Store; releasers: Releasers; logger: Logger },
): Promise<BackfillProgress> | undefined {
  if (mode !== 'service') return undefined;
  return startTopicBackfill(deps.store, configTaxonomy(settings.config), deps);
}

/** `serve`: the inbox and the ops server over the store and Redis, without polling. */
export interface InboxServer {
  url: string;
  store: Store;
  /** Releases everything, last opened first; safe to call twice. */
  stop(): Promise<void>;
}

export interface ServeOptions {
  mode: 'serve';
  logger: Logger;
  /** Where the inbox listens (`serve --host --port`). */
  listen: { host: string; port: number };
}

/** Runs reviewwatch in a mode: a worker (`service`, `once`) or the inbox alone (`serve`). */
export function startWorker(settings: Settings, options: ServeOptions): Promise<InboxServer>;
export function startWorker(settings: Settings, options: WorkerOptions): Promise<Worker>;
export function startWorker(
  settings: Settings,
  options: ServeOptions | WorkerOptions,
): Promise<InboxServer | Worker> {
  return options.mode === 'serve' ? serve(settings, options) : work(settings, options);
}

async function work(settings: Settings, options: WorkerOptions): Promise<Worker> {
  const { logger, mode } = options;
  // Before anything opens: a missing key is the operator's to fix, and never a reason to invent data.
  const target = catalogTargetOf(settings);
  return withReleasers(async (releasers) => {
    const senders = openSenders(settings, releasers);
    const storage = await openStorage(settings, releasers, logger);
    const metrics = new Metrics();
    const catalog = await openCatalog(settings, releasers, { storage, metrics, logger, target });
    const queues = await openQueues(settings, releasers, {
      storage,
      mode,
      privateQueues: options.privateQueues ?? false,
    });
    // The watchdog of a long-running worker: /readyz and `status` say when polling stopped.
    const health =
      mode === 'service'
        ? new PollingHealth({ expectedEveryMs: settings.config.poll.every, logger })
        : undefined;
    const ops =
      mode === 'service'
        ? await openOps(settings, releasers, {
            storage,
            queues: queues.all,
            metrics,
            health: health && { verdict: () => health.readiness() },
            logger,
          })
        : undefined;
    const scheduling = health
      ? {
          health,
          schedule: planPollSchedule(settings, releasers, { storage, queues, metrics, health, logger }),
        }
      : undefined;
    const workers = createWorkers(settings, releasers, {
      storage,
      catalog,
      queues,
      senders,
      metrics,
      health,
      logger,
      mode,
      onFatal: options.onFatal,
      graceMs: options.stopGraceMs ?? STOP_GRACE_MS,
      marketStretch: () => scheduling?.schedule.plan?.marketStretch ?? 1,
    });
    // A flush takes the heartbeat with the schedules: beat again once they are back, so that `status` does
    // not say nothing polls until the next beat. The heartbeat starts after the schedules, hence late-bound.
    let heartbeat: Heartbeat | undefined;
    if (scheduling) {
      await startScheduling(settings, releasers, {
        ...scheduling,
        storage,
        queues,
        workers,
        senders,
        logger,
        onRestored: () => void heartbeat?.beat(),
      });
    }
    heartbeat = await runWorkers(settings, releasers, { workers, storage, mode });
    const topicsBackfill = backfillInService(mode, settings, { store: storage.store, releasers, logger });
    const handle: Worker = {
      settings,
      store: storage.store,
      opsUrl: ops?.url,
      requests: catalog.requests,
      ...controlsOf(settings, releasers, { storage, catalog, queues, workers, logger }),
    };
    PARTS.set(handle, {
      mode,
      redis: storage.redis,
      client: catalog.client,
      senders,
      metrics,
      pollQueue: queues.poll,
      notifyQueue: queues.notify,
      pollWorker: workers.poll,
      notifyWorker: workers.notify,
      retry: workers.retry,
      digestQueue: queues.digest,
      maintenanceQueue: queues.maintenance,
      reconcileQueue: queues.reconcile,
      marketQueue: queues.market,
      health,
      simulator: catalog.simulator,
      schedule: scheduling?.schedule,
      topicsBackfill,
    });
    return handle;
  });
}

/** What commands do with a worker through its parts: polls, reconciliations and market reads now; stop. */
function controlsOf(
  settings: Settings,
  releasers: Releasers,
  parts: { storage: Storage; catalog: Catalog; queues: Queues; workers: Workers; logger: Logger },
): Controls {
  const { storage, catalog, queues, workers, logger } = parts;
  const { client } = catalog;
  return {
    ...onDemand(releasers, { queue: queues.poll, retry: workers.retry, store: storage.store }),
    ...reconcileOnDemand({
      deps: { client, store: storage.store, logger, alerts: alertPolicyOf(settings.config) },
      redis: storage.redis,
      prefix: settings.queuePrefix,
      pages: settings.config.poll.reconcilePages,
      notifyQueue: queues.notify,
    }),
    ...marketOnDemand({
      deps: { client, store: storage.store, logger, config: settings.config },
      notifyQueue: queues.notify,
    }),
    ...lifecycle(releasers, logger, workers.force),
  };
}

/**
 * `serve`: the inbox, health, metrics and Bull Board without polling, against the same database and
 * Redis as a worker on this host (SQLite must be on a local disk). It needs no API key: it reads what the
 * workers stored.
 */
async function serve(settings: Settings, options: ServeOptions): Promise<InboxServer> {
  const { logger, listen } = options;
  return withReleasers(async (releasers) => {
    const storage = await openStorage(settings, releasers, logger);
    const queues = allQueues(settings, releasers, storage);
    const metrics = new Metrics();
    const server = await openOps(settings, releasers, {
      storage,
      queues,
      metrics,
      // It polls nothing: its /readyz says whether some `start` does.
      health: new WorkersHealth({ redis: storage.redis, prefix: settings.queuePrefix, logger }),
      logger,
      listen,
    });
    const { stop } = lifecycle(releasers, logger);
    return { url: server?.url ?? '', store: storage.store, stop: () => stop().catch(() => undefined) };
  });
}

/** One sender per configured channel; the SMTP pools close last of all. */
function openSenders(settings: Settings, releasers: Releasers): ReadonlyMap<string, ChannelSender> {
  const senders = createSenders(settings.config, settings.smtpUrl, { simulated: settings.simulated });
  releasers.add('channel senders', () => {
    for (const sender of senders.values()) sender.close?.();
  });
  return senders;
}
