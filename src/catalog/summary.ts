import type { SummaryEntry } from './schemas.js';

export type Stars = 1 | 2 | 3 | 4 | 5;

export interface RatingSummary {
  /** Reviews per star; null where the API did not give a count. */
  distribution: Record<Stars, number | null>;
  /** Total reviews, when every count is known. */
  count: number | null;
  /** Average rating, when every count is known and there is at least one review. */
  average: number | null;
  complete: boolean;
}

/** "5", "5 stars", "5 Stars", "★5" all mean five stars; anything else is ignored. */
export function starsOfLabel(label: string): Stars | undefined {
  const match = /([1-5])/.exec(label);
  return match ? (Number(match[1]) as Stars) : undefined;
}

/**
 * Turns the API's rating distribution into average and count. Counts can come back null (rounded away
 * on large apps): then the average is unknown rather than wrong.
 */
export function summarize(entries: ReadonlyArray<SummaryEntry>): RatingSummary {
  const distribution: Record<Stars, number | null> = { 1: null, 2: null, 3: null, 4: null, 5: null };
  for (const entry of entries) {
    const stars = starsOfLabel(entry.label);
    if (stars !== undefined && entry.count !== null)
      distribution[stars] = (distribution[stars] ?? 0) + entry.count;
  }
  const counts = Object.values(distribution);
  const complete = counts.every((c) => c !== null);
  if (!complete) return { distribution, count: null, average: null, complete };
  let count = 0;
  let sum = 0;
  for (const [stars, n] of Object.entries(distribution)) {
    count += n ?? 0;
    sum += Number(stars) * (n ?? 0);
  }
  return { distribution, count, average: count === 0 ? null : sum / count, complete };
}
