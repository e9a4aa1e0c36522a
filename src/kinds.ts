/**
 * The alert kinds and the channel types, each written down once. Everything that names them derives from
 * these tables: the `Alert` union (alerts/types.ts checks it matches), the outbox's `kind` column, the
 * renderers every channel type must have (render/channels.ts), the channel table (notify/channel-types.ts),
 * the metrics' help and the digest's labels. A new kind or type added here fails to compile wherever a
 * choice over them has no case for it (docs/architecture.md, "Where to make a change").
 *
 * They sit in layer 0 because the store's schema (layer 3) and the config (layer 2) name them, below the
 * alerts and the senders that give them meaning.
 */

/** Per alert kind: how people call it, and whether it is about a market (no review renderer applies). */
export const ALERT_KINDS = {
  review: { label: 'Review alert', market: false },
  'rating-drop': { label: 'Rating drop', market: false },
  incident: { label: 'Possible incident', market: false },
  'topic-spike': { label: 'Topic spike', market: false },
  rank: { label: 'Rank move', market: true },
  reshuffle: { label: 'Category reshuffle', market: true },
  entrants: { label: 'New entrants', market: true },
  listing: { label: 'Listing change', market: true },
  developer: { label: 'Developer apps', market: true },
} as const satisfies Record<string, { label: string; market: boolean }>;

export type AlertKind = keyof typeof ALERT_KINDS;

/** The kinds about an app's market (rank, listing, …), as opposed to its reviews. */
export type MarketAlertKind = {
  [K in AlertKind]: (typeof ALERT_KINDS)[K]['market'] extends true ? K : never;
}[AlertKind];

/** Every kind, in the table's order: what a column enum or a help text lists. */
export const ALERT_KIND_NAMES = Object.keys(ALERT_KINDS) as [AlertKind, ...AlertKind[]];

export function isMarketKind(kind: string): kind is MarketAlertKind {
  return Object.hasOwn(ALERT_KINDS, kind) && ALERT_KINDS[kind as AlertKind].market;
}

/**
 * Per channel type, what it is, and who reads it: people, for whom fewer messages saying more are better
 * (a possible incident or a topic spike carries the poll's review alerts it lists), or programs, which
 * get one event per alert. The rest of a type's row (its config schema, its sender, its renderers) lives
 * in notify/channel-types.ts, which must have a row for each of these.
 */
export const CHANNEL_TYPES = {
  slack: { label: 'Slack', readers: 'people' },
  email: { label: 'email', readers: 'people' },
  console: { label: 'console', readers: 'people' },
  webhook: { label: 'webhook', readers: 'programs' },
  teams: { label: 'Microsoft Teams', readers: 'people' },
  discord: { label: 'Discord', readers: 'people' },
} as const satisfies Record<string, { label: string; readers: 'people' | 'programs' }>;

export type ChannelType = keyof typeof CHANNEL_TYPES;

export const CHANNEL_TYPE_NAMES = Object.keys(CHANNEL_TYPES) as [ChannelType, ...ChannelType[]];

/**
 * Whether a possible incident's or a topic spike's message carries the review alerts of its poll on this
 * type (CHANNEL_TYPES).
 */
export function leadCarriesReviews(type: ChannelType): boolean {
  return CHANNEL_TYPES[type].readers === 'people';
}
