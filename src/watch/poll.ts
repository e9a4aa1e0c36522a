import type { OutboxMessage } from '../alerts/messages.js';
import { type AlertPolicy, raiseAlerts } from '../alerts/raise.js';
import type { Alert } from '../alerts/types.js';
import {
  type CatalogClient,
  CatalogNotFoundError,
  type FetchedReview,
  identify,
  type RatingSummary,
  summarize,
} from '../catalog/index.js';
import type { Logger } from '../log.js';
import { getApp, pollState, recordPollSuccess, updateApp } from '../store/apps.js';
import type { Store } from '../store/db.js';
import { type Gap, gapOf, newestReviewRowId, saveGap } from '../store/gaps.js';
import { insertPollRun, setPollRunCounts } from '../store/polls.js';
import { reviewChangeOf, reviewRowOf } from '../store/review-fields.js';
import {
  findKnown,
  insertNewReviews,
  pageIsStored,
  recordEdit,
  refreshReview,
  restoreListed,
} from '../store/reviews.js';
import type { ReviewRow } from '../store/schema.js';
import { insertSnapshot, latestSnapshot } from '../store/snapshots.js';
import type { PollState } from '../store/statements.js';
import { plural } from '../util/plural.js';
import { processId } from '../util/process-id.js';
import { diffPage, matchKnown, type ReviewEdit, SeenInPoll } from './diff.js';
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

/** The gap after the pages were read: where its unread part starts now, or closed. */
type GapAfter = { state: 'opened' | 'open'; offset: number } | { state: 'closed' };

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
  /** Unset when the app has no gap and this poll opened none. */
  gap?: GapAfter;
  summary: RatingSummary;
  /**
   * Page 1 and its hash, when the poll diffed it; unset when it matched the stored hash and was skipped.
   * The hash is stored for the next poll only if the store then holds page 1 as read (see commit).
   */
  pageOne?: { hash: string; reviews: FetchedReview[] };
}

interface FetchPlan {
  baseline: boolean;
  pageCap: number;
  storedPageHash: string | null;
  gap: Gap | undefined;
}

/** Reviews a page holds (docs/catalog-api.md); a full page 1 tells the real size if it ever differs. */
const PAGE_SIZE = 10;

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

/**
 * Reads newest first until a page holds a stored, unchanged review (the head), then, when the app has a
 * burst gap, reads on from where the gap's unread part starts now until a page holds a review stored
 * before the gap opened: everything within `pageCap` requests.
 */
async function fetchNew(
  deps: PollDeps,
  handle: string,
  plan: FetchPlan,
  onProgress: ((progress: PollProgress) => void) | undefined,
): Promise<Fetched> {
  const reader = new PageReader(deps, handle, plan, onProgress);
  const head = await readHead(reader, plan);
  if (head.done || !plan.gap) return reader.result;
  await readGap(reader, plan.gap, plan.pageCap, head.fresh);
  return reader.result;
}

/** One poll's reading: the pages it read, diffed against the store, gathered into its result. */
class PageReader {
  readonly result: Fetched;
  readonly #seen = new SeenInPoll();
  reviewsSeen = 0;
  pageSize = PAGE_SIZE;

  constructor(
    private readonly deps: PollDeps,
    private readonly handle: string,
    private readonly plan: FetchPlan,
    private readonly onProgress: ((progress: PollProgress) => void) | undefined,
  ) {
    this.result = {
      baseline: plan.baseline,
      requests: 0,
      pages: 0,
      fresh: [],
      edited: [],
      refreshed: [],
      relisted: [],
      capped: false,
      summary: summarize([]),
    };
  }

  async read(page: number) {
    const response = await this.deps.client.reviews(this.handle, { page, sortBy: 'newest' });
    this.result.requests++;
    this.result.pages++;
    const reviews = response.reviews.map(identify);
    const hasNext = response.pagination?.hasNextPage ?? reviews.length >= this.pageSize;
    return { response, reviews, hasNext, end: !hasNext || reviews.length === 0 };
  }

  diff(page: number, reviews: FetchedReview[], totalPages: number | undefined) {
    const { handle, result, plan } = this;
    const known = findKnown(this.deps.store.db, handle, reviews);
    // Whether the page holds anything already read, before this diff adds its reviews to `seen`.
    const overlaps = reviews.some(
      (review) => this.#seen.has(review) || matchKnown(review, known) !== undefined,
    );
    const pageDiff = diffPage(reviews, known, this.#seen);
    this.reviewsSeen += pageDiff.distinct;
    result.fresh.push(...pageDiff.fresh);
    result.edited.push(...pageDiff.edited);
    result.refreshed.push(...pageDiff.refreshed);
    result.relisted.push(...pageDiff.relisted);
    const progress = { handle, baseline: plan.baseline, page, totalPages, reviewsSeen: this.reviewsSeen };
    if (plan.baseline) logBaselineProgress(this.deps.logger, progress, plan.pageCap);
    this.onProgress?.(progress);
    return { ...pageDiff, known, overlaps };
  }
}

/**
 * The head: what arrived since the last poll, up to a stored, unchanged review. `done` when nothing is
 * left to read (the listing's end, the cap); `fresh`, how many new reviews it found.
 */
async function readHead(reader: PageReader, plan: FetchPlan): Promise<{ done: boolean; fresh: number }> {
  const { result } = reader;
  let fresh = 0;
  for (let page = 1; ; page++) {
    const { response, reviews, hasNext, end } = await reader.read(page);
    if (page === 1) {
      // Page 1's summary is the freshest; later pages are read a moment after it.
      result.summary = summarize(response.summary);
      const hash = pageHash(response.reviews);
      // The store held page 1 exactly so when the hash was stored, and reviews are never deleted:
      // nothing on it is new or edited, and what is older was seen (or is the gap's, read below).
      if (hash === plan.storedPageHash) return { done: false, fresh };
      result.pageOne = { hash, reviews };
      if (hasNext && reviews.length > 0) reader.pageSize = reviews.length;
    }
    const pageDiff = reader.diff(page, reviews, response.pagination?.totalPages);
    fresh += pageDiff.fresh.length;
    if (pageDiff.reachedKnown) return { done: false, fresh };
    if (end) {
      // Read to the listing's end: nothing can be unread below.
      if (plan.gap) result.gap = { state: 'closed' };
      return { done: true, fresh };
    }
    if (page === plan.pageCap) {
      if (plan.baseline) return { done: true, fresh };
      // The burst goes on below: its unread part starts after what this poll read. An older gap lies
      // further down; reading on from here meets it before the reviews stored before it.
      result.capped = true;
      result.gap = { state: plan.gap ? 'open' : 'opened', offset: reader.reviewsSeen };
      return { done: true, fresh };
    }
  }
}

/** The gap: read on from where its unread part starts now, until it closes or the requests run out. */
async function readGap(reader: PageReader, gap: Gap, pageCap: number, headFresh: number): Promise<void> {
  const { result } = reader;
  const { pageSize } = reader;
  // The reviews that arrived since its last poll pushed its unread part down by as many places.
  let offset = gap.offset + headFresh;
  let page = Math.floor(offset / pageSize) + 1;
  let first = true;
  let steppedBackFrom = 0;
  let closes = false;
  // At least one page of the gap per poll, so that even poll.maxPages: 1 closes it in time.
  const limit = Math.max(pageCap, result.requests + 1);
  while (result.requests < limit) {
    const { response, reviews, end } = await reader.read(page);
    const pageDiff = reader.diff(page, reviews, response.pagination?.totalPages);
    // A page holding a review stored before the gap opened, or the listing's end: nothing is unread.
    closes ||=
      end ||
      reviews.some((review) => (matchKnown(review, pageDiff.known)?.rowId ?? Infinity) <= gap.floorRowId);
    // A page that starts inside what was read must hold some of it. If it holds none, reviews above were
    // removed and the unread part moved up: read the page before it too.
    if (first && offset % pageSize !== 0 && !pageDiff.overlaps && page > 1) {
      first = false;
      steppedBackFrom = page;
      page--;
      continue;
    }
    first = false;
    if (closes) {
      result.gap = { state: 'closed' };
      return;
    }
    page = Math.max(page, steppedBackFrom) + 1;
    offset = (page - 1) * pageSize;
  }
  result.gap = { state: 'open', offset };
}

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
  logOutcome(deps.logger, outcome, fetched, wasUnavailable);
  return outcome;
}

/** Everything one poll found, and the alerts it raises, inside the transaction `commit` opened. */
function writePoll(
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
    startedAt: Date;
    finishedAt: Date;
  },
) {
  const { pollRunId, finishedAt } = context;
  const stored = {
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
    const editId = recordEdit(db, edit.known, reviewChangeOf(handle, edit.fetched), finishedAt, pollRunId);
    return editId === undefined ? [] : [{ ...edit, editId }];
  });
  for (const refresh of fetched.refreshed) {
    refreshReview(db, refresh.known, reviewChangeOf(handle, refresh.fetched), finishedAt);
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
  logGap(logger, outcome, fetched.pages);
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
      `${app}: ${plural(outcome.restored, 'review')} marked removed listed again: restored`,
    );
  }
}

function logGap(logger: Logger, outcome: PollOutcome, pages: number): void {
  const { gap, handle: app } = outcome;
  if (!gap) return;
  const unread = gap.unread === null ? 'an unknown number of' : `about ${gap.unread}`;
  if (gap.state === 'opened') {
    logger.warn(
      { app, pages, unread: gap.unread },
      `${app}: no stored review within ${pages} pages (poll.maxPages): ${unread} older reviews are unread; the next polls read on from here`,
    );
  } else if (gap.state === 'open') {
    logger.info(
      { app, pages, unread: gap.unread },
      `${app}: reading on into the burst: ${unread} reviews still unread`,
    );
  } else {
    logger.info({ app, pages }, `${app}: burst read to its end: no review unread`);
  }
}

function logBaselineProgress(logger: Logger, progress: PollProgress, pageCap: number): void {
  const of = Math.min(pageCap, progress.totalPages ?? pageCap);
  logger.info(
    { app: progress.handle, page: progress.page, of },
    `${progress.handle}: baseline page ${progress.page}/${of}, ${progress.reviewsSeen} reviews so far`,
  );
}
