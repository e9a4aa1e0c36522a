import type { FetchedReview } from '../catalog/index.js';
import type { KnownLookup, KnownReview } from '../store/reviews.js';

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
  /**
   * The row ids of the stored reviews on the page that a reconciliation marked removed: they are listed
   * again, so the mark is out of date (the poll restores it). Almost always none.
   */
  relisted: number[];
  /** Reviews on this page not already met earlier in the poll. */
  distinct: number;
}

/**
 * The reviews already handled in one poll: newest-first pages shift while reviews arrive, so one review can
 * show up on two pages, perhaps once without its id.
 */
export class SeenInPoll {
  readonly #identities = new Set<string>();
  readonly #withId: FetchedReview[] = [];

  has(review: FetchedReview): boolean {
    if (this.#identities.has(review.identity)) return true;
    // Fingerprints are compared only for a review without an id: most polls never compute one.
    return review.fallbackIdentity && this.#withId.some((seen) => seen.fingerprint === review.fingerprint);
  }

  add(review: FetchedReview, storedIdentity?: string): void {
    this.#identities.add(review.identity);
    if (storedIdentity !== undefined) this.#identities.add(storedIdentity);
    if (!review.fallbackIdentity) this.#withId.push(review);
  }
}

/**
 * Classifies one page of reviews against the store; `seen` carries what earlier pages of the poll held.
 */
export function diffPage(
  fetched: ReadonlyArray<FetchedReview>,
  known: KnownLookup,
  seen: SeenInPoll,
): PageDiff {
  const diff: PageDiff = {
    fresh: [],
    edited: [],
    refreshed: [],
    reachedKnown: false,
    relisted: [],
    distinct: 0,
  };
  for (const review of fetched) {
    // Two reviews with different ids are never merged.
    if (seen.has(review)) continue;
    const match = matchKnown(review, known);
    seen.add(review, match?.identity);
    diff.distinct++;
    if (!match) {
      diff.fresh.push(review);
      continue;
    }
    if (match.removedAt !== null) diff.relisted.push(match.rowId);
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

/** The stored review a fetched one is: by identity, else by fingerprint where one side has no id. */
export function matchKnown(review: FetchedReview, known: KnownLookup): KnownReview | undefined {
  return known.byIdentity.get(review.identity) ?? matchByFingerprint(review, known);
}

/**
 * By fingerprint only where one side has no id: the same review came back once with its id and once
 * without. Two reviews with ids are different reviews, however alike (star-only, same day).
 */
function matchByFingerprint(review: FetchedReview, known: KnownLookup): KnownReview | undefined {
  const candidate = known.byFingerprint.get(review.fingerprint);
  return candidate && (review.fallbackIdentity || candidate.identity.startsWith('fp:'))
    ? candidate
    : undefined;
}
