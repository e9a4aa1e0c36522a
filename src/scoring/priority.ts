/**
 * How urgent an alert is, most urgent first. The one list of priorities: the config schema, routing
 * (`minPriority`), the store's column and every renderer take it from here.
 */
export const PRIORITIES = ['critical', 'high', 'medium', 'low'] as const;

export type Priority = (typeof PRIORITIES)[number];

export interface Severity {
  /** 0 (harmless) to 100 (act now). */
  score: number;
  priority: Priority;
  /** Why, in words a support agent understands: "1 star", "mentions billing: refund, charged". */
  reasons: string[];
}

/** "Low-rated" everywhere: a review at or below `alerts.lowRating.maxRating` stars. */
export function isLowRated(rating: number, maxRating: number): boolean {
  return rating <= maxRating;
}
