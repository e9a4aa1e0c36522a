/**
 * The market's view models: what `/market`, `/categories/HANDLE`, an app's listing changes, their JSON and
 * `reviewwatch market` show, read through src/store/market/ and put together with the pure history logic
 * of src/market. Dates are Dates; the pages, the JSON and the CLI format them.
 */

export { APP_RANK_DAYS, type AppRanks, appRanks } from './app-ranks.js';
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
export { categoryNames, type MoveItem, marketMoves } from './moves.js';
export { FEED_DAYS, type MarketOverview, marketOverview, type OverviewApp } from './overview.js';
export {
  ALERT_MOVE_LABEL,
  type AlertMove,
  alertMoveText,
  placesText,
  shortDay,
  WEEK_MOVE_LABEL,
  weekMoveText,
} from './rank-story.js';
export { type CategoryRank, type CategoryStatus, DAY_MS, WEEK_MS } from './ranks.js';
export { type MarketSince, marketSince, type SinceCategory, type SinceRank } from './since.js';
