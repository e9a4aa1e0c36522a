import type { Db } from '../store/db.js';
import { messagesSentSince, oldestSentSince } from '../store/outbox.js';

/** At most `max` messages per app and channel within `windowMs` (alerts.throttle). */
export interface Throttle {
  max: number;
  windowMs: number;
  /**
   * What the throttle holds goes out as one grouped message at most this long after the first of it was
   * held, window free or not (alerts.throttle.maxHold). Unset: held alerts wait for the window to free.
   */
  maxHoldMs?: number;
}

/** How long until another message about this app may go to this channel, or undefined if it may now. */
export function throttleWait(
  db: Db,
  throttle: Throttle,
  channel: string,
  app: string,
  at: Date,
): number | undefined {
  const { max, windowMs } = throttle;
  const since = new Date(at.getTime() - windowMs);
  if (messagesSentSince(db, channel, app, since) < max) return undefined;
  const oldest = oldestSentSince(db, channel, app, since);
  return Math.max(1_000, (oldest ? oldest.getTime() + windowMs : at.getTime() + windowMs) - at.getTime());
}

/**
 * How long held alerts still wait, given the throttle's `windowWait`: until the window frees, but never
 * past `maxHoldMs` after the first of them was held. 0 means they go now, throttle or not.
 */
export function holdWait(
  throttle: Throttle,
  windowWait: number,
  firstHeldAt: Date | undefined,
  at: Date,
): number {
  if (throttle.maxHoldMs === undefined) return windowWait;
  // No hold time on record (should not happen: hold() stamps it): the clock starts now.
  const heldFor = firstHeldAt ? at.getTime() - firstHeldAt.getTime() : 0;
  return Math.max(0, Math.min(windowWait, throttle.maxHoldMs - heldFor));
}
