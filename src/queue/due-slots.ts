/**
 * When a periodic read of a subject is due, shared by the reconciliations (reconcile-worker.ts) and the
 * market reads (market-worker.ts). Each subject's moment within its period is a hash of its handle, so
 * many subjects spread over the period instead of all coming due at once, and a restart or another worker
 * changes none of them. When each subject was last read comes from SQLite, never from Redis: after a
 * flush, putting the one scheduler back is all it takes, and no moment is read twice. A moment that
 * passed while no worker ran catches up only within CATCH_UP_MS; past that it waits for the next one, so
 * a restart after a long stop does not read everything at once.
 */
import { hash } from 'node:crypto';

/** A subject whose moment passed longer ago than this (no worker ran) waits for its next one. */
export const CATCH_UP_MS = 60 * 60_000;

/** Where in each period of `everyMs` the subject's moment falls: stable, and spread evenly by the hash. */
export function slotOffset(subject: string, everyMs: number): number {
  const bits = Number.parseInt(hash('sha256', subject).slice(0, 12), 16);
  return bits % everyMs;
}

/** The subject's latest moment at or before `now` (epoch ms). */
export function latestSlot(subject: string, everyMs: number, now: number): number {
  const offset = slotOffset(subject, everyMs);
  return Math.floor((now - offset) / everyMs) * everyMs + offset;
}

export interface DueOptions {
  /** How long after its moment a subject may still catch up; CATCH_UP_MS by default. */
  catchUpMs?: number;
  /** A subject never read is due at once (the market's first snapshot), not only at its moment. */
  firstAtOnce?: boolean;
}

/**
 * The subjects due now, each with its moment: it passed less than the catch-up time (and the period) ago,
 * and no read started since. `last` holds when each subject last started one.
 */
export function dueSlots(
  subjects: readonly string[],
  last: ReadonlyMap<string, number>,
  everyMs: number,
  now: number,
  options: DueOptions = {},
): Array<{ subject: string; slot: number }> {
  const catchUpMs = options.catchUpMs ?? CATCH_UP_MS;
  return subjects.flatMap((subject) => {
    const slot = latestSlot(subject, everyMs, now);
    const previous = last.get(subject);
    if (previous === undefined && options.firstAtOnce) return [{ subject, slot }];
    const due = now - slot < Math.min(catchUpMs, everyMs) && (previous === undefined || previous < slot);
    return due ? [{ subject, slot }] : [];
  });
}
