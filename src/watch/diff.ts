import type { FetchedReview } from './identity.js';

/** What the store knows of a review, enough to tell new, edited and unchanged apart. */
export interface KnownReview {
  rowId: number;
  identity: string;
  fingerprint: string;
  rating: number;
  content: string;
  createdDate: string;
}

export interface KnownLookup {
  byIdentity: ReadonlyMap<string, KnownReview>;
  byFingerprint: ReadonlyMap<string, KnownReview>;
}

export interface ReviewEdit {
  known: KnownReview;
  fetched: FetchedReview;
}

export interface PageDiff {
  /** Not stored yet. */
  fresh: FetchedReview[];
  /** Stored, with a different rating or content. */
  edited: ReviewEdit[];
  /**
   * Stored, same rating and content, but something else to bring up to date: its date moved, or it is
   * stored under a fingerprint and now arrives with a review_id.
   */
  refreshed: ReviewEdit[];
  /** A stored review, unchanged: everything older was seen by an earlier poll. */
  reachedKnown: boolean;
  /** Reviews on this page not already met earlier in the poll. */
  distinct: number;
}

/**
 * Classifies one page of reviews against the store. `seen` carries the identities already handled in this
 * poll: newest-first pages shift while reviews arrive, so one review can show up on two pages.
 */
export function diffPage(
  fetched: ReadonlyArray<FetchedReview>,
  known: KnownLookup,
  seen: Set<string>,
): PageDiff {
  const diff: PageDiff = { fresh: [], edited: [], refreshed: [], reachedKnown: false, distinct: 0 };
  for (const review of fetched) {
    // A review without an id has `fp:<fingerprint>` as its identity, so this also catches one that
    // showed up earlier in the poll with its id. Two reviews with different ids are never merged.
    if (seen.has(review.identity)) continue;
    seen.add(review.identity);
    seen.add(`fp:${review.fingerprint}`);
    diff.distinct++;

    // By fingerprint only where one side has no id: the same review came back once with its id and
    // once without. Two reviews with ids are different reviews, however alike (star-only, same day).
    const byFingerprint = known.byFingerprint.get(review.fingerprint);
    const match =
      known.byIdentity.get(review.identity) ??
      (byFingerprint && (review.fallbackIdentity || byFingerprint.identity.startsWith('fp:'))
        ? byFingerprint
        : undefined);
    if (!match) {
      diff.fresh.push(review);
      continue;
    }
    seen.add(match.identity);
    if (match.rating !== review.rating || match.content !== review.content) {
      diff.edited.push({ known: match, fetched: review });
    } else if (
      match.createdDate !== review.createdDate ||
      (match.identity !== review.identity && !review.fallbackIdentity)
    ) {
      diff.refreshed.push({ known: match, fetched: review });
      // An id that came back, on a review still in its place, marks the boundary as well as any.
      if (match.createdDate === review.createdDate) diff.reachedKnown = true;
    } else {
      diff.reachedKnown = true;
    }
  }
  return diff;
}
