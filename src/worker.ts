import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { type Worker as BullWorker, Job, Queue, QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { OutboxMessage } from './alerts/messages.js';
import { alertPolicyOf } from './alerts/policy.js';
import { CatalogClient, type CatalogError } from './catalog/index.js';
import { ExitCode, errorMessage, ReviewwatchError } from './errors.js';
import type { Logger } from './log.js';
import { createSenders } from './notify/channels.js';
import type { ChannelSender } from './notify/sender.js';
import { PollingHealth } from './ops/health.js';
import { Metrics } from './ops/metrics.js';
import { type OpsServer, startOpsServer } from './ops/server.js';
import { connectRedis, removePrefixedKeys, watchConnection } from './queue/connection.js';
import { createDigestWorker, enqueueOverdueDigest, syncDigestSchedule } from './queue/digest-worker.js';
import { resolveRedis } from './queue/local-redis.js';
import { createMaintenanceWorker, MAINTENANCE_QUEUE, syncMaintenanceSchedule } from './queue/maintenance.js';
import {
  DIGEST_QUEUE,
  NOTIFY_QUEUE,
  type NotifyJobData,
  ONCE_POLL_QUEUE,
  POLL_JOB,
  POLL_QUEUE,
  type PollJobData,
  pollPausedKey,
  SWEEP_JOB,
  SWEEP_SCHEDULER_ID,
} from './queue/names.js';
import {
  createNotifyWorker,
  enqueueMessages,
  enqueueUndelivered,
  type NotifyResult,
} from './queue/notify-worker.js';
import { PollSchedule } from './queue/poll-schedule.js';
import {
  createPollWorker,
  GAP_FOLLOW_UP_MS,
  POLL_LOCK_TTL_MS,
  type PollJobResult,
  pollJobOptions,
  type RetryPolicy,
} from './queue/poll-worker.js';
import { RedisRequestGate } from './queue/rate-gate.js';
import {
  createReconcileWorker,
  RECONCILE_QUEUE,
  type ReconcileJobData,
  syncReconcileSchedulers,
} from './queue/reconcile-worker.js';
import { startUpkeep, type Upkeep } from './queue/upkeep.js';
import type { Settings } from './settings.js';
import { type Simulator, startSimulator } from './simulator/index.js';
import { openStore, type Store } from './store/db.js';
import { type DeliveryState, deliveryStates } from './store/outbox.js';
import { type Releasers, withReleasers } from './util/releasers.js';
import { TimeoutError, withTimeout } from './util/timeout.js';
import { createWeb } from './web/router.js';

/** How long a graceful stop waits for jobs in flight before abandoning them (they run again later). */
export const STOP_GRACE_MS = 30_000;

/** How often the outbox is checked for messages that never reached the notify queue. */
const SWEEP_EVERY_MS = 60_000;

/** How often a long-running worker checks that Redis still holds its schedules (or every poll interval). */
const UPKEEP_EVERY_MS = 30_000;

/** A one-shot job stops waiting for another poll of its app this long before its run's deadline, to say so. */
const LOCK_WAIT_MARGIN_MS = 1_000;

/** How often `catalog.simulator: true` publishes a review, so a first run shows the flow working. */
const EMBEDDED_ARRIVAL_MS = 20_000;

export interface WorkerOptions {
  logger: Logger;
  /**
   * A long-running worker (`start`, the demo): poll schedules, the outbox sweep and re-enqueue. Off for
   * one-shot runs (`poll --once`, tests), which add their own jobs with `pollNow`.
   */
  schedule?: boolean;
  /** The weekly digest's scheduler and worker. Off unless asked. */
  digest?: boolean;
  /** The daily prune (retention.*) as a scheduled job. Off unless asked. */
  maintenance?: boolean;
  /** The ops HTTP server (health, metrics, Bull Board), when `http.enabled`. Off unless asked. */
  http?: boolean;
  /**
   * The queue prefix is this worker's alone (the demo's, a test's): every key under it is removed before
   * it starts and when it stops.
   */
  privateQueues?: boolean;
  /**
   * The catalog rejected the key or the credits ran out: nothing will work until someone acts. By
   * default polling pauses and the error is logged once.
   */
  onFatal?: (err: CatalogError) => void;
  /** How long `stop()` lets jobs in flight finish; `STOP_GRACE_MS` by default. */
  stopGraceMs?: number;
}

export interface PollNowResult {
  handle: string;
  result?: PollJobResult;
  error?: string;
}

export interface Worker {
  readonly settings: Settings;
  readonly logger: Logger;
  readonly store: Store;
  readonly redis: Redis;
  readonly client: CatalogClient;
  readonly senders: ReadonlyMap<string, ChannelSender>;
  readonly metrics: Metrics;
  readonly pollQueue: Queue<PollJobData>;
  readonly notifyQueue: Queue<NotifyJobData>;
  readonly pollWorker: BullWorker<PollJobData, PollJobResult>;
  readonly notifyWorker: BullWorker<NotifyJobData, NotifyResult>;
  readonly retry: RetryPolicy;
  /** Set with `http: true` (and `http.enabled`). */
  readonly ops: OpsServer | undefined;
  /** Set with `digest: true`. */
  readonly digestQueue: Queue | undefined;
  /** The polling watchdog of a long-running worker (`schedule: true`). */
  readonly health: PollingHealth | undefined;
  /** Set when `catalog.simulator: true`: the built-in simulator this worker polls. */
  readonly simulator: Simulator | undefined;
  /** Each app's poll interval, for a long-running worker (`schedule: true`). */
  readonly schedule: PollSchedule | undefined;
  /**
   * Polls these apps now through the queue and the workers; `onResult` as each one finishes. With
   * `timeoutMs`, an app whose poll (retries included) has not finished by then is reported as failed with
   * its last error, and its job is taken off the queue where it can be.
   */
  pollNow(
    handles: string[],
    options?: { onResult?: (r: PollNowResult) => void; timeoutMs?: number },
  ): Promise<PollNowResult[]>;
  /** Catalog API requests this worker sent, answered or not (429s, errors and timeouts included). */
  requests(): number;
  /** Waits until none of these deliveries is pending, or `timeoutMs` passes; returns their states. */
  settle(
    ids: number[],
    options?: { timeoutMs?: number; onProgress?: (settled: number) => void },
  ): Promise<DeliveryState[]>;
  /** Lets the jobs in flight finish (up to the grace), then releases everything, last opened first. */
  stop(): Promise<void>;
  /** Releases everything now: jobs in flight are abandoned and run again on the next start. */
  kill(): Promise<void>;
  /** Settles when everything is released, however the worker stopped. Never rejects. */
  readonly done: Promise<void>;
}

/**
 * The one composition root: opens every resource a worker needs, in order, and gives each back in
 * reverse when it stops (or when the start-up fails half-way). `start`, the demo, `poll --once`, the
 * benchmarks and the test harness all run through here, so there is one wiring to trust.
 */
export async function startWorker(settings: Settings, options: WorkerOptions): Promise<Worker> {
  const { logger } = options;
  const { config } = settings;
  // Before anything opens: a missing key is the operator's to fix, and never a reason to invent data.
  const catalogTarget = catalogTargetOf(settings);
  const graceMs = options.stopGraceMs ?? STOP_GRACE_MS;
  let forced = false;

  return withReleasers(async (releasers) => {
    const senders = createSenders(config, settings.smtpUrl, { simulated: settings.simulated });
    releasers.add('channel senders', () => {
      for (const sender of senders.values()) sender.close?.();
    });
    const { store, redis } = await openStorage(settings, releasers, logger);
    let upkeep: Upkeep | undefined;
    // A Redis that comes back may have come back empty: check at once rather than at the next tick.
    const connectionState = watchConnection(redis, logger, () => void upkeep?.check());
    releasers.add('Redis connection watch', () => connectionState.stop());
    /** While Redis is down every connection reports each reconnect attempt: the watcher said it once. */
    const reportError = (what: string) => (err: Error) => {
      if (connectionState.down()) logger.debug({ err: err.message }, `${what} error while Redis is down`);
      else logger.error({ err: err.message }, `${what} error`);
    };

    let simulator: Simulator | undefined;
    let target = catalogTarget;
    if (target === 'simulator') {
      const handles = config.apps.map((app) => app.handle);
      const started = await startSimulator({
        handles,
        appCount: 0,
        arrival: { everyMs: EMBEDDED_ARRIVAL_MS, handles },
      });
      simulator = started;
      releasers.add('simulator', () => started.close());
      target = { baseUrl: started.url, apiKey: 'simulator' };
      logger.warn(
        `catalog.simulator is true: polling the built-in Catalog API simulator at ${started.url} (simulated data; a new review every ${EMBEDDED_ARRIVAL_MS / 1000}s)`,
      );
    }
    const metrics = new Metrics();
    let requests = 0;
    const client = new CatalogClient({
      ...target,
      timeoutMs: config.catalog.timeout,
      gate: new RedisRequestGate(redis, {
        prefix: settings.queuePrefix,
        maxRequestsPerSecond: config.catalog.maxRequestsPerSecond,
      }),
      logger,
      onResponse: (info) => {
        requests++;
        metrics.onCatalogResponse(info);
      },
    });
    releasers.add('catalog client', () => client.close());

    const connection = redis;
    const prefix = settings.queuePrefix;
    // A one-shot run polls what it was asked on a queue of its own (ONCE_POLL_QUEUE says why).
    const pollQueueName = options.schedule ? POLL_QUEUE : ONCE_POLL_QUEUE;
    const pollQueue = new Queue<PollJobData>(pollQueueName, { connection, prefix });
    const notifyQueue = new Queue<NotifyJobData>(NOTIFY_QUEUE, { connection, prefix });
    const digestQueue = options.digest ? new Queue(DIGEST_QUEUE, { connection, prefix }) : undefined;
    const maintenanceQueue = options.maintenance
      ? new Queue(MAINTENANCE_QUEUE, { connection, prefix })
      : undefined;
    // Reconciliation is part of watching unattended: it runs wherever the schedules do.
    const reconcileQueue = options.schedule
      ? new Queue<ReconcileJobData>(RECONCILE_QUEUE, { connection, prefix })
      : undefined;
    const queues = [
      pollQueue,
      notifyQueue,
      ...[digestQueue, maintenanceQueue, reconcileQueue].filter((q) => q !== undefined),
    ];
    for (const queue of queues) queue.on('error', reportError(`${queue.name} queue`));
    releasers.add('queues', async () => {
      for (const queue of queues) await queue.close();
      // Last of what used Redis, so nothing writes a key after this (the rate gate, the limiter).
      if (options.privateQueues) await removePrefixedKeys(redis, prefix);
    });
    if (options.privateQueues) await removePrefixedKeys(redis, prefix);

    // The watchdog of a long-running worker: /readyz and `status` say when polling stopped.
    const health = options.schedule
      ? new PollingHealth({ expectedEveryMs: config.poll.every, logger })
      : undefined;
    const pausedKey = pollPausedKey(prefix);
    let ops: OpsServer | undefined;
    if (options.http && config.http.enabled) {
      // Opened before the workers and released after them: /readyz and /metrics keep answering while
      // the jobs in flight finish.
      ops = await startOpsServer({
        ...settings.http,
        admin: settings.admin,
        deps: {
          redis,
          store,
          queues,
          metrics,
          // The triage inbox at `/`, and Bull Board behind its login.
          web: createWeb({ store, config, admin: settings.admin, logger }),
          ...(health ? { polling: health } : {}),
        },
        logger,
      });
      const server = ops;
      releasers.add('ops server', () => server.close());
    }

    // The alerts are in the outbox already; if Redis refuses them now, the sweep enqueues them later.
    const enqueueRaised = (messages: OutboxMessage[]) =>
      enqueueMessages(notifyQueue, messages).catch((err) =>
        logger.warn(
          `could not enqueue ${messages.length} notification(s) now (${errorMessage(err)}); they stay in the outbox`,
        ),
      );
    const retry: RetryPolicy = { attempts: config.poll.attempts, backoffMs: config.poll.backoff };
    const pollWorker = createPollWorker({
      connection,
      queue: pollQueue,
      prefix,
      concurrency: config.poll.concurrency,
      maxRequestsPerSecond: config.catalog.maxRequestsPerSecond,
      poll: { maxPages: config.poll.maxPages, baselinePages: config.poll.baselinePages },
      lowRatingMax: config.alerts.lowRating.maxRating,
      deps: { client, store, logger, alerts: alertPolicyOf(config) },
      metrics,
      logger,
      onMessages: enqueueRaised,
      ...(options.schedule ? { gapFollowUpMs: GAP_FOLLOW_UP_MS } : {}),
      onFatal:
        options.onFatal ??
        ((err) => {
          if (pollWorker.isPaused()) return;
          logger.error(`${err.message} Polling is paused; restart reviewwatch once it is fixed.`);
          health?.pause(err.message);
          // For `status`, which runs in another process; a restart clears it (and tries again).
          void redis.set(pausedKey, err.message).catch(() => undefined);
          void pollWorker.pause(true);
        }),
    });
    const notifyWorker = createNotifyWorker({
      connection,
      prefix,
      queue: notifyQueue,
      store,
      senders,
      throttle: {
        max: config.alerts.throttle.max,
        windowMs: config.alerts.throttle.window,
        maxHoldMs: config.alerts.throttle.maxHold,
      },
      metrics,
      logger,
    });
    const digestDeps = { config, store, senders, logger, simulated: settings.simulated };
    const workers = [
      pollWorker,
      notifyWorker,
      ...(digestQueue
        ? [
            createDigestWorker(digestDeps, {
              connection,
              prefix,
              queueName: DIGEST_QUEUE,
              onError: reportError('digest worker'),
            }),
          ]
        : []),
      ...(maintenanceQueue
        ? [
            createMaintenanceWorker(digestDeps, {
              connection,
              prefix,
              autorun: false,
              onError: reportError('maintenance worker'),
            }),
          ]
        : []),
      ...(reconcileQueue
        ? [
            createReconcileWorker(
              reconcileQueue,
              { config, store, client, logger, alerts: alertPolicyOf(config) },
              { connection, prefix, onMessages: enqueueRaised, reportError },
            ),
          ]
        : []),
    ];
    pollWorker.on('error', reportError('poll worker'));
    notifyWorker.on('error', reportError('notify worker'));
    // Each app's poll interval (poll.schedule), kept in its job scheduler.
    const schedule = options.schedule
      ? new PollSchedule({
          queue: pollQueue,
          redis,
          store,
          config,
          retry,
          logger,
          metrics,
          onPlan: (plan) => {
            if (plan.entries.length > 0)
              health?.setExpectedEvery(Math.min(...plan.entries.map((entry) => entry.plannedMs)));
          },
        })
      : undefined;
    if (schedule) {
      metrics.watchSchedulers(pollQueue);
      releasers.add('poll schedule', () => schedule.stop());
      pollWorker.on('completed', (job, result) => {
        schedule
          .pollFinished(result.handle, result, job.processedOn ?? Date.now())
          .catch((err) => logger.warn(`could not reschedule ${result.handle}: ${errorMessage(err)}`));
      });
    }
    if (health) {
      // A skipped slot (the app's previous poll still running) proves nothing about polling.
      pollWorker.on('completed', (_job, result) => {
        if (result.status !== 'skipped') health.pollFinished();
      });
      // A failure recorded for good is an answer too; an attempt that will be retried is not.
      pollWorker.on('failed', (job) => {
        if (job?.finishedOn) health.pollFinished();
      });
    }
    releasers.add('poll and notify workers', async () => {
      if (forced) return closeNow(workers);
      try {
        await withTimeout(Promise.all(workers.map((w) => w.close())), graceMs);
      } catch (err) {
        if (!(err instanceof TimeoutError)) throw err;
        logger.warn(`jobs still running after ${graceMs / 1000}s: stopping them; they will run again`);
        await closeNow(workers);
      }
    });

    /** Everything a long-running worker keeps in Redis, (re)made from the config and the outbox. */
    const reassert = async () => {
      await schedule?.sync();
      await notifyQueue.upsertJobScheduler(
        SWEEP_SCHEDULER_ID,
        { every: SWEEP_EVERY_MS },
        { name: SWEEP_JOB },
      );
      if (digestQueue) await syncDigestSchedule(digestQueue, digestDeps);
      if (maintenanceQueue) await syncMaintenanceSchedule(maintenanceQueue, digestDeps);
      if (reconcileQueue) await syncReconcileSchedulers(reconcileQueue);
      // Whatever a crash or a flushed Redis left undelivered goes out now; the sweep catches the rest.
      const undelivered = await enqueueUndelivered(notifyQueue, store);
      if (undelivered > 0) logger.info(`re-enqueued ${undelivered} undelivered notification(s)`);
    };
    if (options.schedule) {
      await redis.del(pausedKey);
      await reassert();
      const started = await startUpkeep({
        redis,
        prefix,
        everyMs: Math.min(config.poll.every, UPKEEP_EVERY_MS),
        logger,
        reassert,
        // The watchdog logs a stall even when nobody probes /readyz.
        onTick: () => health?.verdict(),
      });
      upkeep = started;
      schedule?.start();
      releasers.add('upkeep', () => started.stop());
    } else if (digestQueue) {
      await syncDigestSchedule(digestQueue, digestDeps);
    }
    if (digestQueue) await enqueueOverdueDigest(digestQueue, digestDeps);
    for (const worker of workers) void worker.run();

    let events: QueueEvents | undefined;
    const pollEvents = async () => {
      if (!events) {
        const created = new QueueEvents(pollQueueName, { connection, prefix });
        events = created;
        releasers.add('poll queue events', () => created.close());
        await created.waitUntilReady();
      }
      return events;
    };

    return workerHandle({
      settings,
      logger,
      store,
      redis,
      client,
      senders,
      metrics,
      pollQueue,
      notifyQueue,
      pollWorker,
      notifyWorker,
      retry,
      ops,
      digestQueue,
      health,
      simulator,
      schedule,
      releasers,
      pollEvents,
      requests: () => requests,
      force: () => {
        forced = true;
        void closeNow(workers);
      },
    });
  });
}

type CatalogTarget = 'simulator' | { baseUrl: string; apiKey: string };

/**
 * Where the worker reads the marketplace: the configured API, or the built-in simulator only when the
 * config says `catalog.simulator: true`. Anything else missing is a usage error naming the variable.
 */
export function catalogTargetOf(settings: Settings): CatalogTarget {
  const { catalog } = settings.config;
  if (catalog.simulator) return 'simulator';
  const missing = [
    catalog.baseUrl ? undefined : 'CATALOG_API_BASE_URL',
    catalog.apiKey ? undefined : 'CATALOG_API_KEY',
  ].filter((name): name is string => name !== undefined);
  if (missing.length > 0 || !catalog.baseUrl || !catalog.apiKey) {
    throw new ReviewwatchError(
      `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not set: reviewwatch needs the Catalog API's base URL and key (or catalog.baseUrl and catalog.apiKey in ${settings.configPath}). To try it out without them, run \`reviewwatch demo\`, or set catalog.simulator: true.`,
      { exitCode: ExitCode.Usage },
    );
  }
  return { baseUrl: catalog.baseUrl, apiKey: catalog.apiKey };
}

async function closeNow(workers: ReadonlyArray<{ close(force?: boolean): Promise<void> }>): Promise<void> {
  await Promise.all(workers.map((w) => w.close(true)));
}

interface Parts extends Omit<Worker, 'pollNow' | 'settle' | 'stop' | 'kill' | 'done'> {
  releasers: Releasers;
  pollEvents: () => Promise<QueueEvents>;
  force: () => void;
}

function workerHandle(parts: Parts): Worker {
  const { releasers, pollEvents, force, ...resources } = parts;
  const { logger, store } = resources;
  let stopping: Promise<Error[]> | undefined;
  const release = () => {
    stopping ??= releasers.releaseAll().then((errors) => {
      for (const err of errors) logger.error(err.message);
      return errors;
    });
    return stopping;
  };
  let resolveDone: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    resolveDone = resolve;
  });
  const finish = async () => {
    const errors = await release();
    resolveDone();
    if (errors.length > 0) throw new AggregateError(errors, errors.map((e) => e.message).join('; '));
  };
  return {
    ...resources,
    done,
    stop: finish,
    kill() {
      force();
      return finish();
    },
    async pollNow(handles, options = {}) {
      const events = await pollEvents();
      const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
      const run = randomUUID().slice(0, 8);
      // A poll of the app already running elsewhere is waited for, then this one polls: within the
      // timeout, or for as long as one poll may take when there is none.
      const waitUntil =
        deadline === undefined ? Date.now() + POLL_LOCK_TTL_MS : deadline - LOCK_WAIT_MARGIN_MS;
      const jobs: Array<Job<PollJobData>> = await resources.pollQueue.addBulk(
        handles.map((handle) => ({
          name: POLL_JOB,
          data: { handle, waitUntil },
          opts: { ...pollJobOptions(resources.retry), jobId: `once-${run}-${handle}` },
        })),
      );
      return Promise.all(
        jobs.map(async (job, i) => {
          const handle = handles[i] as string;
          let outcome: PollNowResult;
          try {
            const ttl = deadline === undefined ? undefined : Math.max(1, deadline - Date.now());
            outcome = { handle, result: (await job.waitUntilFinished(events, ttl)) as PollJobResult };
          } catch (err) {
            outcome = { handle, error: await unfinished(resources.pollQueue, job, err) };
          }
          options.onResult?.(outcome);
          return outcome;
        }),
      );
    },
    async settle(ids, options = {}) {
      const deadline = Date.now() + (options.timeoutMs ?? 120_000);
      let states = deliveryStates(store.db, ids);
      let shown = -1;
      while (states.some((s) => s.status === 'pending') && Date.now() < deadline) {
        const settled = states.filter((s) => s.status !== 'pending').length;
        if (settled !== shown) options.onProgress?.(settled);
        shown = settled;
        await new Promise((resolve) => setTimeout(resolve, 50));
        states = deliveryStates(store.db, ids);
      }
      return states;
    },
  };
}

/**
 * Why a polled job did not finish: its own failure, or (past the deadline) its last error so far; a job
 * still waiting for a retry is removed so it does not poll after the run has reported.
 */
async function unfinished(queue: Queue<PollJobData>, job: Job<PollJobData>, err: unknown): Promise<string> {
  const fresh = job.id ? await Job.fromId<PollJobData>(queue, job.id).catch(() => undefined) : undefined;
  if (!fresh || (await fresh.isFailed())) return fresh?.failedReason || errorMessage(err);
  const last = fresh.failedReason ? `; last error: ${fresh.failedReason}` : '';
  const state = await fresh.getState();
  if (state !== 'active') await fresh.remove().catch(() => undefined);
  return `did not finish in time (${fresh.attemptsMade} attempt${fresh.attemptsMade === 1 ? '' : 's'} made${last})`;
}

/** The database and Redis (a private redis-server when none answers and REDIS_URL is unset). */
async function openStorage(
  settings: Settings,
  releasers: Releasers,
  logger: Logger,
): Promise<{ store: Store; redis: Redis }> {
  const store = openStore(settings.databasePath);
  releasers.add('SQLite', () => store.close());
  const endpoint = await resolveRedis({
    redisUrl: settings.redisUrlGiven ? settings.redisUrl : undefined,
    dataDir: join(dirname(settings.databasePath), 'redis'),
    logger,
  });
  releasers.add('private redis-server', () => endpoint.stop());
  const redis = await connectRedis(endpoint.url);
  releasers.add('Redis connection', async () => {
    await redis.quit().catch(() => redis.disconnect());
  });
  return { store, redis };
}

export interface InboxServer {
  url: string;
  store: Store;
  /** Releases everything, last opened first; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * `reviewwatch serve`: the inbox, health, metrics and Bull Board without polling, against the same
 * database and Redis as a worker on the same host (SQLite must be on a local disk, docs/deployment.md):
 * beside a worker with http.enabled: false, say. It needs no API key: it reads what the workers stored.
 */
export async function startInboxServer(
  settings: Settings,
  options: { logger: Logger; host: string; port: number },
): Promise<InboxServer> {
  const { logger } = options;
  return withReleasers(async (releasers) => {
    const { store, redis } = await openStorage(settings, releasers, logger);
    const prefix = settings.queuePrefix;
    // Only for Bull Board and the queue depths of /metrics: this process adds no job.
    const queues = [
      POLL_QUEUE,
      ONCE_POLL_QUEUE,
      NOTIFY_QUEUE,
      DIGEST_QUEUE,
      MAINTENANCE_QUEUE,
      RECONCILE_QUEUE,
    ].map((name) => new Queue(name, { connection: redis, prefix }));
    releasers.add('queues', async () => {
      for (const queue of queues) await queue.close();
    });
    const server = await startOpsServer({
      host: options.host,
      port: options.port,
      admin: settings.admin,
      deps: {
        redis,
        store,
        queues,
        metrics: new Metrics(),
        web: createWeb({ store, config: settings.config, admin: settings.admin, logger }),
      },
      logger,
    });
    releasers.add('ops server', () => server.close());
    return {
      url: server.url,
      store,
      async stop() {
        for (const err of await releasers.releaseAll()) logger.error(err.message);
      },
    };
  });
}
