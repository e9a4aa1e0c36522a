/**
 * What a reconciliation decides (watch/reconcile.ts), pure: the reviews read compared with the rows stored
 * for the span they cover. Reviews the polls missed, edits and refreshes they did not see, edited reviews
 * without an id merged into the row they were stored as (`planMerges`), and the rows to mark removed or
 * restored. Reading the pages comes before it, and the transaction that writes the plan after.
 */
import { type FetchedReview, parseReviewDate } from '../catalog/index.js';
import type { StoredReview } from '../store/reconcile.js';
import type { KnownLookup } from '../store/reviews.js';
import { diffPage, matchKnown, SeenInPoll } from './diff.js';

/** Everything the comparison decided, for the transaction to write. */
export interface ReconcilePlan {
  /** Listed but not stored: the polls missed them. Only `recent` ones may alert. */
  missed: Array<{ review: FetchedReview; recent: boolean }>;
  /** Stored reviews whose rating or content changed, unseen by the polls. */
  edits: Array<{ known: StoredReview; fetched: FetchedReview; recent: boolean }>;
  /** Stored reviews whose date moved, or whose id came back: brought up to date, not edits. */
  refreshes: Array<{ known: StoredReview; fetched: FetchedReview }>;
  /** Edited reviews without an id, and the row each is (see planMerges). */
  merges: Merge[];
  /** Row ids to mark removed. */
  removed: number[];
  /** Row ids to clear the removal mark of. */
  restored: number[];
  /** Set when removals were not judged, saying why. */
  removalsSkipped?: string;
}

export interface Merge {
  /** The stored row the review was first stored as: it stays. */
  into: StoredReview;
  /** The review as listed now. */
  fetched: FetchedReview;
  /** A second row a poll stored it as after the edit: folded into `into`. */
  duplicate?: StoredReview;
  recent: boolean;
}

export interface ReconcileInput {
  /** The reviews read, newest first (duplicates included). */
  fetched: readonly FetchedReview[];
  /** The stored rows the reviews may be, those of the span, and those by the reviewers of id-less ones. */
  stored: readonly StoredReview[];
  /** The span the read covers (see spanOf). */
  span: number | 'all' | null;
  /** Removals are judged only when the listing held still while it was read. */
  stable: boolean;
  /** When the reading started: a row a poll wrote since is newer than what was read, and left alone. */
  readStartedAt: number;
  /** Reviews dated from this moment on are recent enough to alert when found late. */
  recentSince: number;
}

/**
 * The span of the listing the read covers: everything when it reached the last page, else what is dated
 * after the oldest day read (that day may go on on the next page). Null when no review has a date.
 */
export function spanOf(fetched: readonly FetchedReview[], complete: boolean): number | 'all' | null {
  if (complete) return 'all';
  let oldest: number | null = null;
  for (const review of fetched) {
    const at = parseReviewDate(review.createdDate)?.getTime();
    if (at !== undefined && (oldest === null || at < oldest)) oldest = at;
  }
  return oldest;
}

/** Compares what was read with what is stored; pure. */
export function planReconcile(input: ReconcileInput): ReconcilePlan {
  const lookup = lookupOf(input.stored);
  const rows = new Map(input.stored.map((row) => [row.rowId, row]));
  const row = (known: { rowId: number }) => rows.get(known.rowId) as StoredReview;
  // What a poll wrote since the read began is newer than the read: leave it be.
  const settled = (r: StoredReview) =>
    r.updatedAt.getTime() < input.readStartedAt && r.firstSeenAt.getTime() < input.readStartedAt;
  const recent = (review: FetchedReview) => {
    const at = parseReviewDate(review.createdDate);
    return at !== null && at.getTime() >= input.recentSince;
  };

  const diff = diffPage(input.fetched, lookup, new SeenInPoll());
  const pairs = matchedPairs(input.fetched, lookup, row);
  const merges = planMerges(pairs, diff.fresh, input.stored, settled);
  const mergedFetched = new Set(merges.map((m) => m.fetched));
  const mergedRows = new Set(
    merges.flatMap((m) => [m.into.rowId, ...(m.duplicate ? [m.duplicate.rowId] : [])]),
  );

  const listed = new Set([...pairs.map((p) => p.row.rowId), ...merges.map((m) => m.into.rowId)]);
  const plan: ReconcilePlan = {
    missed: diff.fresh
      .filter((r) => !mergedFetched.has(r))
      .map((review) => ({ review, recent: recent(review) })),
    edits: diff.edited
      .filter((e) => settled(row(e.known)) && !mergedRows.has(e.known.rowId))
      .map((e) => ({ known: row(e.known), fetched: e.fetched, recent: recent(e.fetched) })),
    refreshes: diff.refreshed
      .filter((e) => settled(row(e.known)) && !mergedRows.has(e.known.rowId))
      .map((e) => ({ known: row(e.known), fetched: e.fetched })),
    merges: merges.map((m) => ({ ...m, recent: recent(m.fetched) })),
    removed: [],
    restored: input.stored.filter((r) => listed.has(r.rowId) && r.removedAt !== null).map((r) => r.rowId),
  };
  const skip = removalsSkipped(input);
  if (skip !== undefined) {
    plan.removalsSkipped = skip;
    return plan;
  }
  const span = input.span as number | 'all';
  plan.removed = input.stored
    .filter(
      (r) =>
        r.removedAt === null &&
        !listed.has(r.rowId) &&
        !mergedRows.has(r.rowId) &&
        settled(r) &&
        (span === 'all' || (r.createdAt !== null && r.createdAt.getTime() > span)),
    )
    .map((r) => r.rowId);
  return plan;
}

function removalsSkipped(input: ReconcileInput): string | undefined {
  if (input.fetched.length === 0) return 'the listing answered with no reviews';
  if (!input.stable) return 'the listing changed while it was read';
  if (input.span === null) return 'no review read had a date';
  return undefined;
}

function lookupOf(stored: readonly StoredReview[]): KnownLookup {
  const byIdentity = new Map<string, StoredReview>();
  const byFingerprint = new Map<string, StoredReview>();
  for (const row of stored) {
    byIdentity.set(row.identity, row);
    byFingerprint.set(row.fingerprint, row);
  }
  return { byIdentity, byFingerprint };
}

interface Pair {
  fetched: FetchedReview;
  row: StoredReview;
}

/** Each distinct fetched review that is stored, with its row; deduplicated as a poll does. */
function matchedPairs(
  fetched: readonly FetchedReview[],
  lookup: KnownLookup,
  row: (known: { rowId: number }) => StoredReview,
): Pair[] {
  const seen = new SeenInPoll();
  const pairs: Pair[] = [];
  for (const review of fetched) {
    if (seen.has(review)) continue;
    const match = matchKnown(review, lookup);
    seen.add(review, match?.identity);
    if (match) pairs.push({ fetched: review, row: row(match) });
  }
  return pairs;
}

/** What survives an edit of a review: who wrote it and where from (its date becomes the edit's). */
function authorKey(review: { reviewer: string; location: string }): string {
  return JSON.stringify([review.reviewer, review.location]);
}

/**
 * A review without an id is stored under a fingerprint of reviewer, date and content; an edit changes
 * the content (or the rating) and re-dates it, so it comes back as a stranger. What survives the edit is
 * the reviewer and their location, and a store reviews an app once: a listed review without an id is the
 * edit of a stored row by the same reviewer and location that is no longer listed, dated no later.
 *
 * Only where that is unambiguous: one listed review by that reviewer and location, and exactly one such
 * row unlisted. A listed review not stored yet becomes an edit of that row; one a poll already stored as
 * a new review (a second row, stored after the first) is folded into it, the edit recorded.
 */
function planMerges(
  pairs: readonly Pair[],
  fresh: readonly FetchedReview[],
  stored: readonly StoredReview[],
  settled: (row: StoredReview) => boolean,
): Array<Omit<Merge, 'recent'>> {
  const listedRows = new Set(pairs.map((p) => p.row.rowId));
  const listedByAuthor = new Map<string, Array<{ fetched: FetchedReview; row?: StoredReview }>>();
  for (const item of [...pairs, ...fresh.map((review) => ({ fetched: review }))]) {
    const key = authorKey(item.fetched);
    listedByAuthor.set(key, [...(listedByAuthor.get(key) ?? []), item]);
  }
  const unlistedByAuthor = new Map<string, StoredReview[]>();
  for (const row of stored) {
    if (listedRows.has(row.rowId) || !settled(row)) continue;
    const key = authorKey(row);
    unlistedByAuthor.set(key, [...(unlistedByAuthor.get(key) ?? []), row]);
  }
  const merges: Array<Omit<Merge, 'recent'>> = [];
  for (const [key, listed] of listedByAuthor) {
    const unlisted = unlistedByAuthor.get(key) ?? [];
    const [item] = listed;
    const [into] = unlisted;
    if (listed.length !== 1 || unlisted.length !== 1 || !item || !into) continue;
    if (!item.fetched.fallbackIdentity || !datedNoLater(into, item.fetched)) continue;
    if (!item.row) {
      merges.push({ into, fetched: item.fetched });
    } else if (
      item.row.identity.startsWith('fp:') &&
      settled(item.row) &&
      item.row.firstSeenAt > into.firstSeenAt &&
      item.row.fingerprint === item.fetched.fingerprint
    ) {
      merges.push({ into, fetched: item.fetched, duplicate: item.row });
    }
  }
  return merges;
}

/** The stored row is dated no later than the review listed now (an edit re-dates it to the edit's day). */
function datedNoLater(row: StoredReview, review: FetchedReview): boolean {
  const listedAt = parseReviewDate(review.createdDate);
  return row.createdAt === null || listedAt === null || row.createdAt <= listedAt;
}
