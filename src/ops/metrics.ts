import type { Queue } from 'bullmq';
import {
  type CollectFunction,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  Registry,
} from 'prom-client';
import type { CatalogResponseInfo } from '../catalog/client.js';
import { ALERT_KIND_NAMES } from '../kinds.js';
import { handleOfSchedulerId } from '../queue/names.js';
import type { Plan } from '../schedule/policy.js';
import type { OpenGap } from '../store/gaps.js';
import { withTimeout } from '../util/timeout.js';
import type { PollOutcome } from '../watch/poll.js';

/** A poll attempt's outcome: the poll's own status, or `failed` when the attempt threw. */
export type PollMetricStatus = PollOutcome['status'] | 'failed';

/** What became of the deliveries a notify job carried. */
export type NotificationOutcome = 'sent' | 'failed' | 'held' | 'retried';

/** The job states exported per queue; completed jobs are removed or kept for days, so not a depth. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;

/** A scrape must answer even when Redis does not: queue depths that take longer are left out. */
const QUEUE_COUNT_TIMEOUT_MS = 1_000;

/**
 * The Prometheus metrics of one process. Each instance owns its registry (not prom-client's global one),
 * so tests and several runtimes in one process do not collide. Labels are bounded: statuses, endpoint
 * kinds, channel names and app handles from the config, queue names. Only the poll schedule's gauges
 * carry an app (one series per watched app, the figures `status` shows); counters never do.
 */
export class Metrics {
  // Each metric is declared once, as a field, in the order /metrics lists them; the gauges read at scrape
  // time get what they read through the instance, which the setters below point at.
  readonly registry = new Registry();
  readonly #define = metricsIn(this.registry);
  #queues: readonly Queue[] = [];
  #pollQueue: Queue | undefined;
  #gaps: () => readonly OpenGap[] = () => [];

  readonly polls = this.#define.counter(
    'reviewwatch_polls_total',
    'Poll attempts by outcome (ok, baseline, unavailable, failed); each failed attempt of a retried poll counts, a 429 does not',
    ['status'],
  );
  readonly pollDuration = this.#define.histogram(
    'reviewwatch_poll_duration_seconds',
    'How long a poll attempt took, waits for the request gate included',
    [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  );
  readonly catalogRequests = this.#define.counter(
    'reviewwatch_catalog_requests_total',
    'Catalog API requests by endpoint kind and HTTP status (error: no answer)',
    ['endpoint', 'status'],
  );
  readonly catalogRateLimited = this.#define.counter(
    'reviewwatch_catalog_rate_limited_total',
    'Catalog API requests answered 429',
  );
  readonly notifications = this.#define.counter(
    'reviewwatch_notifications_total',
    'Alert deliveries by channel and outcome (sent, failed for good, held by the throttle, retried)',
    ['channel', 'outcome'],
  );
  readonly queueJobs = this.#define.gauge(
    'reviewwatch_queue_jobs',
    'Jobs per queue and state, read from Redis at scrape time',
    ['queue', 'state'],
    collectJobCounts(() => this.#queues),
  );
  readonly reviewsNew = this.#define.counter(
    'reviewwatch_reviews_new_total',
    'New reviews found by steady-state polls (the history a baseline stores is not counted)',
  );
  readonly alertsRaised = this.#define.counter(
    'reviewwatch_alerts_raised_total',
    `Alerts written to the outbox, by kind (${ALERT_KIND_NAMES.join(', ')})`,
    ['kind'],
  );
  readonly pollInterval = this.#define.gauge(
    'reviewwatch_poll_interval_seconds',
    "Each app's poll interval in force (poll.schedule), as its job scheduler has it",
    ['app'],
  );
  readonly pollNext = this.#define.gauge(
    'reviewwatch_poll_next_timestamp_seconds',
    "When each app's next poll is due (Unix time), read from its job scheduler at scrape time",
    ['app'],
    collectNextPolls(() => this.#pollQueue),
  );
  readonly reviewRate = this.#define.gauge(
    'reviewwatch_review_rate_per_day',
    "Each app's estimated new reviews a day, as the last poll schedule plan judged it",
    ['app'],
  );
  readonly scheduleRequests = this.#define.gauge(
    'reviewwatch_schedule_projected_requests_per_day',
    'Catalog API requests a day the poll schedule is projected to spend, by what spends them (total: all)',
    ['kind'],
  );
  readonly requestBudget = this.#define.gauge(
    'reviewwatch_schedule_daily_request_budget',
    'catalog.dailyRequestBudget, when set',
  );
  // Read from SQLite at scrape time: a gap is the store's, whichever process polls the app.
  readonly gapsOpen = this.#define.gauge(
    'reviewwatch_poll_gaps_open',
    'Apps with a burst gap: reviews past poll.maxPages that the next polls have yet to read',
    [],
    collectGapCount(() => this.#gaps()),
  );
  readonly gapUnread = this.#define.gauge(
    'reviewwatch_poll_gap_unread_reviews',
    'About how many reviews of each app with a burst gap are unread (-1: the listing does not say)',
    ['app'],
    collectGapUnread(() => this.#gaps()),
  );

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Where a scrape reads the open burst gaps (store/gaps.ts). */
  watchGaps(read: () => readonly OpenGap[]): void {
    this.#gaps = read;
  }

  /** The poll queue whose schedulers a scrape reads for each app's next poll. */
  watchSchedulers(queue: Queue): void {
    this.#pollQueue = queue;
  }

  /** A poll schedule plan was made and the schedulers set to `inForce`. */
  schedulePlanned(plan: Plan, inForce: ReadonlyMap<string, number>): void {
    this.pollInterval.reset();
    this.reviewRate.reset();
    for (const [app, ms] of inForce) this.pollInterval.set({ app }, ms / 1000);
    for (const entry of plan.entries) this.reviewRate.set({ app: entry.handle }, entry.ratePerDay);
    const { polls, paging, tightening, reserved, total } = plan.projected;
    for (const [kind, n] of Object.entries({ polls, paging, tightening, reserved, total }))
      this.scheduleRequests.set({ kind }, n);
    if (plan.budget === null) this.requestBudget.reset();
    else this.requestBudget.set(plan.budget);
  }

  pollIntervalSet(app: string, ms: number): void {
    this.pollInterval.set({ app }, ms / 1000);
  }

  /** The queues whose depths a scrape reads; replaces the previous set. */
  watchQueues(queues: readonly Queue[]): void {
    this.#queues = [...queues];
  }

  /** The catalog client's `onResponse`; an arrow so it can be passed as is. */
  readonly onCatalogResponse = (info: CatalogResponseInfo): void => {
    this.catalogRequests.inc({ endpoint: info.kind, status: String(info.status) });
    if (info.status === 429) this.catalogRateLimited.inc();
  };

  /** A poll that returned, with the alerts it raised. */
  pollFinished(outcome: PollOutcome, seconds: number): void {
    this.polls.inc({ status: outcome.status });
    this.pollDuration.observe(seconds);
    if (outcome.status !== 'ok') return;
    if (outcome.newReviews.length > 0) this.reviewsNew.inc(outcome.newReviews.length);
    for (const kind of outcome.alertKinds) this.alertsRaised.inc({ kind });
  }

  /** A poll attempt that threw (a 429 excepted: the job goes back to the queue). */
  pollFailed(seconds: number): void {
    this.polls.inc({ status: 'failed' });
    this.pollDuration.observe(seconds);
  }

  notification(channel: string, outcome: NotificationOutcome, deliveries = 1): void {
    if (deliveries > 0) this.notifications.inc({ channel, outcome }, deliveries);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text exposition of every metric. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}

/**
 * How every metric of an instance is made: in its own registry, with its name, help and labels (a metric
 * without labels takes none). One place for what they all share.
 */
function metricsIn(registry: Registry) {
  const registers = [registry];
  return {
    counter: <L extends string = string>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers }),
    gauge: <L extends string = string>(
      name: string,
      help: string,
      labelNames: readonly L[] = [],
      collect?: CollectFunction<Gauge<L>>,
    ) => new Gauge<L>({ name, help, labelNames, registers, ...(collect ? { collect } : {}) }),
    histogram: (name: string, help: string, buckets: number[]) =>
      new Histogram({ name, help, buckets, registers }),
  };
}

/** Each queue's jobs per state; a queue whose counts do not come back in time is left out, not stale. */
function collectJobCounts(queues: () => readonly Queue[]) {
  return async function collect(this: Gauge<'queue' | 'state'>): Promise<void> {
    this.reset();
    const counts = await Promise.allSettled(
      queues().map(async (queue) => ({
        queue: queue.name,
        counts: await withTimeout(queue.getJobCounts(...QUEUE_STATES), QUEUE_COUNT_TIMEOUT_MS),
      })),
    );
    for (const result of counts) {
      if (result.status !== 'fulfilled') continue;
      const { queue, counts: byState } = result.value;
      for (const state of QUEUE_STATES) this.set({ queue, state }, byState[state] ?? 0);
    }
  };
}

/** Each app's next poll, from its job scheduler in the poll queue. */
function collectNextPolls(pollQueue: () => Queue | undefined) {
  return async function collect(this: Gauge<'app'>): Promise<void> {
    this.reset();
    const queue = pollQueue();
    if (!queue) return;
    const schedulers = await withTimeout(queue.getJobSchedulers(0, -1), QUEUE_COUNT_TIMEOUT_MS).catch(
      () => [],
    );
    for (const scheduler of schedulers) {
      const app = handleOfSchedulerId(scheduler.key);
      if (app !== undefined && scheduler.next !== undefined) this.set({ app }, scheduler.next / 1000);
    }
  };
}

function collectGapCount(gaps: () => readonly OpenGap[]) {
  return function collect(this: Gauge): void {
    this.set(gaps().length);
  };
}

function collectGapUnread(gaps: () => readonly OpenGap[]) {
  return function collect(this: Gauge<'app'>): void {
    this.reset();
    for (const gap of gaps()) this.set({ app: gap.handle }, gap.unread ?? -1);
  };
}
