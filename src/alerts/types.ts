/**
 * What an alert says, independent of how it is delivered. Alerts are stored as JSON of these shapes in
 * the outbox and rendered per channel (src/render/). Every string that came from the marketplace
 * (reviewer, content, location, app name) is untrusted: renderers escape it.
 */

import type { Priority, Severity } from '../scoring/priority.js';

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
}

/** The listing's rating fell. */
export interface RatingDropAlert {
  kind: 'rating-drop';
  app: AppRef;
  priority: Priority;
  /** The level last alerted on (or the first snapshot), and now. */
  from: { average: number; count: number; at: string };
  to: { average: number; count: number; at: string };
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
}

export type Alert = ReviewAlert | RatingDropAlert | IncidentAlert;

/**
 * One message to one channel: a single alert, or the review alerts of one app grouped into one message
 * (when a poll finds more than `groupAbove` of them, or a throttle held some back).
 */
export type Notification =
  | { kind: 'single'; alert: Alert }
  | { kind: 'group'; app: AppRef; alerts: ReviewAlert[] };
