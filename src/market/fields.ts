/**
 * The fields of a listing that are compared one by one (listing-diff.ts). `listing.ignore` in the config
 * names some of them: their changes are still recorded, never alerted.
 */
export const LISTING_FIELDS = [
  'title',
  'description',
  /** Plans by name: added, removed, price up or down; and the one-line pricing summary. */
  'pricing',
  /** The feature bullets of each plan. */
  'features',
  'categories',
  'languages',
  'worksWith',
  'developer',
  /** The Built-for badge, as category pages show it. */
  'badge',
] as const;

export type ListingField = (typeof LISTING_FIELDS)[number];
