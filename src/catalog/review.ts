import { hash } from 'node:crypto';
import type { CatalogReview } from './schemas.js';

/**
 * A review as fetched, with the identity we store it under. `fingerprint` is a getter (see identify()):
 * a spread, JSON or structuredClone copy loses it, so copy the fields a consumer needs instead.
 */
export interface FetchedReview extends CatalogReview {
  identity: string;
  /** Hash of reviewer, date and content; stable while the review is not edited. Computed when first read. */
  readonly fingerprint: string;
  /** True when the API gave no review_id and the identity is the fingerprint. */
  fallbackIdentity: boolean;
}

export function fingerprintOf(review: Pick<CatalogReview, 'reviewer' | 'createdDate' | 'content'>): string {
  // One-shot hash: createHash() costs twice as much.
  return hash('sha256', `${review.reviewer}\0${review.createdDate}\0${review.content}`).slice(0, 32);
}

/**
 * review_id is stable across pages and edits, so it is the identity. Some responses carry `""` instead
 * (docs/catalog-api.md): those fall back to the fingerprint, prefixed so it can never equal a numeric id.
 */
export function identify(review: CatalogReview): FetchedReview {
  return new IdentifiedReview(review);
}

/**
 * A class rather than `{ ...review, identity }`: every fetched review goes through here, and copying fields
 * into a class instance costs a twentieth of an object spread. The fingerprint is computed when first read:
 * a quiet poll matches every review by its id and never needs one.
 */
class IdentifiedReview implements FetchedReview {
  readonly reviewId: string;
  readonly reviewer: string;
  readonly location: string;
  readonly rating: number;
  readonly content: string;
  readonly createdDate: string;
  readonly timeUsingApp: string;
  readonly appName: string;
  readonly appUrl: string;
  readonly identity: string;
  readonly fallbackIdentity: boolean;
  #fingerprint: string | undefined;

  constructor(review: CatalogReview) {
    this.reviewId = review.reviewId;
    this.reviewer = review.reviewer;
    this.location = review.location;
    this.rating = review.rating;
    this.content = review.content;
    this.createdDate = review.createdDate;
    this.timeUsingApp = review.timeUsingApp;
    this.appName = review.appName;
    this.appUrl = review.appUrl;
    this.fallbackIdentity = review.reviewId === '';
    this.identity = this.fallbackIdentity ? `fp:${this.fingerprint}` : review.reviewId;
  }

  get fingerprint(): string {
    this.#fingerprint ??= fingerprintOf(this);
    return this.#fingerprint;
  }
}

/** `review_created_date` is ISO 8601 most of the time and the literal "Invalid Date" sometimes. */
export function parseReviewDate(text: string): Date | null {
  if (text === '' || text === 'Invalid Date') return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms);
}
