/**
 * The longest a Retry-After is waited: a server asking for hours (or a date far ahead, or a skewed
 * clock) would otherwise stall alerts or polls that long; after this the request is simply tried again.
 */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** Retry-After is either delay-seconds or an HTTP date; capped at MAX_RETRY_AFTER_MS. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.min(MAX_RETRY_AFTER_MS, Math.round(Number(trimmed) * 1000));
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, date - now));
}

/** Said after a wait a Retry-After gave, when the cap cut it (or it asked for just that). */
export function retryAfterCapNote(waitMs: number): string {
  return waitMs >= MAX_RETRY_AFTER_MS ? ' (Retry-After is waited 5 minutes at most)' : '';
}

/** A 3xx: a redirect, which no channel follows (notify/errors.ts, `redirectRefused`). */
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}
