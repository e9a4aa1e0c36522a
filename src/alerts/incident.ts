import type { Priority, ReviewRef } from './types.js';

export interface IncidentRule {
  /** Low reviews of one app within the window that make an incident. */
  count: number;
  windowMs: number;
}

export interface LowReviewSeen {
  rowId: number;
  firstSeenAt: Date;
  /** Stored by the poll being evaluated. */
  isNew: boolean;
}

/** Whether the app's last incident alert, at `lastIncidentAt`, is within the window and keeps a new one quiet. */
export function incidentQuiet(lastIncidentAt: Date | undefined, rule: IncidentRule, now: Date): boolean {
  return lastIncidentAt !== undefined && lastIncidentAt.getTime() >= now.getTime() - rule.windowMs;
}

/**
 * Several low reviews of one app within the window are a possible incident. Raised once per burst: not
 * again while an earlier incident alert of the app is within the window, and only by a poll that brought
 * one of the reviews (the window sliding over old ones is no news).
 */
export function detectIncident<T extends LowReviewSeen>(
  lowReviews: T[],
  lastIncidentAt: Date | undefined,
  rule: IncidentRule,
  now: Date,
): { reviews: T[]; priority: Priority } | undefined {
  if (incidentQuiet(lastIncidentAt, rule, now)) return undefined;
  const since = now.getTime() - rule.windowMs;
  const inWindow = lowReviews.filter((r) => r.firstSeenAt.getTime() >= since);
  if (inWindow.length < rule.count || !inWindow.some((r) => r.isNew)) return undefined;
  return { reviews: inWindow, priority: inWindow.length >= rule.count * 2 ? 'critical' : 'high' };
}

/**
 * Whether two quotes are of one review: the same id and date. A possible incident's review alerts ride in
 * its message (notify/deliver.ts), which lists the rest of its reviews as found by earlier polls.
 */
export function sameReview(a: ReviewRef, b: ReviewRef): boolean {
  return a.reviewId === b.reviewId && a.createdDate === b.createdDate;
}
