import type { Priority, RatingDropAlert } from './types.js';

export interface RatingLevel {
  average: number;
  count: number;
  at: Date;
}

export interface DropEvidence {
  /** Ratings of the low reviews stored (not as history) since the level was set. */
  newLowRatings: number[];
  /** All reviews stored (not as history) since the level was set. */
  newReviews: number;
  /** Stored reviews an edit re-rated lower since the level was set. */
  rerated: number;
}

export interface RatingEvaluation {
  /** The drop to alert on, without its app (the caller knows it). */
  drop?: Omit<RatingDropAlert, 'app' | 'kind'>;
  /** The level to keep; undefined leaves it as it was. */
  nextLevel?: RatingLevel;
}

const EPSILON = 1e-9;

/** The rating as the listing displays it: one decimal. */
export function displayed(average: number): string {
  return (Math.round(average * 10 + EPSILON) / 10).toFixed(1);
}

/**
 * Compares the current rating with the level the last drop alert (or the first poll, or a recovery) set.
 * One alert per drop: alerting moves the level down to the new rating, so the next poll at the same
 * rating is quiet; a recovery moves it up again, which re-arms the alert.
 */
export function evaluateRating(
  level: RatingLevel | undefined,
  current: { average: number | null; count: number | null; at: Date },
  rule: { minDrop: number; displayed: boolean },
  evidence: () => DropEvidence,
): RatingEvaluation {
  if (current.average === null || current.count === null) return {};
  const now: RatingLevel = { average: current.average, count: current.count, at: current.at };
  if (!level) return { nextLevel: now };
  if (current.average > level.average + EPSILON) return { nextLevel: now };
  const fell = level.average - current.average;
  const displayFell = rule.displayed && Number(displayed(current.average)) < Number(displayed(level.average));
  if (fell + EPSILON < rule.minDrop && !displayFell) return {};
  const { newLowRatings, newReviews, rerated } = evidence();
  return {
    nextLevel: now,
    drop: {
      priority: dropPriority(fell),
      from: { average: level.average, count: level.count, at: level.at.toISOString() },
      to: { average: current.average, count: current.count, at: current.at.toISOString() },
      explanation: {
        newLowReviews: newLowRatings.length,
        lowReviewsShare: lowReviewsShare(current.average, current.count, fell, newLowRatings),
        vanished: Math.max(0, level.count + newReviews - current.count),
        rerated,
      },
    },
  };
}

/**
 * How much of the fall the new low reviews explain: the average without them, compared with the
 * average now, as a share of the whole fall.
 */
function lowReviewsShare(average: number, count: number, fell: number, lowRatings: number[]): number {
  const n = lowRatings.length;
  if (n === 0 || fell <= EPSILON || count - n <= 0) return 0;
  const without = (average * count - lowRatings.reduce((a, b) => a + b, 0)) / (count - n);
  return Math.min(1, Math.max(0, (without - average) / fell));
}

function dropPriority(fell: number): Priority {
  if (fell >= 0.3) return 'critical';
  if (fell >= 0.1) return 'high';
  return 'medium';
}
