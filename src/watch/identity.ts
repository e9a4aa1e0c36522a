import { hash } from 'node:crypto';
import type { CatalogReview } from '../catalog/index.js';

/** A review as fetched, with the identity we store it under. */
export interface FetchedReview extends CatalogReview {
  identity: string;
  /** Hash of reviewer, date and content; stable while the review is not edited. */
  fingerprint: string;
  /** True when the API gave no review_id and the identity is the fingerprint. */
  fallbackIdentity: boolean;
}

export function fingerprintOf(review: Pick<CatalogReview, 'reviewer' | 'createdDate' | 'content'>): string {
  // One-shot hash: every fetched review is fingerprinted, and createHash() costs twice as much.
  return hash('sha256', `${review.reviewer}\0${review.createdDate}\0${review.content}`).slice(0, 32);
}

/**
 * review_id is stable across pages and edits, so it is the identity. Some responses carry `""` instead
 * (catalog-api-notes.md): those fall back to the fingerprint, prefixed so it can never equal a numeric id.
 */
export function identify(review: CatalogReview): FetchedReview {
  const fingerprint = fingerprintOf(review);
  const fallbackIdentity = review.reviewId === '';
  return {
    ...review,
    identity: fallbackIdentity ? `fp:${fingerprint}` : review.reviewId,
    fingerprint,
    fallbackIdentity,
  };
}

/** `review_created_date` is ISO 8601 most of the time and the literal "Invalid Date" sometimes. */
export function parseReviewDate(text: string): Date | null {
  if (text === '' || text === 'Invalid Date') return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms);
}
