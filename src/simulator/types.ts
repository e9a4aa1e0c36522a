/** Shapes shared by the simulator's modules and by code that drives it. */
import type { MarketEvent, RankNoise } from './market.js';

/** One review exactly as the Catalog API puts it on the wire (spec 2.4), keys in the spec's order. */
export interface WireReview {
  app_url: string;
  app_name: string;
  reviewer: string;
  review_created_date: string;
  reviewer_location: string;
  rating: number;
  reviewer_latest_used_date: string;
  review_content: string;
  review_id: string;
}

export interface SummaryEntry {
  label: string;
  count: number | null;
}

/** Known variations of the real API's output; each one is off until switched on. */
export interface Quirks {
  /** Every review_id on review pages reads "" (stored ids are kept). */
  emptyIds: boolean;
  /** review_created_date reads "Invalid Date" for reviews whose numeric id is a multiple of 7. */
  invalidDates: boolean;
  /** Summary counts of the 4 and 5 star entries are null. */
  nullCounts: boolean;
  /** Summary labels read "5 stars" ... "1 star" instead of "5" ... "1". */
  starLabels: boolean;
  /** App detail without developer.website; developer detail holds only name and apps. */
  reducedShapes: boolean;
  /** Unknown extra fields on the envelope and on data objects. */
  extraFields: boolean;
  /** reviewer_location and reviewer_latest_used_date are absent on reviews whose id % 5 === 2. */
  missingOptional: boolean;
  /** Category and developer entries give `rating` as a string ("4.7"). */
  ratingStrings: boolean;
  /** Category positions continue across pages instead of restarting, repeat one and skip another. */
  positionGlitches: boolean;
  /** Each category page after the first starts with the last organic entry of the page before. */
  duplicateEntries: boolean;
  /** One app in five has hostile text (Slack and HTML markup) in its title and plan names. */
  hostileText: boolean;
  /** Descriptions are about 50 KB of marketing HTML. */
  longDescriptions: boolean;
}

export const NO_QUIRKS: Readonly<Quirks> = Object.freeze({
  emptyIds: false,
  invalidDates: false,
  nullCounts: false,
  starLabels: false,
  reducedShapes: false,
  extraFields: false,
  missingOptional: false,
  ratingStrings: false,
  positionGlitches: false,
  duplicateEntries: false,
  hostileText: false,
  longDescriptions: false,
});

export interface ArrivalOptions {
  everyMs: number;
  handles?: string[];
  /** Share of arriving reviews rated 1 or 2. */
  lowShare?: number;
}

export interface SimulatorOptions {
  /** Default 42. */
  seed?: number;
  /** Generated apps `app-00001` ...; default 50. */
  appCount?: number;
  /** Extra explicitly named apps, generated like the others. */
  handles?: string[];
  /** Default 120; each generated app gets a seeded count in [0, max]. */
  maxReviewsPerApp?: number;
  /** When set, x-api-key must equal it (missing -> 401, wrong -> 403); else any non-empty key passes. */
  apiKey?: string;
  /** When set, each authenticated API request costs 1; at 0 the API answers 402. */
  credits?: number;
  /** Added to every API response. */
  latencyMs?: number;
  /** A timer adds one seeded review to one of these apps every everyMs. */
  arrival?: ArrivalOptions;
  /**
   * First review_id of reviews added while running (default: the next round million after the seeded
   * ones). A simulator restarted against the same database needs ids its last run did not use.
   */
  firstNewReviewId?: number;
  /** Clock; default Date.now. */
  now?: () => number;
  /** The category market (src/simulator/market.ts). */
  market?: MarketOptions;
}

export interface MarketOptions {
  /** One market tick (6 h of ranks) per this many ms of the clock; unset: ticks only by advanceMarket. */
  tickMs?: number;
  noise?: Partial<RankNoise>;
  /** The script, applied at start and after reset(). */
  events?: MarketEvent[];
}

export type Endpoint = 'reviews' | 'category' | 'app' | 'developer' | 'categories' | 'developers' | 'apps';

export interface SimulatorStats {
  requests: number;
  byStatus: Record<string, number>;
  byEndpoint: Record<string, number>;
}

export type MalformKind = 'bad-field' | 'not-json' | 'no-envelope';

export interface FailSpec {
  status: number;
  retryAfterSec?: number;
  /** Matched against the request path with its query string. */
  pathIncludes?: string;
  /** Sent instead of the default `{error, message}`; a string is sent as is. */
  body?: unknown;
}

export interface MalformSpec {
  pathIncludes?: string;
  kind?: MalformKind;
}
