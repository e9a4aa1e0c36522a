import { hash } from 'node:crypto';
import type { CatalogReview } from '../catalog/index.js';

/**
 * A hash of everything the diff reads of a page of reviews, in order. When page 1 hashes as it did when
 * the store last held it exactly, nothing on it is new or edited: the poll needs no lookup (watch/poll.ts).
 */
export function pageHash(reviews: readonly CatalogReview[]): string {
  // JSON, not separators: review text can hold any character.
  const fields = reviews.map((r) => [r.reviewId, r.reviewer, r.rating, r.createdDate, r.content]);
  return hash('sha256', JSON.stringify(fields)).slice(0, 32);
}
