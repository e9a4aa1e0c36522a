import { categorySubject } from '../../alerts/market.js';
import type { CategoryConfig } from '../../config/index.js';
import { errorMessage } from '../../errors.js';
import type { Worker } from '../../root/worker.js';
import type { MarketRunKind } from '../../store/market/runs.js';
import { deliveriesRaisedSince } from '../../store/outbox.js';
import { snapshotCategory } from '../../watch/category-snapshot.js';
import { readDeveloper } from '../../watch/developer-read.js';
import { readListing } from '../../watch/listing-read.js';
import {
  isFatal,
  type MarketOutcome,
  MarketReadError,
  type MarketReadOptions,
} from '../../watch/market-read.js';

/** Attempts of one read, as the market worker makes them; the waits between are shorter, someone waits. */
const ATTEMPTS = 3;
const RETRY_MS = 1_000;
/** Reads at once: the market worker's concurrency. */
const LANES = 2;

export interface RefreshRead {
  kind: MarketRunKind;
  subject: string;
  /** `unfinished`: not done by the deadline (or not started, the key being rejected). */
  status: MarketOutcome['status'] | 'unfinished';
  requests: number;
  alertKinds: MarketOutcome['alertKinds'];
  error?: string;
}

export interface MarketRefreshReport {
  /** When the refresh started: what it reports was raised or read since. */
  since: Date;
  /** The categories it snapshotted. */
  categories: string[];
  reads: RefreshRead[];
  /** The deliveries of every market alert raised for its subjects while it ran, to wait for. */
  deliveryIds: number[];
  /** A read was still running at the deadline: the run must be killed, not stopped. */
  timedOut: boolean;
  /** Set when the key was rejected or the credits ran out: the reads not yet started were left alone. */
  unusable?: string;
}

export interface RefreshOptions {
  /** One tracked category instead of every one; the listings and developers are read all the same. */
  category?: string | undefined;
  timeoutMs: number;
  /** As each read ends, with how many have. */
  onRead?: (read: RefreshRead, done: number) => void;
}

type Task = {
  kind: MarketRunKind;
  subject: string;
  run: (options: MarketReadOptions) => Promise<MarketOutcome>;
};

/**
 * `market --refresh`: snapshots the tracked categories (or one) now, reads every watched app's listing and
 * then the developer of every competitor, through the same reads and alert rules as the scheduled ones
 * (watch/), and puts the alerts raised on the notify queue. It reads in this process, like `reconcile`:
 * no job of a running `start` takes its reads, and its deadline holds. A read that fails is tried again
 * (ATTEMPTS in all) while the deadline allows; a rejected key stops the reads not yet started.
 */
export function refreshMarket(worker: Worker, options: RefreshOptions): Promise<MarketRefreshReport> {
  return new Refresh(worker, options).run();
}

class Refresh {
  readonly #worker: Worker;
  readonly #deadline: number;
  readonly #onRead: ((read: RefreshRead, done: number) => void) | undefined;
  readonly #report: MarketRefreshReport;
  readonly #categories: CategoryConfig[];
  /** The developers competitors' listings named, each with the first such app: (developer, via app). */
  readonly #developers = new Map<string, string>();

  constructor(worker: Worker, options: RefreshOptions) {
    const { config } = worker.settings;
    const since = new Date();
    this.#worker = worker;
    this.#deadline = since.getTime() + options.timeoutMs;
    this.#onRead = options.onRead;
    this.#categories = config.categories.filter(
      (c) => options.category === undefined || c.handle === options.category,
    );
    this.#report = {
      since,
      categories: this.#categories.map((c) => c.handle),
      reads: [],
      deliveryIds: [],
      timedOut: false,
    };
  }

  async run(): Promise<MarketRefreshReport> {
    const { config } = this.#worker.settings;
    const report = this.#report;
    const snapshots: Task[] = this.#categories.map((entry) => ({
      kind: 'category',
      subject: entry.handle,
      run: (o) => this.#worker.readMarket((deps) => snapshotCategory(deps, entry, o)),
    }));
    const listings: Task[] = config.apps.map((app) => ({
      kind: 'listing',
      subject: app.handle,
      run: async (o) => {
        const outcome = await this.#worker.readMarket((deps) => readListing(deps, app.handle, o));
        // A competitor's developer: what it publishes next is news. Your own you know.
        if (outcome.developer && app.role === 'competitor' && !this.#developers.has(outcome.developer))
          this.#developers.set(outcome.developer, app.handle);
        return outcome;
      },
    }));
    await inLanes([...snapshots, ...listings], (task) => this.#read(task), report);
    const developers: Task[] = [...this.#developers].map(([developer, via]) => ({
      kind: 'developer',
      subject: developer,
      run: (o) => this.#worker.readMarket((deps) => readDeveloper(deps, developer, via, o)),
    }));
    await inLanes(developers, (task) => this.#read(task), report);
    const subjects = [...config.apps.map((a) => a.handle), ...report.categories.map(categorySubject)];
    report.deliveryIds = deliveriesRaisedSince(this.#worker.store.db, subjects, report.since);
    return report;
  }

  async #read(task: Task): Promise<void> {
    const read = await this.#attempt(task);
    this.#report.reads.push(read);
    this.#onRead?.(read, this.#report.reads.length);
  }

  /** One read, tried again while it may mend and the deadline allows. */
  async #attempt(task: Task): Promise<RefreshRead> {
    const base = { kind: task.kind, subject: task.subject };
    for (let n = 1; ; n++) {
      const left = this.#deadline - Date.now();
      if (left <= 0) return unfinished(base, 'not started before the --timeout');
      const wait = RETRY_MS * 2 ** (n - 1);
      const final = n >= ATTEMPTS || wait >= left;
      try {
        const outcome = await beforeDeadline(task.run({ final }), left);
        if (outcome === undefined) {
          this.#report.timedOut = true;
          return unfinished(base, 'did not finish in time');
        }
        return { ...base, ...summaryOf(outcome) };
      } catch (err) {
        if (isFatal(err)) {
          this.#report.unusable = err.message;
          return { ...unfinished(base, err.message), status: 'failed' };
        }
        if (final || !(err instanceof MarketReadError)) {
          return { ...unfinished(base, errorMessage(err)), status: 'failed' };
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }
}

function summaryOf(outcome: MarketOutcome): Omit<RefreshRead, 'kind' | 'subject'> {
  return {
    status: outcome.status,
    requests: outcome.requests,
    alertKinds: outcome.alertKinds,
    ...(outcome.error === undefined ? {} : { error: outcome.error }),
  };
}

function unfinished(base: Pick<RefreshRead, 'kind' | 'subject'>, error: string): RefreshRead {
  return { ...base, status: 'unfinished', requests: 0, alertKinds: [], error };
}

/** The read's outcome, or undefined when it is still running after `ms`; its failure as it comes. */
async function beforeDeadline<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the tasks LANES at a time, starting none once the key was rejected. */
async function inLanes(
  tasks: readonly Task[],
  each: (task: Task) => Promise<void>,
  report: MarketRefreshReport,
): Promise<void> {
  const pending = [...tasks];
  const lane = async (): Promise<void> => {
    for (let task = pending.shift(); task !== undefined; task = pending.shift()) {
      if (report.unusable !== undefined) {
        report.reads.push(unfinished(task, 'not read: the API key was rejected or the credits ran out'));
        continue;
      }
      await each(task);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LANES, tasks.length) }, lane));
}
