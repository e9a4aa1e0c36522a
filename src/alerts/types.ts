/**
 * What an alert says, independent of how it is delivered. Alerts are stored as JSON of these shapes in
 * the outbox and rendered per channel (src/render/). Every string that came from the marketplace
 * (reviewer, content, location, app name) is untrusted: renderers escape it.
 */

import type { AlertKind, MarketAlertKind } from '../kinds.js';
import type { ListingChange, RankAlert, ReshuffleAlert } from '../market/index.js';
import type { Priority, Severity } from '../scoring/priority.js';

export { ALERT_KIND_NAMES, ALERT_KINDS, type AlertKind, type MarketAlertKind } from '../kinds.js';
export { PRIORITIES, type Priority, type Severity } from '../scoring/priority.js';

export interface AppRef {
  handle: string;
  /** The listing's name as the API gives it, or the config's `name`, else the handle. */
  name: string;
  /** The listing's page. */
  url: string;
}

export interface ReviewRef {
  reviewId: string;
  reviewer: string;
  location: string;
  rating: number;
  content: string;
  /** As the API sent it (ISO 8601, or "Invalid Date"). */
  createdDate: string;
  /** "2 months using the app", or ''. */
  timeUsingApp: string;
  /** Set when this alert is about an edit that lowered the rating. */
  previousRating?: number;
}

/** A new (or re-rated) low review. */
export interface ReviewAlert {
  kind: 'review';
  app: AppRef;
  review: ReviewRef;
  severity: Severity;
  /** Found by a reconciliation (watch/reconcile.ts) after the polls missed it: renderers say so. */
  foundLate?: true;
  /** Its topics' names, so a group of them can say what they share (topics/burst.ts). */
  topics?: string[];
  /**
   * The listing's rating fell in the poll this review was found in, and the poll's review alerts explain
   * the fall: said here ("rating now 4.2 (was 4.3)") instead of in a rating-drop message of its own.
   */
  rating?: { now: number; was: number };
}

/** The listing's rating fell. */
export interface RatingDropAlert {
  kind: 'rating-drop';
  app: AppRef;
  priority: Priority;
  /** The level last alerted on (or the first snapshot), and now. */
  from: { average: number; count: number; at: string };
  to: { average: number; count: number; at: string };
  /** The half-star level (4.5, 4.0 …) the displayed rating fell below, if it crossed one. */
  crossed?: number;
  /** A new low of a fall already said, before the rating recovered (alerts/rating-drop.ts). */
  deepening?: true;
  /**
   * How it was said, when not as a message of its own: as a line on the poll's review alerts, which
   * explain it, or (a competitor's, by default) in the weekly digest only.
   */
  saidIn?: 'review-alerts' | 'digest';
  /** What explains the drop since `from`. */
  explanation: {
    /** Low reviews (at or below alerts.lowRating.maxRating) stored since `from`. */
    newLowReviews: number;
    /** Share of the drop in the average those new low reviews account for, 0..1. */
    lowReviewsShare: number;
    /**
     * Reviews that vanished (the count went down although reviews arrived): archived or removed. When
     * `unstored` can be told, only the stored reviews marked removed: the rest is in `unstored`.
     */
    vanished: number;
    /** Stored reviews whose rating an edit lowered since `from`. */
    rerated: number;
    /**
     * New reviews above the low threshold yet below the former average (a 3-star under 4.4): they pull
     * it down too. `ratings` are their distinct star ratings.
     */
    newBelowAverage?: { count: number; share: number; ratings: number[] };
    /**
     * The summary moved without a review we store: its counts per star (one-star first) changed this
     * much beyond what the stored reviews account for. Rises are ratings without text (or, with `unread`
     * set, reviews of a burst not read yet), falls are reviews archived, both at once a recount.
     * `share` is how much of the drop they explain. Absent when the stored reviews account for all.
     */
    unstored?: { stars: number[]; share: number; unread?: number };
  };
}

/** Several low reviews of one app within a short window: possibly an incident. */
export interface IncidentAlert {
  kind: 'incident';
  app: AppRef;
  priority: Priority;
  windowHours: number;
  reviews: ReviewRef[];
  /** What most of its reviews share: "5 of 6 about integrations: 'klaviyo'" (topics/burst.ts). */
  about?: string;
}

/** A quote of a topic spike's review: the words around what it shares. */
export interface SpikeQuote {
  reviewId: string;
  reviewer: string;
  rating: number;
  text: string;
}

/** Something that changed around a topic spike: the app's listing, its rating, a competitor's listing. */
export interface SpikeContext {
  what: 'listing' | 'rating-drop' | 'competitor';
  /** The app it is about, by name (untrusted). */
  app: string;
  at: string;
  /** Plain text: `"Pro": price up $19/month → $29/month`. Untrusted parts: escaped by renderers. */
  text: string;
}

/**
 * A topic or phrase rose sharply in an app's low reviews within a day, against the app's own baseline
 * (topics/spike.ts). One spike is one message: the dedupe key and the cooldown keep it so.
 */
export interface TopicSpikeAlert {
  kind: 'topic-spike';
  app: AppRef;
  priority: Priority;
  spike: {
    /** A built-in or custom topic, or a phrase of 1-3 words. */
    type: 'topic' | 'phrase';
    name: string;
    /** Low reviews about it within the window, and by how many reviewers. */
    count: number;
    reviewers: number;
    /** How many a window of the baseline held on average. */
    expected: number;
    windowHours: number;
    baselineDays: number;
    /** For a topic, the phrases its reviews share ("klaviyo"). */
    phrases: string[];
    /** Other topics that spiked on mostly the same reviews, told here rather than on their own. */
    also?: string[];
    /** When its first review was written. */
    since: string;
  };
  quotes: SpikeQuote[];
  /** What changed in the days before it, newest first. */
  context: SpikeContext[];
  /**
   * The possible incident the same reviews made in the same poll, said here rather than in a message of
   * its own: one wave, one message.
   */
  incident?: { count: number; windowHours: number };
  /**
   * The marketplace ids of its reviews: the review alerts of its poll among them ride in its message on
   * a channel people read (notify/deliver.ts). Absent from spikes stored before they did.
   */
  reviewIds?: string[];
}

/** A tracked category (config `categories`), named as its pages name it. */
export interface CategoryRef {
  handle: string;
  /** From the category page; the handle when it never said. Untrusted. */
  name: string;
}

/**
 * An own app's rank moved beyond its band, persisted, and is not the category's shift; or it crossed the
 * top 10 or the tracked pages (market/rank-alerts.ts). `move.reasons` say what may explain it.
 */
export interface RankMoveAlert {
  kind: 'rank';
  app: AppRef;
  category: CategoryRef;
  priority: Priority;
  move: RankAlert;
  /** Names of the apps the reasons name by handle only (sponsored slots), as the snapshot listed them. */
  names?: Record<string, string>;
}

/** More than a fifth of the category's apps moved at once: one message, not one per app. */
export interface CategoryReshuffleAlert {
  kind: 'reshuffle';
  category: CategoryRef;
  priority: Priority;
  reshuffle: ReshuffleAlert;
}

/** An app the category's tracked pages had never ranked, with what its listing says when it was read. */
export interface EntrantRef {
  handle: string;
  name: string;
  url: string;
  rank: number;
  developer: string;
  rating: number | null;
  builtFor: boolean | null;
  /** Set when its listing was read (a watched app): its pricing summary and plans. */
  listing?: { pricing: string; plans: Array<{ name: string; price: string }> };
}

/** New entrants in one category's snapshot: one message per category and snapshot. */
export interface NewEntrantsAlert {
  kind: 'entrants';
  category: CategoryRef;
  priority: Priority;
  apps: EntrantRef[];
}

/** A watched app's listing changed in a way that alerts (price, plans, categories, badge). */
export interface ListingChangeAlert {
  kind: 'listing';
  app: AppRef;
  role: 'own' | 'competitor';
  priority: Priority;
  /** The changes that alert; the others are stored only. */
  changes: ListingChange[];
}

/** A watched app's developer published or removed an app. */
export interface DeveloperAppsAlert {
  kind: 'developer';
  developer: { handle: string; name: string };
  /** The watched apps of that developer. */
  apps: AppRef[];
  priority: Priority;
  published: Array<{ name: string; url: string; category: string }>;
  removed: Array<{ name: string; url: string }>;
}

export type MarketAlert =
  | RankMoveAlert
  | CategoryReshuffleAlert
  | NewEntrantsAlert
  | ListingChangeAlert
  | DeveloperAppsAlert;

export type Alert = ReviewAlert | RatingDropAlert | IncidentAlert | TopicSpikeAlert | MarketAlert;

/** The alert of one kind: `AlertOf<'rank'>` is a RankMoveAlert. */
export type AlertOf<K extends AlertKind> = Extract<Alert, { kind: K }>;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
/**
 * The union above and the table of kinds (src/kinds.ts) name the same kinds, and agree on which are
 * market kinds: a kind added to one and not the other fails to compile here.
 */
export type KindsAgree = [
  Holds<Same<Alert['kind'], AlertKind>>,
  Holds<Same<MarketAlert['kind'], MarketAlertKind>>,
];

/** Alerts about one app's reviews: the ones with an `app` the review renderers link to. */
export type ReviewsAlert = ReviewAlert | RatingDropAlert | IncidentAlert | TopicSpikeAlert;

/**
 * One message to one channel: a single alert, or the review alerts of one app grouped into one message
 * (when a poll finds more than `groupAbove` of them, or a throttle held some back, or they ride in the
 * possible incident or the topic spike their poll raised: `incident` or `spike` then heads the message).
 */
export type Notification =
  | { kind: 'single'; alert: Alert }
  | { kind: 'group'; app: AppRef; alerts: ReviewAlert[]; incident?: IncidentAlert; spike?: TopicSpikeAlert };
