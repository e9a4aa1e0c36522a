/**
 * What the market reads (category snapshots, listings, developers) share: their dependencies, what each
 * reports, and how a failed read is recorded. Each read fetches first and writes everything it found, the
 * requests it spent and the alerts it raised in one transaction (docs/architecture.md, "The market").
 */
import type { RaisedMarketAlerts } from '../alerts/market.js';
import type { OutboxMessage } from '../alerts/messages.js';
import type { MarketAlert } from '../alerts/types.js';
import { type CatalogClient, CatalogError, CatalogNotFoundError } from '../catalog/index.js';
import type { Config } from '../config/index.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Db, Store } from '../store/db.js';
import { insertMarketRun, type MarketRunKind, type MarketRunStatus } from '../store/market/runs.js';

export interface MarketDeps {
  client: CatalogClient;
  store: Store;
  logger: Logger;
  config: Config;
  now?: () => Date;
}

export interface MarketReadOptions {
  /**
   * The job's last attempt: a failure is then recorded for good (a snapshot's gap) instead of thrown to
   * be retried.
   */
  final: boolean;
}

export interface MarketOutcome {
  kind: MarketRunKind;
  subject: string;
  status: MarketRunStatus | 'skipped';
  requests: number;
  alertKinds: Array<MarketAlert['kind']>;
  messages: OutboxMessage[];
  error?: string;
}

/** What a read's `market_runs` row says, whatever came of it: its requests count against the budget. */
export interface MarketRun {
  kind: MarketRunKind;
  subject: string;
  startedAt: Date;
  requests: number;
}

/** What a read reports, from its run: the alerts it raised (none when it failed), and why it failed. */
export function outcomeOf(
  run: MarketRun,
  status: MarketOutcome['status'],
  ended: { raised?: RaisedMarketAlerts | undefined; error?: string } = {},
): MarketOutcome {
  const { kind, subject, requests } = run;
  const { raised, error } = ended;
  return {
    kind,
    subject,
    status,
    requests,
    alertKinds: raised?.kinds ?? [],
    messages: raised?.messages ?? [],
    ...(error === undefined ? {} : { error }),
  };
}

/** A read starting now, and the clock it goes by (the deps' in tests and benchmarks). */
export function startRead<K extends MarketRunKind>(
  deps: MarketDeps,
  kind: K,
  subject: string,
  requests = 1,
): { run: MarketRun & { kind: K }; now: () => Date } {
  const now = deps.now ?? (() => new Date());
  return { run: { kind, subject, startedAt: now(), requests }, now };
}

/** Writes how a read ended, inside the transaction that writes what it found. */
export function finishRun(
  db: Db,
  run: MarketRun,
  finishedAt: Date,
  status: MarketRunStatus,
  error?: string,
): void {
  insertMarketRun(db, { ...run, finishedAt, status, ...(error === undefined ? {} : { error }) });
}

/** How a read says its subject is gone: the log's fields, what goes on quietly, and the later debug line. */
export interface GoneWording {
  fields: Record<string, string>;
  quietly: string;
  still: string;
}

/** What a read writes beside its run when its subject is gone, returning whether it was available until now. */
export interface GoneMark {
  write: () => boolean;
  wording: GoneWording;
}

/**
 * A read whose subject answered 404: its run is written as `unavailable` with whatever `mark` writes
 * beside it (returning whether the subject was available until now). A subject newly gone is a warning,
 * one that stays gone a debug line. Without `mark`, nothing is said: someone else reports it.
 */
async function recordGone(
  deps: MarketDeps,
  run: MarketRun,
  err: CatalogNotFoundError,
  mark?: GoneMark,
): Promise<MarketOutcome> {
  const finishedAt = (deps.now ?? (() => new Date()))();
  const newly = await deps.store.writes.run(() => {
    finishRun(deps.store.db, run, finishedAt, 'unavailable', err.message);
    return mark?.write();
  });
  if (mark && newly)
    deps.logger.warn(mark.wording.fields, `${err.message} Marked unavailable; ${mark.wording.quietly}.`);
  else if (mark) deps.logger.debug(mark.wording.fields, mark.wording.still);
  return outcomeOf(run, 'unavailable', { error: err.message });
}

/** A failed read that trying again may mend: the worker retries it (the requests are recorded already). */
export class MarketReadError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'MarketReadError';
  }
}

/** Whether a failure is worth another attempt of the job: a transient one, with attempts left. */
export function retryLater(err: unknown, options: MarketReadOptions): boolean {
  if (options.final) return false;
  return !(err instanceof CatalogError) || err.retryable;
}

/** A rejected key or no credits: nothing will work until someone acts; the worker pauses. */
export function isFatal(err: unknown): err is CatalogError {
  return err instanceof CatalogError && err.fatal;
}

/**
 * Records a read that failed (its requests count against the budget whatever came of them), then either
 * throws for a retry or a fatal stop, or reports the failure for good.
 */
async function recordFailedRead(
  deps: MarketDeps,
  run: MarketRun,
  err: unknown,
  options: MarketReadOptions,
  alsoWrite?: () => void,
): Promise<MarketOutcome> {
  const message = errorMessage(err);
  const again = retryLater(err, options) || isFatal(err);
  await deps.store.writes.run(() => {
    finishRun(deps.store.db, run, (deps.now ?? (() => new Date()))(), 'failed', message);
    if (!again) alsoWrite?.();
  });
  if (isFatal(err)) throw err;
  if (again) throw new MarketReadError(message, { cause: err });
  return outcomeOf(run, 'failed', { error: message });
}

/**
 * A read whose request threw: a 404 is its subject gone (recordGone, with the mark `onError.gone` makes of
 * it), anything else a failed read (recordFailedRead, with `onError.failed` written when it fails for good).
 */
export function recordReadError(
  deps: MarketDeps,
  run: MarketRun,
  err: unknown,
  options: MarketReadOptions,
  onError: { gone?: (err: CatalogNotFoundError) => GoneMark; failed?: () => void } = {},
): Promise<MarketOutcome> {
  if (err instanceof CatalogNotFoundError) return recordGone(deps, run, err, onError.gone?.(err));
  return recordFailedRead(deps, run, err, options, onError.failed);
}
