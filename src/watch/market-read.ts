/**
 * What the market reads (category snapshots, listings, developers) share: their dependencies, what each
 * reports, and how a failed read is recorded. Each read fetches first and writes everything it found, the
 * requests it spent and the alerts it raised in one transaction (docs/architecture.md, "The market").
 */
import type { OutboxMessage } from '../alerts/messages.js';
import type { MarketAlert } from '../alerts/types.js';
import { type CatalogClient, CatalogError } from '../catalog/index.js';
import type { Config } from '../config/index.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
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
export async function recordFailedRead(
  deps: MarketDeps,
  run: { kind: MarketRunKind; subject: string; startedAt: Date; requests: number },
  err: unknown,
  options: MarketReadOptions,
  alsoWrite?: () => void,
): Promise<MarketOutcome> {
  const message = errorMessage(err);
  const again = retryLater(err, options) || isFatal(err);
  await deps.store.writes.run(() => {
    insertMarketRun(deps.store.db, {
      ...run,
      finishedAt: (deps.now ?? (() => new Date()))(),
      status: 'failed',
      error: message,
    });
    if (!again) alsoWrite?.();
  });
  if (isFatal(err)) throw err;
  if (again) throw new MarketReadError(message, { cause: err });
  return {
    kind: run.kind,
    subject: run.subject,
    status: 'failed',
    requests: run.requests,
    alertKinds: [],
    messages: [],
    error: message,
  };
}

export function listingUrl(handle: string): string {
  return `https://apps.platform.example/${handle}`;
}
