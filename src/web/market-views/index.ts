/**
 * The market's view models: what `/market`, `/categories/HANDLE`, an app's listing changes, their JSON and
 * `reviewwatch market` show, read through src/store/market/ and put together with the pure history logic
 * of src/market. Dates are Dates; the pages, the JSON and the CLI format them.
 */
export {
  CATEGORY_DAYS,
  type CategoryView,
  categoryKnown,
  categoryView,
  type RankSeries,
} from './category.js';
export { type MarketApp, type MarketViewInput, marketInputOf } from './input.js';
export {
  type ChangeSummary,
  changeSummary,
  type ListingTimeline,
  type ListingVersionChanges,
  listingAppKnown,
  listingTimeline,
} from './listing-timeline.js';
export { type MarketOverview, marketOverview, type OverviewApp } from './overview.js';
export { type CategoryRank, type CategoryStatus, WEEK_MS } from './ranks.js';
export { type MarketSince, marketSince, type SinceCategory, type SinceRank } from './since.js';
