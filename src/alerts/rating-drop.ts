import { PRIORITIES, type Priority, type RatingDropAlert } from './types.js';

/** Reviews per star, one-star first: `[ones, twos, threes, fours, fives]`. */
export type StarCounts = readonly [number, number, number, number, number];

export interface RatingLevel {
  average: number;
  count: number;
  at: Date;
  /** The summary's counts per star then; unset for a level stored before they were kept. */
  stars?: StarCounts | undefined;
}

/**
 * What the two drop rules remember between polls. It lives in SQLite (the apps.rating_level_* columns),
 * so a restart forgets no alert and re-arms nothing.
 */
export interface DropState {
  /**
   * What a fall is measured from and the evidence gathered since: the highest rating since the rules
   * were armed (or since a drop said as a line on review alerts), or, after a drop message, its low.
   */
  level: RatingLevel;
  /**
   * A message said the fall and the level is its low: the rules stay quiet until the average has stood
   * `recovery` above it for `recoveryHoldMs`, and meanwhile find only a new low (`minDrop` below it, or
   * under a half-star level), a deepening of the same fall.
   */
  alerted: boolean;
  /**
   * The displayed (one-decimal) rating a fall below alerts, say 4.4. An alert lowers it to the rating
   * alerted on; it rises only once the average clears the rounding boundary under a higher one by
   * `recovery` (4.40 for 4.4: the boundary 4.35 plus 0.05). So an average hovering at 4.35 does not
   * flip it. Unset for a state stored before it was kept: the level's displayed rating then.
   */
  displayed?: number | undefined;
  /**
   * While alerted: since when the average has stood `recovery` above the low, unset while it has not.
   * The rules re-arm once that has lasted `recoveryHoldMs`.
   */
  recoveringSince?: Date | undefined;
}

export interface DropRule {
  minDrop: number;
  /** Alert when the displayed rating falls, too. */
  displayed: boolean;
  /** How far the average must climb back before the same fall alerts again (see DropState). */
  recovery: number;
  /** How long the average must stay recovered before the rules re-arm (alerts.ratingDrop.recoveryHold). */
  recoveryHoldMs: number;
  /** Reviews at or below this are low (alerts.lowRating.maxRating): the explanation names them apart. */
  maxRating: number;
}

export interface DropEvidence {
  /** New reviews stored (not as history) since the level and still listed, per star. */
  newByStars: StarCounts;
  /** All reviews stored (not as history) since the level, listed or not. */
  newReviews: number;
  /** Stored reviews an edit re-rated lower since the level. */
  rerated: number;
  /**
   * How the stored reviews moved the summary's counts since the level, per star: new ones (history
   * included) in, removed ones out, re-rated ones from their old stars to their new ones.
   */
  storedDelta: StarCounts;
  /** Stored reviews seen before the level and marked removed since. */
  removed: number;
  /** Reviews of a burst not read yet (an open gap): the summary counts them, the store does not. */
  unread: number;
}

export interface RatingEvaluation {
  /** The drop to alert on, without its app (the caller knows it). */
  drop?: Omit<RatingDropAlert, 'app' | 'kind'>;
  /** The state to keep; undefined leaves it as it was (most polls: nothing to write). */
  next?: DropState;
}

export interface CurrentRating {
  average: number | null;
  count: number | null;
  at: Date;
  /** Counts per star, when the summary gave every one. */
  stars?: StarCounts | undefined;
}

const EPSILON = 1e-9;

/** The rating as the listing displays it: one decimal. */
export function displayed(average: number): string {
  return (tenths(average) / 10).toFixed(1);
}

/** The displayed rating in tenths (4.35 → 44), so that comparisons are exact. */
function tenths(average: number): number {
  return Math.round(average * 10 + EPSILON);
}

/**
 * Compares the current rating with the state the last poll left, and says whether the rating fell
 * enough to alert. Two rules, each with hysteresis so that a rating hovering at a rounding boundary or
 * bouncing back and forth alerts once per fall, not at every wobble:
 * - the average fell by `minDrop` from the highest level since the rules were armed;
 * - the displayed rating fell below the one held (DropState.displayed).
 * After a drop the rules wait: they re-arm only once the average has stood `recovery` above the low for
 * `recoveryHoldMs` (a bounce back for a poll or two is not a recovery). Meanwhile a fall to a new low
 * (`minDrop` below it, or below a half-star level) is returned as a deepening of the same fall, which
 * `dropDelivery` words at most as a line on the poll's review alerts unless it crossed a level.
 */
export function evaluateRating(
  state: DropState | undefined,
  current: CurrentRating,
  rule: DropRule,
  /** What happened since the level (the moment given): asked only when there is a drop to explain. */
  evidence: (since: Date) => DropEvidence,
): RatingEvaluation {
  if (current.average === null || current.count === null) return {};
  const average = current.average;
  const now: RatingLevel = {
    average,
    count: current.count,
    at: current.at,
    ...(current.stars ? { stars: current.stars } : {}),
  };
  if (!state) return { next: { level: now, alerted: false, displayed: tenths(average) / 10 } };

  const recovering = state.alerted ? recoveringSince(state, now, rule) : undefined;
  const rearmed = recovering !== undefined && now.at.getTime() - recovering.getTime() >= rule.recoveryHoldMs;
  const alerted = state.alerted && !rearmed;
  // Armed, the level follows the rating up: a fall is measured from the highest since.
  const level = !alerted && (rearmed || average > state.level.average + EPSILON) ? now : state.level;
  const heldBefore = tenths(state.displayed ?? state.level.average);
  const held = Math.max(heldBefore, tenths(average - rule.recovery));

  const fell = level.average - average;
  const averageFell = fell + EPSILON >= rule.minDrop;
  // Fallen, a level crossed is measured from the low: a bounce above it and back crosses nothing new.
  const crossed = crossedLevel(
    alerted ? tenths(level.average) : Math.max(held, tenths(level.average)),
    average,
  );
  // Until the average recovers, a lower displayed rating is the fall already alerted on: only a new low
  // (minDrop further, or past a half-star level) is news.
  const displayFell = rule.displayed && !alerted && tenths(average) < held;
  if (!averageFell && !displayFell && !(alerted && crossed !== undefined)) {
    const keep = alerted && recovering ? { recoveringSince: recovering } : {};
    const changed =
      level !== state.level ||
      alerted !== state.alerted ||
      state.displayed === undefined ||
      state.recoveringSince?.getTime() !== recovering?.getTime();
    return changed || held !== heldBefore ? { next: { level, alerted, displayed: held / 10, ...keep } } : {};
  }
  return {
    next: { level: now, alerted: true, displayed: Math.min(held, tenths(average)) / 10 },
    drop: {
      priority: dropPriority(fell, level.count),
      from: { average: level.average, count: level.count, at: level.at.toISOString() },
      to: { average, count: current.count, at: current.at.toISOString() },
      explanation: explain(level, now, fell, rule.maxRating, evidence(level.at)),
      ...(crossed === undefined ? {} : { crossed }),
      ...(alerted ? { deepening: true as const } : {}),
    },
  };
}

/**
 * Since when the average has stood at least `recovery` above the low alerted on, this poll included;
 * undefined when it does not now. One poll below the mark starts the wait over.
 */
function recoveringSince(state: DropState, now: RatingLevel, rule: DropRule): Date | undefined {
  if (now.average + EPSILON < state.level.average + rule.recovery) return undefined;
  return state.recoveringSince ?? now.at;
}

/**
 * The highest half-star level (4.5, 4.0, 3.5 …) the displayed rating fell below, from `fromTenths` (the
 * displayed rating before, in tenths) to `average` now; undefined when it crossed none. The levels
 * people read a listing by: "under 4.5", "under 4 stars".
 */
export function crossedLevel(fromTenths: number, average: number): number | undefined {
  const level = Math.floor(fromTenths / 5) * 5;
  return level > tenths(average) && level >= 10 ? level / 10 : undefined;
}

function explain(
  level: RatingLevel,
  now: RatingLevel,
  fell: number,
  maxRating: number,
  evidence: DropEvidence,
): RatingDropAlert['explanation'] {
  const { newByStars, newReviews, rerated, storedDelta, removed, unread } = evidence;
  const low: number[] = [];
  const below: number[] = [];
  newByStars.forEach((n, i) => {
    const stars = i + 1;
    if (stars <= maxRating) low.push(...Array<number>(n).fill(stars));
    else if (stars < level.average) below.push(...Array<number>(n).fill(stars));
  });
  const unstored = level.stars && now.stars ? unstoredOf(level, now, fell, storedDelta, unread) : undefined;
  return {
    newLowReviews: low.length,
    lowReviewsShare: shareOf(now, fell, low),
    // With the counts per star known, what left the summary without a stored review is in `unstored`:
    // only the stored reviews marked removed are counted here, so nothing is said twice.
    vanished: level.stars && now.stars ? removed : Math.max(0, level.count + newReviews - now.count),
    rerated,
    ...(below.length > 0
      ? {
          newBelowAverage: {
            count: below.length,
            share: shareOf(now, fell, below),
            ratings: [...new Set(below)],
          },
        }
      : {}),
    ...(unstored ? { unstored } : {}),
  };
}

/**
 * The summary's changes per star that no stored review accounts for, and how much of the fall they
 * explain: the average had only the stored reviews moved it, against the average now.
 */
function unstoredOf(
  level: RatingLevel,
  now: RatingLevel,
  fell: number,
  storedDelta: StarCounts,
  unread: number,
): NonNullable<RatingDropAlert['explanation']['unstored']> | undefined {
  const before = level.stars as StarCounts;
  const after = now.stars as StarCounts;
  const stars = after.map((n, i) => n - (before[i] ?? 0) - (storedDelta[i] ?? 0));
  if (stars.every((n) => n === 0)) return undefined;
  const storedCount = storedDelta.reduce((a, b) => a + b, 0);
  const storedSum = storedDelta.reduce((a, n, i) => a + n * (i + 1), 0);
  const count = level.count + storedCount;
  const expected = count > 0 ? (level.average * level.count + storedSum) / count : level.average;
  const share = fell > EPSILON ? clamp01((expected - now.average) / fell) : 0;
  return { stars, share, ...(unread > 0 ? { unread } : {}) };
}

/**
 * How much of the fall some new reviews explain: the average without them, compared with the average
 * now, as a share of the whole fall.
 */
function shareOf(now: RatingLevel, fell: number, ratings: number[]): number {
  const n = ratings.length;
  if (n === 0 || fell <= EPSILON || now.count - n <= 0) return 0;
  const without = (now.average * now.count - ratings.reduce((a, b) => a + b, 0)) / (now.count - n);
  return clamp01((without - now.average) / fell);
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/**
 * The priority of a fall: by its size, capped by the number of ratings it was measured on, so that one
 * review on an app with a handful of ratings (which moves the average by a star over the count) is never
 * CRITICAL. The caps are in docs/how-it-works.md (Rating drops).
 */
export function dropPriority(fell: number, ratings: number): Priority {
  const bySize: Priority = fell >= 0.3 ? 'critical' : fell >= 0.1 ? 'high' : 'medium';
  const cap = RATING_CAPS.find((c) => ratings < c.below)?.cap ?? 'critical';
  return PRIORITIES.indexOf(bySize) > PRIORITIES.indexOf(cap) ? bySize : cap;
}

/** Fewer ratings than `below`: at most `cap`. */
const RATING_CAPS: ReadonlyArray<{ below: number; cap: Priority }> = [
  { below: 10, cap: 'low' },
  { below: 50, cap: 'medium' },
  { below: 200, cap: 'high' },
];
