import type { OutboxMessage } from '../alerts/messages.js';
import { type AlertPolicy, raiseAlerts } from '../alerts/raise.js';
import type { Alert } from '../alerts/types.js';
import {
  type CatalogClient,
  CatalogNotFoundError,
  type FetchedReview,
  identify,
  parseReviewDate,
  type RatingSummary,
  summarize,
} from '../catalog/index.js';
import type { Logger } from '../log.js';
import { getApp, pollState, recordPollSuccess, updateApp } from '../store/apps.js';
import type { Store } from '../store/db.js';
import { insertPollRun, setPollRunCounts } from '../store/polls.js';
import {
  findKnown,
  insertNewReviews,
  pageIsStored,
  type ReviewChange,
  recordEdit,
  refreshReview,
  restoreListed,
} from '../store/reviews.js';
import type { ReviewRow } from '../store/schema.js';
import { insertSnapshot } from '../store/snapshots.js';
import { processId } from '../util/process-id.js';
import { diffPage, type ReviewEdit, SeenInPoll } from './diff.js';
import { pageHash } from './page-hash.js';

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
  /** The page cap stopped the poll before it reached a stored review: older new reviews may be missed. */
  capped: boolean;
  summary: RatingSummary | undefined;
  /** The kind of each alert this poll raised. */
  alertKinds: Array<Alert['kind']>;
  /** Outbox messages raised by this poll, to enqueue for delivery. */
  messages: OutboxMessage[];
  /** Set on the poll that first found the app missing (404); later polls of a missing app leave it unset. */
  unavailable?: { message: string; newly: boolean };
}

interface Fetched {
  baseline: boolean;
  requests: number;
  pages: number;
  fresh: FetchedReview[];
  edited: ReviewEdit[];
  refreshed: ReviewEdit[];
  /** Row ids of the stored reviews marked removed that the pages held (see PageDiff.relisted). */
  relisted: number[];
  capped: boolean;
  summary: RatingSummary;
  /**
   * Page 1 and its hash, when the poll diffed it; unset when it matched the stored hash and was skipped.
   * The hash is stored for the next poll only if the store then holds page 1 as read (see commit).
   */
  pageOne?: { hash: string; reviews: FetchedReview[] };
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
      },
      onProgress,
    );
  } catch (err) {
    if (err instanceof CatalogNotFoundError) return recordUnavailable(deps, handle, err, startedAt, now());
    throw err;
  }
  return commit(deps, handle, fetched, app, startedAt, now());
}

async function fetchNew(
  deps: PollDeps,
  handle: string,
  plan: { baseline: boolean; pageCap: number; storedPageHash: string | null },
  onProgress: ((progress: PollProgress) => void) | undefined,
): Promise<Fetched> {
  const { baseline, pageCap } = plan;
  const seen = new SeenInPoll();
  let reviewsSeen = 0;
  const result: Fetched = {
    baseline,
    requests: 0,
    pages: 0,
    fresh: [],
    edited: [],
    refreshed: [],
    relisted: [],
    capped: false,
    summary: summarize([]),
  };
  for (let page = 1; page <= pageCap; page++) {
    const response = await deps.client.reviews(handle, { page, sortBy: 'newest' });
    result.requests++;
    result.pages = page;
    let hash: string | undefined;
    if (page === 1) {
      // Page 1's summary is the freshest; later pages are read a moment after it.
      result.summary = summarize(response.summary);
      hash = pageHash(response.reviews);
      // The store held page 1 exactly so when the hash was stored, and reviews are never deleted:
      // nothing on it is new or edited, and what is older was seen.
      if (hash === plan.storedPageHash) return result;
    }
    const reviews = response.reviews.map(identify);
    if (hash !== undefined) result.pageOne = { hash, reviews };

    const known = findKnown(deps.store.db, handle, reviews);
    const diff = diffPage(reviews, known, seen);
    reviewsSeen += diff.distinct;
    result.fresh.push(...diff.fresh);
    result.edited.push(...diff.edited);
    result.refreshed.push(...diff.refreshed);
    result.relisted.push(...diff.relisted);

    const hasNext = response.pagination?.hasNextPage ?? reviews.length >= 10;
    const progress = { handle, baseline, page, totalPages: response.pagination?.totalPages, reviewsSeen };
    if (baseline) logBaselineProgress(deps.logger, progress, pageCap);
    onProgress?.(progress);
    if (diff.reachedKnown || !hasNext || reviews.length === 0) return result;
    if (page === pageCap) result.capped = !baseline;
  }
  return result;
}

/**
 * Reviews are dated by day. One dated well before the last successful poll was not written since: it was
 * re-published after being archived, or it was out of reach (an app back in the config after months, a
 * capped poll). It is stored as history, like a baseline, and alerts on nothing.
 */
const HISTORY_MARGIN_MS = 2 * 86_400_000;

function olderThanLastPoll(created: Date | null, lastSuccessAt: number | null): boolean {
  return created !== null && lastSuccessAt !== null && created.getTime() < lastSuccessAt - HISTORY_MARGIN_MS;
}

function changeOf(handle: string, review: FetchedReview): ReviewChange {
  return {
    appHandle: handle,
    identity: review.identity,
    reviewId: review.reviewId,
    fingerprint: review.fingerprint,
    rating: review.rating,
    content: review.content,
    createdDate: review.createdDate,
    createdAt: parseReviewDate(review.createdDate),
  };
}

async function commit(
  deps: PollDeps,
  handle: string,
  fetched: Fetched,
  app: { unavailableSince: number | null; lastSuccessAt: number | null },
  startedAt: Date,
  finishedAt: Date,
): Promise<PollOutcome> {
  const wasUnavailable = app.unavailableSince !== null;
  const { lastSuccessAt } = app;
  const { db } = deps.store;
  // One transaction (shared with concurrent polls' as a savepoint each): prepared statements run on the
  // connection, so everything below is inside it.
  const outcome = await deps.store.writes.run(() => {
    // A concurrent poll may have finished the baseline meanwhile: re-read inside the write lock.
    const baseline = fetched.baseline && pollState(db, handle).baselineAt === null;
    const status = baseline ? 'baseline' : 'ok';
    const pollRunId = insertPollRun(db, {
      appHandle: handle,
      startedAt,
      finishedAt,
      status,
      requests: fetched.requests,
      pages: fetched.pages,
      newReviews: 0,
      editedReviews: 0,
      capped: fetched.capped,
    });
    const newReviews = insertNewReviews(
      db,
      fetched.fresh.map((review) => {
        const change = changeOf(handle, review);
        return {
          ...change,
          location: review.location,
          reviewer: review.reviewer,
          timeUsingApp: review.timeUsingApp,
          appName: review.appName,
          appUrl: review.appUrl,
          fromBaseline: baseline || olderThanLastPoll(change.createdAt, lastSuccessAt),
          firstSeenAt: finishedAt,
          updatedAt: finishedAt,
          pollRunId,
        };
      }),
    );
    const edits = fetched.edited.flatMap((edit) => {
      const editId = recordEdit(db, edit.known, changeOf(handle, edit.fetched), finishedAt, pollRunId);
      return editId === undefined ? [] : [{ ...edit, editId }];
    });
    const editedReviews: ReviewEdit[] = edits.map(({ known, fetched }) => ({ known, fetched }));
    for (const refresh of fetched.refreshed) {
      refreshReview(db, refresh.known, changeOf(handle, refresh.fetched), finishedAt);
    }
    // Listed again since a reconciliation marked it removed: the poll need not wait for the next one.
    const restored = restoreListed(db, fetched.relisted, startedAt);
    insertSnapshot(db, handle, fetched.summary, finishedAt, pollRunId);
    if (newReviews.length + editedReviews.length > 0) {
      setPollRunCounts(db, pollRunId, newReviews.length, editedReviews.length);
    }
    const raised = deps.alerts
      ? raiseAlerts(db, deps.alerts, {
          handle,
          pollRunId,
          baseline,
          newReviews,
          edits: edits.map((e) => ({
            editId: e.editId,
            rowId: e.known.rowId,
            oldRating: e.known.rating,
            fetched: e.fetched,
          })),
          summary: fetched.summary,
          at: finishedAt,
        })
      : { kinds: [], messages: [] };
    recordPollSuccess(db, handle, {
      status,
      startedAt,
      at: finishedAt,
      title: newReviews[0]?.appName,
      // A concurrent poll may have written page 1 differently meanwhile: only a hash of what is stored
      // now may stand for it. A skipped page 1 leaves the stored hash as it is.
      newestPageHash: fetched.pageOne
        ? pageIsStored(db, handle, fetched.pageOne.reviews)
          ? fetched.pageOne.hash
          : null
        : undefined,
    });
    return {
      handle,
      status,
      pollRunId,
      requests: fetched.requests,
      newReviews,
      editedReviews,
      restored,
      capped: fetched.capped,
      summary: fetched.summary,
      alertKinds: raised.kinds,
      messages: raised.messages,
    } as const;
  });
  logOutcome(deps.logger, outcome, fetched, wasUnavailable);
  return outcome;
}

/** A 404 marks the app unavailable and says so once; later polls of a missing app stay quiet. */
async function recordUnavailable(
  deps: PollDeps,
  handle: string,
  err: CatalogNotFoundError,
  startedAt: Date,
  finishedAt: Date,
): Promise<PollOutcome> {
  const { db } = deps.store;
  const { pollRunId, newly } = await deps.store.writes.run(() => {
    const app = getApp(db, handle);
    const newly = app?.unavailableSince == null;
    const id = insertPollRun(db, {
      appHandle: handle,
      startedAt,
      finishedAt,
      status: 'unavailable',
      requests: 1,
      pages: 0,
      newReviews: 0,
      editedReviews: 0,
      error: err.message,
    });
    updateApp(db, handle, {
      lastPollAt: finishedAt,
      lastPollStatus: 'unavailable',
      lastPollBy: processId(),
      lastError: err.message,
      ...(newly ? { unavailableSince: finishedAt, unavailableReason: err.message } : {}),
    });
    return { pollRunId: id, newly };
  });
  if (newly) deps.logger.warn({ app: handle }, `${err.message} Marked unavailable; polls continue quietly.`);
  else deps.logger.debug({ app: handle }, 'still unavailable');
  return {
    handle,
    status: 'unavailable',
    pollRunId,
    requests: 1,
    newReviews: [],
    editedReviews: [],
    restored: 0,
    capped: false,
    summary: undefined,
    alertKinds: [],
    messages: [],
    unavailable: { message: err.message, newly },
  };
}

function logOutcome(logger: Logger, outcome: PollOutcome, fetched: Fetched, wasUnavailable: boolean): void {
  const app = outcome.handle;
  if (wasUnavailable) logger.info({ app }, `${app} answers again: no longer marked unavailable`);
  const fallback = outcome.newReviews.filter((r) => r.identity.startsWith('fp:'));
  for (const review of fallback) {
    logger.info(
      { app, identity: review.identity, reviewer: review.reviewer, date: review.createdDate },
      'review came without a review_id: stored under a fingerprint of reviewer, date and content',
    );
  }
  if (outcome.capped) {
    logger.warn(
      { app, pages: fetched.pages },
      `${app}: no stored review within ${fetched.pages} pages (poll.maxPages); older new reviews, if any, were not read`,
    );
  }
  const fields = {
    app,
    requests: outcome.requests,
    new: outcome.newReviews.length,
    edited: outcome.editedReviews.length,
    rating: outcome.summary?.average === null ? undefined : outcome.summary?.average?.toFixed(2),
  };
  if (outcome.status === 'baseline') {
    logger.info(fields, `${app}: baseline stored ${outcome.newReviews.length} reviews (history, no alerts)`);
  } else if (outcome.newReviews.length > 0 || outcome.editedReviews.length > 0) {
    logger.info(fields, `${app}: ${outcome.newReviews.length} new, ${outcome.editedReviews.length} edited`);
  } else {
    logger.debug(fields, `${app}: nothing new`);
  }
  if (outcome.restored > 0) {
    logger.info(
      { app, restored: outcome.restored },
      `${app}: ${outcome.restored} ${outcome.restored === 1 ? 'review' : 'reviews'} marked removed listed again: restored`,
    );
  }
}

function logBaselineProgress(logger: Logger, progress: PollProgress, pageCap: number): void {
  const of = Math.min(pageCap, progress.totalPages ?? pageCap);
  logger.info(
    { app: progress.handle, page: progress.page, of },
    `${progress.handle}: baseline page ${progress.page}/${of}, ${progress.reviewsSeen} reviews so far`,
  );
}
