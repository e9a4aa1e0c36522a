import type { Db } from '../store/db.js';
import { messagesSentSince, oldestSentSince } from '../store/outbox.js';

/** At most `max` messages per app and channel within `windowMs` (alerts.throttle). */
export interface Throttle {
  max: number;
  windowMs: number;
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
