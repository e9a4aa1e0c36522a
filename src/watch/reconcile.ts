/**
 * Reconciliation: a periodic deep check of one app. A poll reads only until it meets a stored review, so
 * what happens below that point goes unseen: a review removed while a poll pages can push another past
 * the page boundary, reviews are archived and published again, and a review without an id that is edited
 * arrives under a new fingerprint. A reconciliation reads the newest `poll.reconcilePages` pages whatever
 * it meets and compares them with what is stored for the time they cover:
 *
 * - a stored review no longer there is marked removed (`removed_at`), without an alert;
 * - a review marked removed that is there again is restored, without an alert;
 * - a review not stored is stored: it alerts, saying "found late", only if it is recent (dated within
 *   LATE_ALERT_WINDOW_MS: today or yesterday, as reviews are dated by day) and low; older ones are history;
 * - an edited review without an id is merged into the row it was stored under, as an edit, instead of
 *   standing beside it as a second review (see `planMerges`).
 *
 * The comparison (`planReconcile`, in reconcile-plan.ts) is pure; reading the pages comes before it, and
 * everything it decides is written in one transaction afterwards, through the store's write batch as a
 * poll's is.
 */
import type { OutboxMessage } from '../alerts/messages.js';
import { type AlertPolicy, type PollFindings, raiseAlerts } from '../alerts/raise.js';
import type { Alert } from '../alerts/types.js';
import {
  type CatalogClient,
  CatalogNotFoundError,
  type FetchedReview,
  identify,
  summarize,
} from '../catalog/index.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { pollState } from '../store/apps.js';
import type { Store, StoreDb } from '../store/db.js';
import { gapOf } from '../store/gaps.js';
import {
  foldDuplicate,
  forgetPageHash,
  insertReconcileRun,
  markRemoved,
  restoreReviews,
  setReconcileRunCounts,
  storedReviews,
} from '../store/reconcile.js';
import { reviewChangeOf, reviewRowOf } from '../store/review-fields.js';
import { insertNewReviews, recordEdit, refreshReview } from '../store/reviews.js';
import type { ReviewRow } from '../store/schema.js';
import type { Taxonomy } from '../topics/index.js';
import { type GapReport, pollApp } from './poll.js';
import { planReconcile, type ReconcilePlan, spanOf } from './reconcile-plan.js';
import { taxonomyOf } from './taxonomy.js';

const DAY_MS = 86_400_000;

/**
 * A review found late alerts only if dated within this long: reviews are dated by day (midnight), so this
 * means today or yesterday. Anything older is stored as history: an alert days late is noise.
 */
export const LATE_ALERT_WINDOW_MS = 2 * DAY_MS;

export interface ReconcileOptions {
  /** How many pages, newest first, to read. */
  pages: number;
}

export interface ReconcileDeps {
  client: CatalogClient;
  store: Store;
  logger: Logger;
  /** When set, reviews found late raise alerts into the outbox in the reconciliation's transaction. */
  alerts?: AlertPolicy;
  now?: () => Date;
}

export interface ReconcileCounts {
  /** Stored reviews no longer listed, now marked removed. */
  removed: number;
  /** Reviews marked removed that are listed again. */
  restored: number;
  /** Reviews the polls missed, now stored. */
  found: number;
  /** Review alerts raised, each saying "found late": for recent low reviews found, and recent edits down. */
  alerted: number;
  /** Edits of stored reviews the polls missed (rating or content). */
  edited: number;
  /** Edited reviews without an id, merged into their stored row (a duplicate row folded in, if any). */
  merged: number;
}

export interface ReconcileOutcome extends ReconcileCounts {
  handle: string;
  /** `skipped`: no baseline yet, or the app is marked unavailable: nothing was read. */
  status: 'ok' | 'skipped' | 'unavailable';
  /** Why it was skipped, or why removals were not judged. */
  note?: string;
  /** The poll run (of kind `reconcile`) this was recorded as; unset when skipped. */
  runId?: number;
  requests: number;
  pages: number;
  /** Every page was read: the whole listing was compared, not only its newest part. */
  complete: boolean;
  /** The kind of each alert raised. */
  alertKinds: Array<Alert['kind']>;
  /** Outbox messages raised, to enqueue for delivery. */
  messages: OutboxMessage[];
  /** Set when the app had a burst gap: the reconciliation read on into it (`readOnIntoGap`). */
  gap?: GapReport;
}

/** A failure after some requests were spent: they are recorded, and counted in the cost, all the same. */
export class ReconcileError extends Error {
  readonly requests: number;
  constructor(cause: unknown, requests: number) {
    super(errorMessage(cause), { cause });
    this.name = 'ReconcileError';
    this.requests = requests;
  }
}

interface Read {
  /** Every review of every page read, newest first, duplicates included (pages shift). */
  reviews: FetchedReview[];
  requests: number;
  pages: number;
  /** The last page read was the last there is. */
  complete: boolean;
  /** Every page carried the same rating summary: nothing was added or removed while reading. */
  stable: boolean;
}

/** One reconciliation of one app; see the top of this file. */
export async function reconcileApp(
  deps: ReconcileDeps,
  handle: string,
  options: ReconcileOptions,
): Promise<ReconcileOutcome> {
  const now = deps.now ?? (() => new Date());
  const startedAt = now();
  const state = pollState(deps.store.db, handle);
  if (state.baselineAt === null || state.unavailableSince !== null) {
    const note = state.baselineAt === null ? 'no baseline yet' : 'marked unavailable';
    deps.logger.debug({ app: handle }, `reconciliation of ${handle} skipped: ${note}`);
    return { ...skipped(handle), note };
  }
  let read: Read;
  const spent = { requests: 0 };
  try {
    read = await readPages(deps.client, handle, options.pages, spent);
  } catch (err) {
    const missing = err instanceof CatalogNotFoundError ? err : undefined;
    const runId = await deps.store.writes.run(() =>
      insertReconcileRun(deps.store.db, {
        appHandle: handle,
        startedAt,
        finishedAt: now(),
        status: missing ? 'unavailable' : 'failed',
        requests: spent.requests,
        pages: 0,
        error: errorMessage(err),
      }),
    );
    // The poll marks an app unavailable and says so; a reconciliation only records that it could not run.
    if (missing) {
      return {
        ...skipped(handle),
        status: 'unavailable',
        note: missing.message,
        runId,
        requests: spent.requests,
      };
    }
    throw new ReconcileError(err, spent.requests);
  }
  const outcome = await deps.store.writes.run(() => commit(deps, handle, read, startedAt, now()));
  logOutcome(deps.logger, outcome);
  return gapOf(pollState(deps.store.db, handle)) ? readOnIntoGap(deps, handle, outcome) : outcome;
}

/**
 * Past the newest pages, a reconciliation reads an open burst gap to its end: those pages cost the same
 * whenever they are read, and a daily deep look should leave nothing unread. It runs as a poll of the
 * app (its own run, alerts and all), bounded so that one job stays finite.
 */
export const GAP_PAGES_PER_RECONCILIATION = 1_000;

async function readOnIntoGap(
  deps: ReconcileDeps,
  handle: string,
  outcome: ReconcileOutcome,
): Promise<ReconcileOutcome> {
  const poll = await pollApp(deps, handle, { maxPages: GAP_PAGES_PER_RECONCILIATION, baselinePages: 1 });
  return {
    ...outcome,
    ...(poll.gap ? { gap: poll.gap } : {}),
    alertKinds: [...outcome.alertKinds, ...poll.alertKinds],
    messages: [...outcome.messages, ...poll.messages],
  };
}

function skipped(handle: string): ReconcileOutcome {
  return {
    handle,
    status: 'skipped',
    requests: 0,
    pages: 0,
    complete: false,
    ...NO_CHANGES,
    alertKinds: [],
    messages: [],
  };
}

const NO_CHANGES: ReconcileCounts = { removed: 0, restored: 0, found: 0, alerted: 0, edited: 0, merged: 0 };

async function readPages(
  client: CatalogClient,
  handle: string,
  pageCap: number,
  spent: { requests: number },
): Promise<Read> {
  const read: Read = { reviews: [], requests: 0, pages: 0, complete: false, stable: true };
  let firstSummary: string | undefined;
  for (let page = 1; page <= pageCap; page++) {
    // Counted before it is answered: a failed request costs a credit too.
    spent.requests++;
    read.requests = spent.requests;
    const response = await client.reviews(handle, { page, sortBy: 'newest' });
    read.pages = page;
    const summary = JSON.stringify(summarize(response.summary).distribution);
    firstSummary ??= summary;
    if (summary !== firstSummary) read.stable = false;
    read.reviews.push(...response.reviews.map(identify));
    const hasNext = response.pagination?.hasNextPage ?? response.reviews.length >= 10;
    if (!hasNext || response.reviews.length === 0) {
      read.complete = true;
      break;
    }
  }
  return read;
}

function commit(
  deps: ReconcileDeps,
  handle: string,
  read: Read,
  startedAt: Date,
  finishedAt: Date,
): ReconcileOutcome {
  const { db } = deps.store;
  const span = spanOf(read.reviews, read.complete);
  const fallback = read.reviews.filter((r) => r.fallbackIdentity);
  // Inside the transaction: a poll that wrote meanwhile is seen, and nothing changes under the plan.
  const stored = storedReviews(db, handle, {
    identities: read.reviews.map((r) => r.identity),
    fingerprints: read.reviews.map((r) => r.fingerprint),
    reviewers: fallback.map((r) => r.reviewer),
    span,
  });
  const plan = planReconcile({
    fetched: read.reviews,
    stored,
    span,
    stable: read.stable,
    readStartedAt: startedAt.getTime(),
    recentSince: finishedAt.getTime() - LATE_ALERT_WINDOW_MS,
  });
  const runId = insertReconcileRun(db, {
    appHandle: handle,
    startedAt,
    finishedAt,
    status: 'ok',
    requests: read.requests,
    pages: read.pages,
  });
  const applied = apply(db, handle, plan, { runId, at: finishedAt, taxonomy: taxonomyOf(deps.alerts) });
  const changed = Object.values(applied.counts).some((n) => n > 0);
  // The stored hash of page 1 vouches that the store holds that page exactly: after changes, re-read it.
  if (changed) forgetPageHash(db, handle);
  const raised = deps.alerts
    ? raiseAlerts(db, deps.alerts, {
        handle,
        pollRunId: runId,
        baseline: false,
        newReviews: applied.found,
        edits: applied.alertableEdits,
        foundLate: true,
        at: finishedAt,
      })
    : { kinds: [], messages: [] };
  const counts = { ...applied.counts, alerted: raised.kinds.filter((kind) => kind === 'review').length };
  if (counts.found + counts.edited + counts.merged > 0) {
    setReconcileRunCounts(db, runId, counts.found, counts.edited + counts.merged);
  }
  return {
    handle,
    status: 'ok',
    ...(plan.removalsSkipped ? { note: `removals not judged: ${plan.removalsSkipped}` } : {}),
    runId,
    requests: read.requests,
    pages: read.pages,
    complete: read.complete,
    ...counts,
    alertKinds: raised.kinds,
    messages: raised.messages,
  };
}

interface Applied {
  counts: Omit<ReconcileCounts, 'alerted'>;
  /** Stored reviews found late; only the recent ones are not history (`fromBaseline` false). */
  found: ReviewRow[];
  alertableEdits: PollFindings['edits'];
}

function apply(
  db: StoreDb,
  handle: string,
  plan: ReconcilePlan,
  run: { runId: number; at: Date; taxonomy: Taxonomy },
): Applied {
  const { runId, at, taxonomy } = run;
  const found = insertNewReviews(
    db,
    // Not recent: history, as a baseline's is, alerting on nothing.
    plan.missed.map(({ review, recent }) =>
      reviewRowOf(handle, review, { taxonomy, pollRunId: runId, at, fromBaseline: !recent }),
    ),
  );
  const alertableEdits: Applied['alertableEdits'] = [];
  let edited = 0;
  for (const edit of plan.edits) {
    const change = reviewChangeOf(handle, edit.fetched, taxonomy);
    const editId = recordEdit(db, edit.known, change, at, runId);
    if (editId === undefined) continue;
    edited++;
    if (edit.recent) {
      alertableEdits.push({
        editId,
        rowId: edit.known.rowId,
        oldRating: edit.known.rating,
        fetched: edit.fetched,
        stored: change,
      });
    }
  }
  for (const refresh of plan.refreshes)
    refreshReview(db, refresh.known, reviewChangeOf(handle, refresh.fetched, taxonomy), at);
  let merged = 0;
  for (const merge of plan.merges) {
    const { into, fetched } = merge;
    const change = reviewChangeOf(handle, fetched, taxonomy);
    let editId: number | undefined;
    if (into.rating !== fetched.rating || into.content !== fetched.content) {
      editId = recordEdit(db, into, change, at, runId);
      if (editId === undefined) continue;
    } else {
      refreshReview(db, into, change, at);
    }
    if (merge.duplicate) foldDuplicate(db, into.rowId, merge.duplicate.rowId);
    // A duplicate was alerted on (if at all) when a poll stored it as new: the merge raises nothing more.
    else if (editId !== undefined && merge.recent) {
      alertableEdits.push({ editId, rowId: into.rowId, oldRating: into.rating, fetched, stored: change });
    }
    merged++;
  }
  return {
    counts: {
      found: found.length,
      edited,
      merged,
      restored: restoreReviews(db, plan.restored),
      removed: markRemoved(db, plan.removed, at),
    },
    found,
    alertableEdits,
  };
}

function logOutcome(logger: Logger, outcome: ReconcileOutcome): void {
  const app = outcome.handle;
  const { removed, restored, found, alerted, edited, merged } = outcome;
  const fields = { app, requests: outcome.requests, removed, restored, found, alerted, edited, merged };
  if (outcome.note) logger.info({ app }, `reconciliation of ${app}: ${outcome.note}`);
  if (removed + restored + found + edited + merged > 0) {
    logger.info(
      fields,
      `reconciliation of ${app}: ${found} found late, ${edited} edits and ${merged} merged edits the polls missed (${alerted} alerted), ${removed} removed, ${restored} restored`,
    );
  } else {
    logger.debug(fields, `reconciliation of ${app}: the store matches the listing`);
  }
}
