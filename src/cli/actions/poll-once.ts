import type { PollNowResult } from '../../root/handle.js';
import type { Worker } from '../../root/worker.js';
import type { LowReview } from '../../store/history.js';
import { lowReviewsSince } from '../../store/history.js';
import { deliveriesRaisedSince } from '../../store/outbox.js';

/** The new low reviews a run lists per app, newest first; `status` and the inbox show any more. */
const LOW_REVIEWS_SHOWN = 1_000;

export interface PollOnceReport {
  outcomes: PollNowResult[];
  /** Apps polled: neither failed, nor skipped, nor unknown to the API. */
  polled: number;
  /** Every new low review of the apps first seen while the run ran, whichever process found it. */
  lowRated: Array<{ handle: string; review: LowReview }>;
  /** The deliveries of every alert raised for the apps while the run ran, to wait for. */
  deliveryIds: number[];
  /** A poll was still running at the deadline: the run must be killed, not stopped. */
  timedOut: boolean;
}

/**
 * `poll --once`: polls these apps now and reports what happened to them meanwhile. The report reads the
 * store, not the jobs: what another process's poll of the same apps found counts too
 * (docs/architecture.md, "One-shot runs").
 */
export async function pollOnce(
  worker: Worker,
  handles: string[],
  options: { timeoutMs: number; onResult?: (outcome: PollNowResult) => void },
): Promise<PollOnceReport> {
  const since = new Date();
  const outcomes = await worker.pollNow(handles, options);
  const { db } = worker.store;
  const maxRating = worker.settings.config.alerts.lowRating.maxRating;
  return {
    outcomes,
    polled: outcomes.filter(
      (o) => o.result && o.result.status !== 'skipped' && o.result.status !== 'unavailable',
    ).length,
    lowRated: handles.flatMap((handle) =>
      lowReviewsSince(db, handle, since, maxRating, LOW_REVIEWS_SHOWN).map((review) => ({ handle, review })),
    ),
    deliveryIds: deliveriesRaisedSince(db, handles, since),
    timedOut: outcomes.some((o) => o.error?.startsWith('did not finish in time')),
  };
}
