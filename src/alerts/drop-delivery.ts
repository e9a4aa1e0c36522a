/**
 * How a rating drop is said, once `evaluateRating` found one: as a message of its own, as a line on the
 * review alerts of the same poll that explain it, in the weekly digest only, or not at all (a further low
 * of a fall already said, which nothing new explains). Pure: raise.ts and bench/rating-drop.ts both call
 * it. The rules are in docs/how-it-works.md (Rating drops).
 */
import type { RatingDropAlert } from './types.js';

/** The poll's review alerts explain a drop when they account for at least this share of it. */
export const EXPLAINED_SHARE = 0.5;

export interface DropDelivery {
  /** A rating-drop message of its own, to the app's channels. */
  message: boolean;
  /** The poll's review alerts carry "rating now 4.2 (was 4.3)". */
  fold: boolean;
  /** Kept in the outbox (the app page's markers, the digest) even without a message. */
  record: boolean;
  saidIn?: RatingDropAlert['saidIn'];
}

export interface DropContext {
  /** The share of the fall this poll's alerted reviews account for (`alertedShare`), 0..1. */
  alertedShare: number;
  /** Every channel the drop would reach also gets one of those review alerts. */
  reviewsReachItsChannels: boolean;
  competitor: boolean;
  /** alerts.ratingDrop.competitors is `immediate`: a competitor's drop alerts like an own app's. */
  competitorsImmediate: boolean;
}

export function dropDelivery(
  drop: Pick<RatingDropAlert, 'crossed' | 'deepening'>,
  context: DropContext,
): DropDelivery {
  const explained = context.alertedShare + 1e-9 >= EXPLAINED_SHARE;
  const crossed = drop.crossed !== undefined;
  // News of its own: a level crossed, or a first fall the poll's reviews do not explain. A further low
  // of the same fall is news only past a level.
  const news = crossed || (!explained && !drop.deepening);
  if (context.competitor && !context.competitorsImmediate) {
    return { message: false, fold: explained, record: news || explained, saidIn: 'digest' };
  }
  if (explained && !crossed && context.reviewsReachItsChannels) {
    return { message: false, fold: true, record: true, saidIn: 'review-alerts' };
  }
  // A first fall the reviews explain, on a channel they do not reach, still needs saying there.
  const message = news || (explained && !drop.deepening);
  return { message, fold: false, record: message };
}

/**
 * How much of a fall the poll's alerted reviews account for: the average without them (new reviews taken
 * out, re-ratings undone) against the average now, as a share of the fall. 1 when the reviews are all
 * the ratings there are.
 */
export function alertedShare(
  now: { average: number; count: number },
  fell: number,
  alerted: { added: readonly number[]; rerated: ReadonlyArray<{ from: number; to: number }> },
): number {
  if (fell <= 1e-9) return 0;
  const n = alerted.added.length;
  if (n === 0 && alerted.rerated.length === 0) return 0;
  const rest = now.count - n;
  if (rest <= 0) return 1;
  const sum =
    now.average * now.count -
    alerted.added.reduce((a, b) => a + b, 0) +
    alerted.rerated.reduce((a, r) => a + r.from - r.to, 0);
  return Math.min(1, Math.max(0, (sum / rest - now.average) / fell));
}
