/**
 * How a rating drop is said, once `evaluateRating` found one: as a message of its own, as a line on the
 * review alerts of the same poll, in the weekly digest only, or not at all (a further low of a fall
 * already said, which nothing new explains). Pure: raise.ts and bench/rating-drop.ts both call it. The
 * rules are in docs/how-it-works.md (Rating drops).
 */
import type { DropState } from './rating-drop.js';
import type { RatingDropAlert } from './types.js';

/** Low reviews (each alerted) explain a drop when they account for at least this share of it. */
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
  /**
   * How much of the fall alerted reviews account for, 0..1: the low reviews since the level (each had
   * its alert) or this poll's alerted ones with its re-ratings (`alertedShare`), whichever is more.
   */
  explainedShare: number;
  /** The poll raised review alerts, and every channel the drop would reach gets one of them. */
  reviewsReachItsChannels: boolean;
  competitor: boolean;
  /** alerts.ratingDrop.competitors is `immediate`: a competitor's drop alerts like an own app's. */
  competitorsImmediate: boolean;
}

/**
 * - A first fall (the rules armed) that alerted reviews explain, crossing no half-star level, is a line
 *   on the poll's review alerts; the rules stay armed, measuring from the new level.
 * - A first fall that nothing alerted explains, or that crossed a level, is a message of its own; the
 *   rules then wait for a recovery that holds (`evaluateRating`).
 * - A further low of a fall said in a message is a line when the poll's review alerts explain it, a
 *   message only when nothing explains it and it crossed a level, else nothing: one fall, one message.
 *   One that alerted reviews explain but whose line cannot go on them is a message past a level, else
 *   kept for the digest.
 * - A competitor's drop (unless `competitorsImmediate`) goes only to the digest, its line still on the
 *   competitor's review alerts.
 */
export function dropDelivery(
  drop: Pick<RatingDropAlert, 'crossed' | 'deepening'>,
  context: DropContext,
): DropDelivery {
  const explained = context.explainedShare + 1e-9 >= EXPLAINED_SHARE;
  const crossed = drop.crossed !== undefined;
  const news = drop.deepening ? crossed && !explained : crossed || !explained;
  const fold = explained && context.reviewsReachItsChannels;
  if (context.competitor && !context.competitorsImmediate) {
    // One entry per fall in the digest: a further low only when it crossed a level.
    return { message: false, fold, record: !drop.deepening || crossed, saidIn: 'digest' };
  }
  if (fold && !news) return { message: false, fold: true, record: true, saidIn: 'review-alerts' };
  // A first fall the reviews explain, on a channel they do not reach, still needs saying there.
  if (!news && explained && !drop.deepening) return { message: true, fold: false, record: true };
  // A further low the reviews would explain but cannot carry (a channel they miss, none this poll) is
  // said as if unexplained: a message past a level, else the digest, never dropped unsaid.
  if (!news && explained) {
    return crossed
      ? { message: true, fold: false, record: true }
      : { message: false, fold: false, record: true, saidIn: 'digest' };
  }
  return { message: news, fold: false, record: news };
}

/**
 * The state the rules keep once a drop was said: `next` as `evaluateRating` gave it assumes a message
 * (or the digest) said it and the rules now wait for a recovery; a line on review alerts keeps them
 * armed at the new level, and a further low keeps them waiting.
 */
export function stateAfter(
  next: DropState,
  drop: Pick<RatingDropAlert, 'deepening'>,
  how: DropDelivery,
): DropState {
  if (how.message || how.saidIn === 'digest' || drop.deepening) return next;
  return { ...next, alerted: false };
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
