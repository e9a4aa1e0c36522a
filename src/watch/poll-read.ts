/**
 * A poll's reading: newest first until a page holds a stored, unchanged review (the head), then on into
 * an open burst gap, each page diffed against the store as it comes. Nothing is written here: the pages'
 * findings go to the poll's transaction (poll-write.ts).
 */
import { type FetchedReview, identify, type RatingSummary, summarize } from '../catalog/index.js';
import type { Gap } from '../store/gaps.js';
import { findKnown } from '../store/reviews.js';
import { diffPage, matchKnown, type ReviewEdit, SeenInPoll } from './diff.js';
import { pageHash } from './page-hash.js';
import type { PollDeps, PollProgress } from './poll.js';
import { logBaselineProgress } from './poll-log.js';

/** The gap after the pages were read: where its unread part starts now, or closed. */
export type GapAfter = { state: 'opened' | 'open'; offset: number } | { state: 'closed' };

export interface Fetched {
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

export interface FetchPlan {
  baseline: boolean;
  pageCap: number;
  storedPageHash: string | null;
  gap: Gap | undefined;
}

/** Reviews a page holds (docs/catalog-api.md); a full page 1 tells the real size if it ever differs. */
const PAGE_SIZE = 10;

/**
 * Reads newest first until a page holds a stored, unchanged review (the head), then, when the app has a
 * burst gap, reads on from where the gap's unread part starts now until a page holds a review stored
 * before the gap opened: everything within `pageCap` requests.
 */
export async function fetchNew(
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
