/**
 * The digest's triage figures as pure functions of what the store returned (queries.ts): the open
 * reviews per priority, and how long the team took to acknowledge what alerted.
 */
import { PRIORITIES, type Priority } from '../alerts/types.js';
import type { DigestTriage } from './types.js';

/** A review a person first acknowledged in the period (queries.ts `acknowledgements`). */
export interface Acknowledgement {
  acknowledgedAt: Date;
  /** The first review alert about it raised before then. */
  raisedAt: Date;
  /** The first delivery of such an alert that went out; null when none did. */
  firstSentAt: Date | null;
}

/**
 * When the team was alerted: the first delivery, which is when a person could see it (a throttled alert
 * waits before it goes out), or when it was raised if it was acknowledged before any delivery went out
 * (seen in the inbox first, or no channel takes it).
 */
export function alertedAt(ack: Acknowledgement): Date {
  const sent = ack.firstSentAt;
  return sent !== null && sent.getTime() <= ack.acknowledgedAt.getTime() ? sent : ack.raisedAt;
}

/** The middle value; the mean of the two middle ones for an even count; null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const upper = sorted[mid] as number;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] as number) + upper) / 2;
}

export function digestTriage(
  open: ReadonlyArray<{ priority: Priority; n: number }>,
  acknowledgements: readonly Acknowledgement[],
): DigestTriage {
  const byPriority = Object.fromEntries(PRIORITIES.map((p) => [p, 0])) as Record<Priority, number>;
  for (const row of open) byPriority[row.priority] += row.n;
  const times = acknowledgements.map((a) => Math.max(0, a.acknowledgedAt.getTime() - alertedAt(a).getTime()));
  return {
    open: byPriority,
    openTotal: PRIORITIES.reduce((n, p) => n + byPriority[p], 0),
    acknowledged: acknowledgements.length,
    medianAckMs: median(times),
  };
}
