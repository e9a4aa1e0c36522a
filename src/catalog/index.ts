export {
  CatalogClient,
  type CatalogClientOptions,
  type RequestGate,
  type SortBy,
} from './client.js';
export * from './errors.js';
export { isValidHandle } from './handle.js';
export { type FetchedReview, fingerprintOf, identify, parseReviewDate } from './review.js';
export type { AppDetail, CatalogReview, ReviewsPage } from './schemas.js';
export { type RatingSummary, type Stars, summarize } from './summary.js';
