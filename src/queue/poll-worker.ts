import { type Job, type JobsOptions, type Queue, RateLimitError, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { OutboxMessage } from '../alerts/messages.js';
import { CatalogError, CatalogRateLimitError } from '../catalog/index.js';
import type { Config } from '../config/index.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../ops/metrics.js';
import { isLowRated } from '../scoring/index.js';
import { ensureApp, updateApp } from '../store/apps.js';
import type { Store } from '../store/db.js';
import { retryAfterCapNote } from '../util/http.js';
import { type GapReport, type PollDeps, type PollOptions, type PollOutcome, pollApp } from '../watch/poll.js';
import { pollLockKey, withLock } from './app-lock.js';
import { POLL_JOB, type PollJobData } from './names.js';

export interface RetryPolicy {
  attempts: number;
  /** First delay of the exponential backoff, in ms. */
  backoffMs: number;
}

/** What a finished poll job returns; kept small, it is stored in Redis. */
export interface PollJobResult {
  handle: string;
  /** `skipped`: another poll of the app was still running (here or in another process); this one did nothing. */
  status: PollOutcome['status'] | 'skipped';
  /** Why a poll was skipped, in words. */
  skippedBecause?: string;
  requests: number;
  newReviews: number;
  editedReviews: number;
  capped: boolean;
  /** What the poll did to the app's burst gap, if it had one or opened one. */
  gap?: GapReport;
  /** New reviews at or below `alerts.lowRating.maxRating` (never on a baseline). */
  lowRated: Array<{ reviewId: string; rating: number; reviewer: string; content: string }>;
  /** The deliveries (alert × channel) this poll put in the outbox. */
  deliveryIds: number[];
  unavailable?: string;
}

export function retryPolicyOf(config: Config): RetryPolicy {
  return { attempts: config.poll.attempts, backoffMs: config.poll.backoff };
}

export function pollJobOptions(retry: RetryPolicy): JobsOptions {
  return {
    attempts: retry.attempts,
    backoff: { type: 'exponential', delay: retry.backoffMs, jitter: 0.5 },
    removeOnComplete: { age: 24 * 3600, count: 1000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
  };
}

/** 429s do not use attempts (BullMQ's rate-limit path), so cap them separately: a 429 storm ends somewhere. */
const MAX_RATE_LIMITED_STARTS = 50;

/**
 * How long a poll's per-app lock lasts without a refresh. It is refreshed every third of this while the
 * poll runs, so it only bounds how long the lock of a killed process blocks the app's next polls.
 */
export const POLL_LOCK_TTL_MS = 30_000;

export interface PollWorkerOptions {
  /** BullMQ duplicates it for its blocking reads; the per-app poll lock runs on it as it is. */
  connection: Redis;
  /** The poll queue, paused as a whole on a 429. */
  queue: Queue<PollJobData>;
  prefix: string;
  concurrency: number;
  maxRequestsPerSecond: number;
  poll: PollOptions;
  lowRatingMax: number;
  deps: PollDeps & { store: Store };
  logger: Logger;
  /** Called with the outbox messages a poll raised, after its transaction committed. */
  onMessages?: (messages: OutboxMessage[]) => Promise<void>;
  /** A bad key or no credits: nothing will work until someone acts. */
  onFatal?: (err: CatalogError) => void;
  /** Without Retry-After, how long the queue pauses on a 429: doubles per attempt, with jitter. */
  rateLimitBaseMs?: number;
  /** Counts poll outcomes, durations, new reviews and raised alerts. */
  metrics?: Metrics;
  /** `POLL_LOCK_TTL_MS` unless a test needs a killed holder's lock to lapse sooner. */
  pollLockTtlMs?: number;
  /**
   * A long-running worker reads a burst gap on this soon instead of at the app's next scheduled poll:
   * its pages cost the same whenever they are read, and its reviews are waiting to alert. Unset for
   * one-shot runs, which report the gap and leave it to `start`.
   */
  gapFollowUp?: { delayMs: number; retry: RetryPolicy };
}

/** How soon a long-running worker polls again an app whose poll left a burst gap open. */
export const GAP_FOLLOW_UP_MS = 10_000;

export function createPollWorker(options: PollWorkerOptions): Worker<PollJobData, PollJobResult> {
  return new Worker<PollJobData, PollJobResult>(options.queue.name, (job) => runPollJob(options, job), {
    connection: options.connection,
    prefix: options.prefix,
    concurrency: options.concurrency,
    // The limiter must be set for rateLimit() to pause the queue; it also spaces poll starts.
    limiter: { max: Math.max(1, Math.ceil(options.maxRequestsPerSecond)), duration: 1_000 },
    autorun: false,
  });
}

/** One poll job: the app's poll under its lock, then what follows it; a failure in BullMQ's terms. */
async function runPollJob(options: PollWorkerOptions, job: Job<PollJobData>): Promise<PollJobResult> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const run = await pollUnderLock(options, job);
    if (!run.taken) return skippedJob(options.logger, job);
    return await afterPoll(options, job, run.value, seconds());
  } catch (err) {
    return pollFailed(options, job, err, seconds());
  }
}

/**
 * One poll per app at a time, across processes: a slot that comes while the app is still being polled (a
 * slow API, `poll --once` beside `start`) would only spend the same requests twice.
 */
function pollUnderLock(options: PollWorkerOptions, job: Job<PollJobData>) {
  const { deps, logger } = options;
  const { handle } = job.data;
  return withLockOrWait(
    options.connection,
    pollLockKey(options.prefix, handle),
    job.data.waitUntil,
    {
      ttlMs: options.pollLockTtlMs ?? POLL_LOCK_TTL_MS,
      onLost: () =>
        logger.warn(
          { app: handle },
          `the poll lock of ${handle} lapsed (the process stalled or Redis was away): another poll of it may overlap this one`,
        ),
    },
    () =>
      pollApp(deps, handle, options.poll, (progress) => {
        // Only a baseline reads enough pages for progress to matter; a quiet poll saves the round trip.
        if (progress.baseline)
          // Progress is for the eyes only: a flushed Redis (no job hash) must not fail the poll, let
          // alone the process.
          job
            .updateProgress({ page: progress.page, totalPages: progress.totalPages ?? null })
            .catch(() => undefined);
      }),
  );
}

/** Another poll of the app held its lock: this job did nothing, and says why. */
function skippedJob(logger: Logger, job: Job<PollJobData>): PollJobResult {
  const { handle } = job.data;
  const waited = job.data.waitUntil !== undefined;
  logger.warn(
    { app: handle },
    waited
      ? `poll of ${handle} skipped: another poll of it was still running when the time ran out`
      : `poll of ${handle} skipped: the previous poll of it is still running (in this or another reviewwatch process)`,
  );
  return skipped(
    handle,
    waited
      ? 'another poll of it (in this or another reviewwatch process) was still running when the time ran out'
      : 'another poll of it is still running',
  );
}

/** Counts the poll, hands on the alerts it raised, and reads an open burst gap on soon. */
async function afterPoll(
  options: PollWorkerOptions,
  job: Job<PollJobData>,
  outcome: PollOutcome,
  seconds: number,
): Promise<PollJobResult> {
  const { handle } = job.data;
  options.metrics?.pollFinished(outcome, seconds);
  if (outcome.messages.length > 0) await options.onMessages?.(outcome.messages);
  const { gapFollowUp } = options;
  if (gapFollowUp && outcome.gap && outcome.gap.state !== 'closed') {
    const step = String(outcome.pollRunId);
    await enqueueReadOn(options.queue, handle, step, gapFollowUp.delayMs, gapFollowUp.retry).catch((err) =>
      // The gap is in SQLite: the next scheduled poll reads on all the same.
      options.logger.warn(
        { app: handle },
        `could not enqueue the read-on poll of ${handle}: ${errorMessage(err)}`,
      ),
    );
  }
  return resultOf(outcome, options.lowRatingMax);
}

/**
 * A failed poll in BullMQ's terms (docs/architecture.md, "How a poll is retried"): a 429 pauses the whole
 * queue without spending an attempt, a permanent error fails the job for good, anything else is retried.
 */
async function pollFailed(
  options: PollWorkerOptions,
  job: Job<PollJobData>,
  err: unknown,
  seconds: number,
): Promise<never> {
  const { deps, logger } = options;
  const { handle } = job.data;
  if (err instanceof CatalogRateLimitError) {
    const wait = err.retryAfterMs ?? rateLimitBackoff(job, options.rateLimitBaseMs ?? 1_000);
    if (job.attemptsStarted >= MAX_RATE_LIMITED_STARTS) {
      options.metrics?.pollFailed(seconds);
      recordFailure(deps.store, handle, `${err.message} (gave up after ${job.attemptsStarted} tries)`);
      throw new UnrecoverableError(err.message);
    }
    logger.warn(
      { app: handle, waitMs: wait },
      `catalog API rate limit: pausing all polls for ${Math.ceil(wait / 1000)}s${retryAfterCapNote(wait)}`,
    );
    // Pauses the whole queue, across workers, and puts this job back without spending an attempt.
    await options.queue.rateLimit(wait);
    throw new RateLimitError();
  }
  options.metrics?.pollFailed(seconds);
  const message = errorMessage(err);
  const permanent = err instanceof CatalogError && !err.retryable;
  const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  if (permanent || lastAttempt) recordFailure(deps.store, handle, message);
  if (permanent) {
    if (err instanceof CatalogError && err.fatal) options.onFatal?.(err);
    throw new UnrecoverableError(message);
  }
  logger.warn(
    { app: handle, attempt: job.attemptsMade + 1, of: job.opts.attempts },
    lastAttempt ? `poll of ${handle} failed: ${message}` : `poll of ${handle} failed, will retry: ${message}`,
  );
  throw err;
}

/**
 * A poll of the app soon, to read on into its open burst gap. One job per `step` (the poll run that left
 * the gap open, or the moment the schedules were put in Redis), so a step never queues two.
 */
export async function enqueueReadOn(
  queue: Queue<PollJobData>,
  handle: string,
  step: string,
  delayMs: number,
  retry: RetryPolicy,
): Promise<void> {
  await queue.add(
    POLL_JOB,
    { handle },
    { ...pollJobOptions(retry), jobId: `gap-${handle}-${step}`, delay: delayMs },
  );
}

function rateLimitBackoff(job: Job, baseMs: number): number {
  const exp = baseMs * 2 ** Math.min(job.attemptsStarted, 8);
  return Math.round(exp / 2 + Math.random() * (exp / 2));
}

function recordFailure(store: Store, handle: string, message: string): void {
  ensureApp(store.db, handle);
  updateApp(store.db, handle, { lastPollAt: new Date(), lastPollStatus: 'failed', lastError: message });
}

/**
 * The app's poll lock, then `fn`. A scheduled slot that finds the lock taken gives up at once (its app is
 * being polled); a one-shot job (`waitUntil`) waits for the other poll to end, then polls itself.
 */
async function withLockOrWait<T>(
  redis: Redis,
  key: string,
  waitUntil: number | undefined,
  options: Parameters<typeof withLock>[2],
  fn: () => Promise<T>,
): ReturnType<typeof withLock<T>> {
  for (;;) {
    const run = await withLock(redis, key, options, fn);
    if (run.taken || waitUntil === undefined || Date.now() >= waitUntil) return run;
    await new Promise((resolve) => setTimeout(resolve, LOCK_WAIT_STEP_MS));
  }
}

/** How often a one-shot job waiting for another poll of its app tries the lock again. */
const LOCK_WAIT_STEP_MS = 200;

function skipped(handle: string, because: string): PollJobResult {
  return {
    handle,
    status: 'skipped',
    skippedBecause: because,
    requests: 0,
    newReviews: 0,
    editedReviews: 0,
    capped: false,
    lowRated: [],
    deliveryIds: [],
  };
}

function resultOf(outcome: PollOutcome, lowRatingMax: number): PollJobResult {
  const lowRated =
    outcome.status === 'ok'
      ? outcome.newReviews
          .filter((review) => isLowRated(review.rating, lowRatingMax) && !review.fromBaseline)
          .map((review) => ({
            reviewId: review.reviewId,
            rating: review.rating,
            reviewer: review.reviewer,
            content: review.content.slice(0, 200),
          }))
      : [];
  return {
    handle: outcome.handle,
    status: outcome.status,
    requests: outcome.requests,
    newReviews: outcome.newReviews.length,
    editedReviews: outcome.editedReviews.length,
    capped: outcome.capped,
    ...(outcome.gap ? { gap: outcome.gap } : {}),
    lowRated,
    deliveryIds: outcome.messages.flatMap((m) => m.deliveryIds),
    ...(outcome.unavailable ? { unavailable: outcome.unavailable.message } : {}),
  };
}
