/**
 * The market watch on BullMQ. One job scheduler (`market-due`) looks every few minutes for the reads whose
 * moment came and enqueues them: a snapshot of each configured category every `market.every`, and a read
 * of each watched app's listing every `listing.every`; a competitor's listing read then asks for its
 * developer's read, once per `listing.every` however many watched apps it publishes.
 *
 * As for reconciliations, each subject's moment within its period is a hash of its handle (due-slots.ts),
 * so many categories and apps spread over the period, and when each was last read comes from SQLite
 * (market_runs), never from Redis: after a flush, putting the one scheduler back is all it takes, and no
 * moment is read twice. A subject never read is read at once.
 */
import { DelayedError, type JobsOptions, type Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { OutboxMessage } from '../alerts/messages.js';
import type { CatalogClient, CatalogError } from '../catalog/index.js';
import type { Config } from '../config/index.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import { lastMarketRuns, lastOkMarketRun, type MarketRunKind } from '../store/market/runs.js';
import { snapshotCategory } from '../watch/category-snapshot.js';
import { readDeveloper } from '../watch/developer-read.js';
import { readListing } from '../watch/listing-read.js';
import { isFatal, type MarketOutcome } from '../watch/market-read.js';
import { dueSlots, latestSlot } from './due-slots.js';

export const MARKET_QUEUE = 'market';
export const MARKET_DUE_JOB = 'due';
export const MARKET_SCHEDULER_ID = 'market-due';

export type MarketJobData =
  | { kind: 'snapshot'; category: string; slot: number }
  | { kind: 'listing'; handle: string; slot: number }
  | { kind: 'developer'; developer: string; via: string; slot: number };

/** A failed read is tried twice more, 30 s and a minute later; its next moment starts over. */
const MARKET_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 30_000 },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 1000 },
};

/**
 * How often the scheduler looks for due reads: a quarter of the shortest period, between 1 s (the demo's
 * seconds-long periods) and 5 minutes.
 */
export function marketTickMs(config: Config): number {
  const shortest = Math.min(config.market.every, config.listing.every);
  return Math.min(5 * 60_000, Math.max(1_000, Math.floor(shortest / 4)));
}

/** The job id names the subject and its moment: a second look (another worker, a retried tick) adds nothing. */
export function marketJobId(data: MarketJobData): string {
  switch (data.kind) {
    case 'snapshot':
      return `snapshot-${data.category}-${data.slot}`;
    case 'listing':
      return `listing-${data.handle}-${data.slot}`;
    case 'developer':
      return `developer-${data.developer}-${data.slot}`;
  }
}

export async function enqueueMarketJobs(
  queue: Queue<MarketJobData>,
  jobs: readonly MarketJobData[],
): Promise<void> {
  if (jobs.length === 0) return;
  await queue.addBulk(
    jobs.map((data) => ({
      name: data.kind,
      data,
      opts: { ...MARKET_JOB_OPTIONS, jobId: marketJobId(data) },
    })),
  );
}

/** A subject never read is read at once: a new category or app should not wait a whole period. */
const FIRST_AT_ONCE = { firstAtOnce: true } as const;

/** Enqueues every snapshot and listing read whose moment came; returns them. */
export async function enqueueDueMarket(
  queue: Queue<MarketJobData>,
  deps: Pick<MarketServiceDeps, 'config' | 'store' | 'logger'>,
  now = new Date(),
  /** How many times their periods the budget spreads the reads (Plan.marketStretch); 1 by default. */
  stretch = 1,
): Promise<MarketJobData[]> {
  const { config, store } = deps;
  const t = now.getTime();
  /** The subjects of one kind whose moment in their (stretched) period has passed since their last read. */
  const dueOf = (subjects: readonly { handle: string }[], kind: MarketRunKind, period: number) =>
    dueSlots(
      subjects.map((s) => s.handle),
      lastMarketRuns(store.db, kind),
      Math.round(period * Math.max(1, stretch)),
      t,
      FIRST_AT_ONCE,
    );
  const snapshots = dueOf(config.categories, 'category', config.market.every).map(
    ({ subject, slot }): MarketJobData => ({ kind: 'snapshot', category: subject, slot }),
  );
  const listings = dueOf(config.apps, 'listing', config.listing.every).map(
    ({ subject, slot }): MarketJobData => ({ kind: 'listing', handle: subject, slot }),
  );
  const due = [...snapshots, ...listings];
  await enqueueMarketJobs(queue, due);
  if (due.length > 0) deps.logger.debug({ reads: due.length }, `${due.length} market read(s) due`);
  return due;
}

/** The one scheduler that looks for due reads. Idempotent: safe whenever Redis may have lost it. */
export async function syncMarketScheduler(queue: Queue<MarketJobData>, config: Config): Promise<void> {
  if (config.categories.length === 0 && config.apps.length === 0) {
    await queue.removeJobScheduler(MARKET_SCHEDULER_ID);
    return;
  }
  await queue.upsertJobScheduler(
    MARKET_SCHEDULER_ID,
    { every: marketTickMs(config) },
    { name: MARKET_DUE_JOB, opts: { removeOnComplete: { count: 10 }, removeOnFail: { count: 10 } } },
  );
}

export interface MarketServiceDeps {
  config: Config;
  store: Store;
  client: CatalogClient;
  logger: Logger;
}

export interface MarketWorkerOptions {
  connection: Redis;
  prefix: string;
  concurrency?: number;
  /** The outbox messages a read raised, after its transaction committed. */
  onMessages?: (messages: OutboxMessage[]) => Promise<void>;
  onError?: (err: Error) => void;
  now?: () => Date;
  /** The budget's spread of the market reads (Plan.marketStretch), read at each look for due reads. */
  stretch?: () => number;
}

type MarketJobResult = MarketOutcome | { status: 'skipped'; reason: string } | number;

/** What a job reads, and whether a successful read of it since its moment makes it done already. */
function subjectOf(data: MarketJobData): { kind: MarketRunKind; subject: string } {
  switch (data.kind) {
    case 'snapshot':
      return { kind: 'category', subject: data.category };
    case 'listing':
      return { kind: 'listing', subject: data.handle };
    case 'developer':
      return { kind: 'developer', subject: data.developer };
  }
}

export function createMarketWorker(
  queue: Queue<MarketJobData>,
  deps: MarketServiceDeps,
  options: MarketWorkerOptions,
): Worker<MarketJobData, MarketJobResult> {
  const { config, logger } = deps;
  const now = options.now ?? (() => new Date());
  const readDeps = { client: deps.client, store: deps.store, logger, config, now };
  const worker: Worker<MarketJobData, MarketJobResult> = new Worker(
    MARKET_QUEUE,
    async (job) => {
      if (job.name === MARKET_DUE_JOB)
        return (await enqueueDueMarket(queue, deps, now(), options.stretch?.() ?? 1)).length;
      const data = job.data;
      const { kind, subject } = subjectOf(data);
      // Read already since its moment (a job run again after its commit, a crash): nothing to spend.
      const done = lastOkMarketRun(deps.store.db, kind, subject);
      if (done !== undefined && done.getTime() >= data.slot && job.attemptsMade === 0) {
        return { status: 'skipped', reason: 'read already for this moment' };
      }
      const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      try {
        const outcome = await run(data, final);
        if (outcome.messages.length > 0) await options.onMessages?.(outcome.messages);
        return { ...outcome, messages: [] };
      } catch (err) {
        if (isFatal(err)) {
          if (!worker.isPaused()) {
            logger.error(
              `${(err as CatalogError).message} Market reads are paused; restart reviewwatch once it is fixed.`,
            );
            void worker.pause(true);
          }
          throw new UnrecoverableError(errorMessage(err));
        }
        if (err instanceof DelayedError) throw err;
        logger.warn(
          { subject, attempt: job.attemptsMade + 1 },
          `market read of ${subject} failed: ${errorMessage(err)}`,
        );
        throw err;
      }
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency ?? 2,
      autorun: false,
    },
  );

  async function run(data: MarketJobData, final: boolean): Promise<MarketOutcome> {
    switch (data.kind) {
      case 'snapshot': {
        const entry = config.categories.find((c) => c.handle === data.category);
        if (!entry) return skipped('category', data.category);
        return snapshotCategory(readDeps, entry, { final });
      }
      case 'listing': {
        const app = config.apps.find((a) => a.handle === data.handle);
        if (!app) return skipped('listing', data.handle);
        const outcome = await readListing(readDeps, data.handle, { final });
        // A competitor's developer: what it publishes next is news. Your own you know.
        if (outcome.developer && app.role === 'competitor')
          await developerDue(outcome.developer, data.handle);
        return outcome;
      }
      case 'developer':
        return readDeveloper(readDeps, data.developer, data.via, { final });
    }
  }

  async function developerDue(developer: string, via: string): Promise<void> {
    const t = now().getTime();
    const slot = latestSlot(
      developer,
      Math.round(config.listing.every * Math.max(1, options.stretch?.() ?? 1)),
      t,
    );
    const last = lastMarketRuns(deps.store.db, 'developer').get(developer);
    if (last !== undefined && last >= slot) return;
    await enqueueMarketJobs(queue, [{ kind: 'developer', developer, via, slot }]);
  }

  worker.on('error', options.onError ?? ((err) => logger.error({ err: err.message }, 'market worker error')));
  return worker;
}

function skipped(kind: MarketRunKind, subject: string): MarketOutcome {
  return { kind, subject, status: 'skipped', requests: 0, alertKinds: [], messages: [] };
}
