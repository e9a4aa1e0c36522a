import { CatalogError, CatalogRateLimitError } from '../catalog/index.js';
import { MAX_RETRY_AFTER_MS } from '../util/http.js';
import type { CatalogReader } from './discover.js';

/** What `withBackoff` tells the person waiting, so a long pause is never silent. */
export interface BackoffNotice {
  /** The request, as the error names it ("GET /v1/scrape/platform/apps"). */
  endpoint: string;
  waitMs: number;
  /** The try about to be made, from 2. */
  attempt: number;
  reason: 'rate limit' | 'unavailable';
}

export interface BackoffOptions {
  /** Tries in all for a 429 (they cost no credit); default 8. */
  rateLimitAttempts?: number;
  /** Tries in all for a 5xx, a timeout or a malformed body; default 3. */
  failureAttempts?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onWait?: (notice: BackoffNotice) => void;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The wait before try `attempt + 1`: the API's Retry-After when it sent one (5 minutes at most), else 1 s doubling per try
 * (at most 2^8 s), randomised between half and all of it: the poll worker's rule (docs/architecture.md,
 * "How a poll is retried"), so one key is treated alike by the worker and by `init`.
 */
export function backoffMs(err: CatalogError, attempt: number, random: () => number = Math.random): number {
  if (err instanceof CatalogRateLimitError && err.retryAfterMs !== undefined)
    return Math.min(err.retryAfterMs, MAX_RETRY_AFTER_MS);
  const base = 1_000 * 2 ** Math.min(attempt - 1, 8);
  return Math.round(base / 2 + (base / 2) * random());
}

/**
 * Runs `call`, trying again after a 429 or a transient failure (the catalog client itself never
 * retries); anything else, and the last failure, is thrown as it came.
 */
export async function withBackoff<T>(call: () => Promise<T>, options: BackoffOptions = {}): Promise<T> {
  const rateLimitAttempts = options.rateLimitAttempts ?? 8;
  const failureAttempts = options.failureAttempts ?? 3;
  const sleep = options.sleep ?? sleepFor;
  let limited = 0;
  let failed = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof CatalogError) || !err.retryable) throw err;
      const rateLimited = err instanceof CatalogRateLimitError;
      if (rateLimited) limited++;
      else failed++;
      if (rateLimited ? limited >= rateLimitAttempts : failed >= failureAttempts) throw err;
      const waitMs = backoffMs(err, rateLimited ? limited : failed, options.random);
      options.onWait?.({
        endpoint: err.endpoint,
        waitMs,
        attempt: attempt + 1,
        reason: rateLimited ? 'rate limit' : 'unavailable',
      });
      await sleep(waitMs);
    }
  }
}

/** Every read of `reader` through `withBackoff`: what `init` reads with, waiting as the poll worker would. */
export function patientReader(reader: CatalogReader, options: BackoffOptions = {}): CatalogReader {
  const retry = <T>(call: () => Promise<T>) => withBackoff(call, options);
  return {
    developer: (handle) => retry(() => reader.developer(handle)),
    developers: () => retry(() => reader.developers()),
    app: (handle) => retry(() => reader.app(handle)),
    apps: () => retry(() => reader.apps()),
    category: (handle, page) => retry(() => reader.category(handle, page)),
    categories: () => retry(() => reader.categories()),
  };
}
