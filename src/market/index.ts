export { describeChange } from './change-text.js';
export { type DiffHunk, diffSentences, normalizeDescription, sentencesOf } from './description.js';
export {
  type BadgeChange,
  badgeChanges,
  type DeveloperAppChanges,
  developerAppChanges,
  type NewEntrants,
  newEntrants,
} from './entrants.js';
export { LISTING_FIELDS, type ListingField } from './fields.js';
export {
  diffListings,
  type ListingChange,
  listingHash,
  type NormalizedListing,
  type NormalizedPlan,
  normalizeListing,
} from './listing.js';
export { comparePrices, monthlyCost, type Price, type PriceMove, parsePrice } from './price.js';
export {
  DEFAULT_RANK_ALERT_OPTIONS,
  detectRankAlerts,
  type ListingChangeNote,
  type OwnEventNote,
  type PassingApp,
  type RankAlert,
  type RankAlertOptions,
  type RankContext,
  type RankDetection,
  type RankDetectionInput,
  type RankReason,
  type ReshuffleAlert,
  reshuffleBetween,
} from './rank-alerts.js';
export {
  appIn,
  type CategorySnapshot,
  ranksOf,
  type SnapshotApp,
  type SponsoredSlot,
  snapshotOf,
  sponsorsOf,
} from './snapshot.js';
