import { isLowRated, scoreReview } from '../scoring/index.js';
import type { ReviewRow } from '../store/schema.js';
import type { AlertPolicy } from './raise.js';
import { routeAlert } from './route.js';
import type { Severity } from './types.js';

export interface ReplayedAlert {
  app: string;
  review: Pick<ReviewRow, 'reviewId' | 'reviewer' | 'rating' | 'content' | 'createdDate'>;
  severity: Severity;
}

export interface ReplayResult {
  /** Low reviews replayed. */
  reviews: number;
  /** What each channel would have received, highest score first. */
  byChannel: Map<string, ReplayedAlert[]>;
  /** Low reviews no channel would have received (app without `notify`, or below every minPriority). */
  unrouted: ReplayedAlert[];
}

/**
 * Runs stored reviews through the current scoring and routing: what a rule change would have sent,
 * before it goes live. Pure; the caller picks the reviews.
 */
export function replayReviews(reviews: ReviewRow[], policy: AlertPolicy): ReplayResult {
  const byChannel = new Map<string, ReplayedAlert[]>();
  const unrouted: ReplayedAlert[] = [];
  let count = 0;
  for (const review of reviews) {
    if (!isLowRated(review.rating, policy.maxRating)) continue;
    count++;
    const severity = scoreReview(
      {
        rating: review.rating,
        content: review.content,
        timeUsingApp: review.timeUsingApp,
        topics: review.topics,
        topicsVersion: review.topicsVersion,
      },
      policy.scoring,
    );
    const alert = { app: review.appHandle, review, severity };
    const channels = routeAlert(
      severity.priority,
      policy.apps.get(review.appHandle)?.notify ?? [],
      policy.channels,
    );
    if (channels.length === 0) unrouted.push(alert);
    for (const channel of channels) {
      const list = byChannel.get(channel) ?? [];
      list.push(alert);
      byChannel.set(channel, list);
    }
  }
  for (const list of byChannel.values()) list.sort((a, b) => b.severity.score - a.severity.score);
  return { reviews: count, byChannel, unrouted };
}
