/**
 * One poll of one app (docs/architecture.md, "The flow"): its reading (poll-read.ts), its one transaction
 * (poll-write.ts) and what it logs (poll-log.ts).
 */
import type { OutboxMessage } from '../alerts/messages.js';
import type { AlertPolicy } from '../alerts/raise.js';
import type { Alert } from '../alerts/types.js';
import { type CatalogClient, CatalogNotFoundError, type RatingSummary } from '../catalog/index.js';
import type { Logger } from '../log.js';
import { pollState } from '../store/apps.js';
import type { Store } from '../store/db.js';
import { gapOf } from '../store/gaps.js';
import type { ReviewRow } from '../store/schema.js';
import type { PollState } from '../store/statements.js';
import type { ReviewEdit } from './diff.js';
import { logOutcome } from './poll-log.js';
import { type Fetched, fetchNew } from './poll-read.js';
import { recordUnavailable, writePoll } from './poll-write.js';

export interface PollOptions {
  /** Steady-state page cap. */
  maxPages: number;
  /** How many pages the first (baseline) poll reads. */
  baselinePages: number;
}

export interface PollDeps {
  client: CatalogClient;
  store: Store;
  logger: Logger;
  /** When set, the poll raises alerts into the outbox in its transaction. */
  alerts?: AlertPolicy;
  now?: () => Date;
}

export interface PollProgress {
  handle: string;
  baseline: boolean;
  page: number;
  /** As the API reports it; the poll may stop earlier. */
  totalPages: number | undefined;
  reviewsSeen: number;
}

export type PollStatus = 'ok' | 'baseline' | 'unavailable';

/**
 * What a poll did to the app's burst gap (docs/architecture.md, "Bursts past the page cap"): opened one
 * (the page cap stopped it before a stored review), read on into one and left it open, or closed one.
 */
export interface GapReport {
  state: 'opened' | 'open' | 'closed';
  /** About how many reviews are still unread, when the listing's count tells; 0 once closed. */
  unread: number | null;
}

export interface PollOutcome {
  handle: string;
  status: PollStatus;
  pollRunId: number;
  requests: number;
  /** Newly stored reviews. On a baseline poll they are history and alert on nothing. */
  newReviews: ReviewRow[];
  editedReviews: ReviewEdit[];
  /** Stored reviews marked removed that this poll saw listed again, and cleared (without an alert). */
  restored: number;
  /** The page cap stopped the poll before it reached a stored review: the following polls read on. */
  capped: boolean;
  /** Set when the app had a burst gap, or this poll opened one. */
  gap?: GapReport;
  summary: RatingSummary | undefined;
  /** The kind of each alert this poll raised. */
  alertKinds: Array<Alert['kind']>;
  /** Outbox messages raised by this poll, to enqueue for delivery. */
  messages: OutboxMessage[];
  /** Set on the poll that first found the app missing (404); later polls of a missing app leave it unset. */
  unavailable?: { message: string; newly: boolean };
}

/**
 * One poll of one app: read newest first until a page holds a stored, unchanged review (or the last page,
 * or the cap), then write everything in one transaction. With nothing new it costs one request.
 */
export async function pollApp(
  deps: PollDeps,
  handle: string,
  options: PollOptions,
  onProgress?: (progress: PollProgress) => void,
): Promise<PollOutcome> {
  const now = deps.now ?? (() => new Date());
  const startedAt = now();
  const app = pollState(deps.store.db, handle);
  const baseline = app.baselineAt === null;
  let fetched: Fetched;
  try {
    fetched = await fetchNew(
      deps,
      handle,
      {
        baseline,
        pageCap: baseline ? options.baselinePages : options.maxPages,
        storedPageHash: app.newestPageHash,
        gap: baseline ? undefined : gapOf(app),
      },
      onProgress,
    );
  } catch (err) {
    if (err instanceof CatalogNotFoundError) return recordUnavailable(deps, handle, err, startedAt, now());
    throw err;
  }
  return commit(deps, handle, fetched, app, startedAt, now());
}

async function commit(
  deps: PollDeps,
  handle: string,
  fetched: Fetched,
  app: PollState,
  startedAt: Date,
  finishedAt: Date,
): Promise<PollOutcome> {
  const wasUnavailable = app.unavailableSince !== null;
  // One transaction (shared with concurrent polls' as a savepoint each): prepared statements run on the
  // connection, so everything below is inside it.
  const outcome = await deps.store.writes.run(() =>
    writePoll(deps, handle, fetched, app, { startedAt, finishedAt }),
  );
  logOutcome(deps.logger, outcome, fetched.pages, wasUnavailable);
  return outcome;
}
