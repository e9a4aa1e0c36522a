/**
 * A poll's writing: everything its reading found, and the alerts it raises, in the one transaction the
 * poll opens (`writePoll`); and the run of a poll that found the app missing (`recordUnavailable`).
 */
import { raiseAlerts } from '../alerts/raise.js';
import type { CatalogNotFoundError } from '../catalog/index.js';
import { getApp, pollState, recordPollSuccess, updateApp } from '../store/apps.js';
import type { Store } from '../store/db.js';
import { type Gap, gapOf, newestReviewRowId, saveGap } from '../store/gaps.js';
import { insertPollRun, setPollRunCounts } from '../store/polls.js';
import { reviewChangeOf, reviewRowOf } from '../store/review-fields.js';
import {
  insertNewReviews,
  pageIsStored,
  recordEdit,
  refreshReview,
  restoreListed,
} from '../store/reviews.js';
import { insertSnapshot, latestSnapshot } from '../store/snapshots.js';
import type { PollState } from '../store/statements.js';
import type { Taxonomy } from '../topics/index.js';
import { processId } from '../util/process-id.js';
import type { ReviewEdit } from './diff.js';
import type { GapReport, PollDeps, PollOutcome } from './poll.js';
import type { Fetched, GapAfter } from './poll-read.js';
import { taxonomyOf } from './taxonomy.js';

/**
 * Reviews are dated by day. One dated well before the last successful poll was not written since: it was
 * re-published after being archived, or it was out of reach (an app back in the config after months). It
 * is stored as history, like a baseline, and alerts on nothing. A burst gap's reviews are judged against
 * the last poll before the gap opened: the polls reading it since could not reach them.
 */
const HISTORY_MARGIN_MS = 2 * 86_400_000;

function olderThanLastPoll(created: Date | null, lastSuccessAt: number | null): boolean {
  return created !== null && lastSuccessAt !== null && created.getTime() < lastSuccessAt - HISTORY_MARGIN_MS;
}

/** Everything one poll found, and the alerts it raises, inside the transaction `commit` opened. */
export function writePoll(
  deps: PollDeps,
  handle: string,
  fetched: Fetched,
  app: PollState,
  times: { startedAt: Date; finishedAt: Date },
): PollOutcome {
  const { db } = deps.store;
  const { startedAt, finishedAt } = times;
  const gapBefore = gapOf(app);
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
  // Before this poll's reviews are stored: a gap opened now ends at what is stored now.
  const floorRowId = fetched.gap?.state === 'opened' ? newestReviewRowId(db, handle) : 0;
  const historyBefore = gapBefore ? gapBefore.since : (app.lastSuccessAt?.getTime() ?? null);
  const { newReviews, edits, restored } = storeReviews(db, handle, fetched, {
    baseline,
    historyBefore,
    pollRunId,
    taxonomy: taxonomyOf(deps.alerts),
    ...times,
  });
  const editedReviews: ReviewEdit[] = edits.map(({ known, fetched }) => ({ known, fetched }));
  const listedBefore = fetched.gap ? (latestSnapshot(db, handle)?.count ?? null) : null;
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
          stored: e.change,
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
    newestPageHash: pageHashToKeep(db, handle, fetched),
  });
  const gap =
    fetched.gap &&
    recordGap(db, handle, fetched.gap, {
      before: gapBefore,
      floorRowId,
      since: app.lastSuccessAt?.getTime() ?? null,
      at: finishedAt.getTime(),
      arrived:
        listedBefore === null || fetched.summary.count === null ? null : fetched.summary.count - listedBefore,
      read: newReviews.length,
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
    ...(gap ? { gap } : {}),
    summary: fetched.summary,
    alertKinds: raised.kinds,
    messages: raised.messages,
  };
}

/** Stores the new reviews, the edits and refreshes of stored ones, and clears the removal of relisted ones. */
function storeReviews(
  db: Store['db'],
  handle: string,
  fetched: Fetched,
  context: {
    baseline: boolean;
    historyBefore: number | null;
    pollRunId: number;
    taxonomy: Taxonomy;
    startedAt: Date;
    finishedAt: Date;
  },
) {
  const { pollRunId, finishedAt, taxonomy } = context;
  const stored = {
    taxonomy,
    pollRunId,
    at: finishedAt,
    fromBaseline: (createdAt: Date | null) =>
      context.baseline || olderThanLastPoll(createdAt, context.historyBefore),
  };
  const newReviews = insertNewReviews(
    db,
    fetched.fresh.map((review) => reviewRowOf(handle, review, stored)),
  );
  const edits = fetched.edited.flatMap((edit) => {
    const change = reviewChangeOf(handle, edit.fetched, taxonomy);
    const editId = recordEdit(db, edit.known, change, finishedAt, pollRunId);
    return editId === undefined ? [] : [{ ...edit, editId, change }];
  });
  for (const refresh of fetched.refreshed) {
    refreshReview(db, refresh.known, reviewChangeOf(handle, refresh.fetched, taxonomy), finishedAt);
  }
  // Listed again since a reconciliation marked it removed: the poll need not wait for the next one.
  const restored = restoreListed(db, fetched.relisted, context.startedAt);
  return { newReviews, edits, restored };
}

/**
 * The page-1 hash the next poll may trust. A concurrent poll may have written page 1 differently
 * meanwhile: only a hash of what is stored now may stand for it. A skipped page 1 leaves the stored hash
 * as it is (undefined).
 */
function pageHashToKeep(db: Store['db'], handle: string, fetched: Fetched): string | null | undefined {
  if (!fetched.pageOne) return undefined;
  return pageIsStored(db, handle, fetched.pageOne.reviews) ? fetched.pageOne.hash : null;
}

/** Writes the gap as this poll leaves it, inside its transaction, and says what became of it. */
function recordGap(
  db: Store['db'],
  handle: string,
  after: GapAfter,
  context: {
    before: Gap | undefined;
    floorRowId: number;
    since: number | null;
    at: number;
    /** How much the listing's count grew since the last poll; null when a count is missing. */
    arrived: number | null;
    /** How many reviews this poll stored. */
    read: number;
  },
): GapReport {
  if (after.state === 'closed') {
    saveGap(db, handle, null);
    return { state: 'closed', unread: 0 };
  }
  const { before } = context;
  const kept =
    after.state === 'open' && before
      ? before
      : { openedAt: context.at, floorRowId: context.floorRowId, since: context.since, unread: 0 };
  // Counts can be rounded, and archived reviews leave them: the estimate is only about.
  const unread =
    kept.unread === null || context.arrived === null
      ? null
      : Math.max(0, kept.unread + context.arrived - context.read);
  saveGap(db, handle, { ...kept, offset: after.offset, unread });
  return { state: after.state, unread };
}

/** A 404 marks the app unavailable and says so once; later polls of a missing app stay quiet. */
export async function recordUnavailable(
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
