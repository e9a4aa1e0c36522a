import { CatalogError } from '../../catalog/index.js';
import { errorMessage } from '../../errors.js';
import type { Worker } from '../../root/worker.js';
import { ReconcileError, type ReconcileOutcome } from '../../watch/reconcile.js';

/** How long `reconcile` waits for a poll of the app (here or in a running `start`) to finish. */
export const BUSY_WAIT_MS = 60_000;

export type ReconcileResult =
  | { handle: string; outcome: ReconcileOutcome }
  | { handle: string; error: string; requests: number };

export interface ReconcileRun {
  results: ReconcileResult[];
  /** Set when the key was rejected or the credits ran out: the apps not yet started were left alone. */
  unusable?: string;
}

/**
 * `reviewwatch reconcile`: reconciles these apps now, `poll.concurrency` at a time, each under its app's
 * poll lock (waiting up to BUSY_WAIT_MS for a poll of it), and puts the alerts raised on the notify queue.
 * A rejected key stops the apps not yet started; any other failure is that app's alone.
 */
export async function reconcileNow(
  worker: Worker,
  handles: readonly string[],
  onResult?: (result: ReconcileResult, done: number) => void,
): Promise<ReconcileRun> {
  const { config } = worker.settings;
  const pending = [...handles];
  const run: ReconcileRun = { results: [] };
  const reconcileOne = async (handle: string): Promise<ReconcileResult> => {
    try {
      const outcome = await worker.reconcile(handle, { waitMs: BUSY_WAIT_MS });
      if (outcome === 'busy') throw new Error(`a poll of it has held it for ${BUSY_WAIT_MS / 1000}s`);
      return { handle, outcome };
    } catch (err) {
      const cause = err instanceof ReconcileError ? err.cause : err;
      if (cause instanceof CatalogError && cause.fatal) run.unusable = cause.message;
      return { handle, error: errorMessage(err), requests: err instanceof ReconcileError ? err.requests : 0 };
    }
  };
  const lane = async (): Promise<void> => {
    for (let handle = pending.shift(); handle !== undefined && !run.unusable; handle = pending.shift()) {
      const result = await reconcileOne(handle);
      run.results.push(result);
      onResult?.(result, run.results.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(config.poll.concurrency, handles.length) }, lane));
  return run;
}
