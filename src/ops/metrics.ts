import type { Queue } from 'bullmq';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
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
  readonly #registers = [this.registry];
  #queues: readonly Queue[] = [];
  #pollQueue: Queue | undefined;
  #gaps: () => readonly OpenGap[] = () => [];

  readonly polls = new Counter({
    name: 'reviewwatch_polls_total',
    help: 'Poll attempts by outcome (ok, baseline, unavailable, failed); each failed attempt of a retried poll counts, a 429 does not',
    labelNames: ['status'],
    registers: this.#registers,
  });
  readonly pollDuration = new Histogram({
    name: 'reviewwatch_poll_duration_seconds',
    help: 'How long a poll attempt took, waits for the request gate included',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: this.#registers,
  });
  readonly catalogRequests = new Counter({
    name: 'reviewwatch_catalog_requests_total',
    help: 'Catalog API requests by endpoint kind and HTTP status (error: no answer)',
    labelNames: ['endpoint', 'status'],
    registers: this.#registers,
  });
  readonly catalogRateLimited = new Counter({
    name: 'reviewwatch_catalog_rate_limited_total',
    help: 'Catalog API requests answered 429',
    registers: this.#registers,
  });
  readonly notifications = new Counter({
    name: 'reviewwatch_notifications_total',
    help: 'Alert deliveries by channel and outcome (sent, failed for good, held by the throttle, retried)',
    labelNames: ['channel', 'outcome'],
    registers: this.#registers,
  });
  readonly queueJobs = new Gauge({
    name: 'reviewwatch_queue_jobs',
    help: 'Jobs per queue and state, read from Redis at scrape time',
    labelNames: ['queue', 'state'],
    registers: this.#registers,
    collect: collectJobCounts(() => this.#queues),
  });
  readonly reviewsNew = new Counter({
    name: 'reviewwatch_reviews_new_total',
    help: 'New reviews found by steady-state polls (the history a baseline stores is not counted)',
    registers: this.#registers,
  });
  readonly alertsRaised = new Counter({
    name: 'reviewwatch_alerts_raised_total',
    help: `Alerts written to the outbox, by kind (${ALERT_KIND_NAMES.join(', ')})`,
    labelNames: ['kind'],
    registers: this.#registers,
  });
  readonly pollInterval = new Gauge({
    name: 'reviewwatch_poll_interval_seconds',
    help: "Each app's poll interval in force (poll.schedule), as its job scheduler has it",
    labelNames: ['app'],
    registers: this.#registers,
  });
  readonly pollNext = new Gauge({
    name: 'reviewwatch_poll_next_timestamp_seconds',
    help: "When each app's next poll is due (Unix time), read from its job scheduler at scrape time",
    labelNames: ['app'],
    registers: this.#registers,
    collect: collectNextPolls(() => this.#pollQueue),
  });
  readonly reviewRate = new Gauge({
    name: 'reviewwatch_review_rate_per_day',
    help: "Each app's estimated new reviews a day, as the last poll schedule plan judged it",
    labelNames: ['app'],
    registers: this.#registers,
  });
  readonly scheduleRequests = new Gauge({
    name: 'reviewwatch_schedule_projected_requests_per_day',
    help: 'Catalog API requests a day the poll schedule is projected to spend, by what spends them (total: all)',
    labelNames: ['kind'],
    registers: this.#registers,
  });
  readonly requestBudget = new Gauge({
    name: 'reviewwatch_schedule_daily_request_budget',
    help: 'catalog.dailyRequestBudget, when set',
    registers: this.#registers,
  });
  // Read from SQLite at scrape time: a gap is the store's, whichever process polls the app.
  readonly gapsOpen = new Gauge({
    name: 'reviewwatch_poll_gaps_open',
    help: 'Apps with a burst gap: reviews past poll.maxPages that the next polls have yet to read',
    registers: this.#registers,
    collect: collectGapCount(() => this.#gaps()),
  });
  readonly gapUnread = new Gauge({
    name: 'reviewwatch_poll_gap_unread_reviews',
    help: 'About how many reviews of each app with a burst gap are unread (-1: the listing does not say)',
    labelNames: ['app'],
    registers: this.#registers,
    collect: collectGapUnread(() => this.#gaps()),
  });

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
