/**
 * One rank story, told the same way everywhere (docs/inbox.md, "One rank story"). A rank alert measures a
 * move from the app's usual level (the median of its recent snapshots) to its rank when the move held;
 * the week's move compares the latest snapshot with the one a week before. They are different questions,
 * so both are shown, each labelled: "fell #6 → #14 on 27 Nov" and "#15, ▼10 against a week ago". The pages,
 * `/api/market` and `reviewwatch market` take their text from here; the alert's own numbers come from its
 * payload, so nothing is recomputed.
 */
import type { CategoryRank } from './ranks.js';
import { WEEK_MS } from './ranks.js';

/** A rank alert's move, as raised (market/rank-alerts.ts): from the app's level to its rank then. */
export interface AlertMove {
  kind: 'fell' | 'rose' | 'entered' | 'left';
  from: number | null;
  to: number | null;
  at: Date;
  /** The alert's id, for a link to where it is listed. */
  alertId: number;
}

/** The labels the pages, the JSON's readers and the CLI put before each side of the story. */
export const ALERT_MOVE_LABEL = 'Rank alert';
export const WEEK_MOVE_LABEL = 'This week';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "27 Nov" (UTC): the day of a move, as the alert's reader would say it. */
export function shortDay(date: Date): string {
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}`;
}

const place = (rank: number | null) => (rank === null ? 'out of the tracked pages' : `#${rank}`);

/** "fell #6 → #14 on 27 Nov": the alert's numbers, as its headline gives them. */
export function alertMoveText(move: Omit<AlertMove, 'alertId'>): string {
  const on = `on ${shortDay(move.at)}`;
  switch (move.kind) {
    case 'fell':
    case 'rose':
      return `${move.kind} ${place(move.from)} → ${place(move.to)} ${on}`;
    case 'entered':
      return `entered the tracked pages at ${place(move.to)} ${on}`;
    case 'left':
      return `left the tracked pages (usually ${place(move.from)}) ${on}`;
  }
}

/** "▼10", "▲3", "±0". */
export function placesText(move: number): string {
  return move === 0 ? '±0' : `${move > 0 ? '▲' : '▼'}${Math.abs(move)}`;
}

/**
 * "#15, ▼10 against a week ago (#5 then)": the latest rank and the week's move. When the history is shorter
 * than a week the move is against the oldest snapshot kept, and it says since when.
 */
export function weekMoveText(rank: CategoryRank): string {
  const then = rank.before?.rank ?? null;
  const before = rank.before;
  const against =
    before === null
      ? ''
      : rank.at.getTime() - before.at.getTime() >= WEEK_MS
        ? 'against a week ago'
        : `against the oldest snapshot kept, ${shortDay(before.at)} ${before.at.toISOString().slice(11, 16)} UTC`;
  if (rank.rank === null) {
    return then === null ? 'not in the tracked pages' : `left the tracked pages, #${then} ${against}`;
  }
  if (before === null) return `#${rank.rank}, no earlier snapshot to compare`;
  if (then === null) return `#${rank.rank}, new in the tracked pages ${against}`;
  return `#${rank.rank}, ${placesText(rank.move ?? 0)} ${against} (#${then} then)`;
}
