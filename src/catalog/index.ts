export {
  CatalogClient,
  type CatalogClientOptions,
  type RequestGate,
  type SortBy,
} from './client.js';
export * from './errors.js';
export { isValidHandle } from './handle.js';
export { type FetchedReview, fingerprintOf, identify, parseReviewDate } from './review.js';
export {
  type AppDetail,
  type CatalogReview,
  type CategoryEntry,
  type CategoryPage,
  type DeveloperApp,
  type DeveloperDetail,
  handleFromUrl,
  type PricingPlan,
  type ReviewsPage,
} from './schemas.js';
export { type RatingSummary, type Stars, summarize } from './summary.js';
