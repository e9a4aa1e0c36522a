import type { PollJobResult } from '../queue/poll-worker.js';
import { stars } from '../render/escape.js';
import { plural } from '../util/plural.js';

export { stars };

// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Terminal text: control characters in untrusted review text would otherwise drive the terminal. */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, '').replace(/\s+/g, ' ').trim();
}

/**
 * Marketplace text on one terminal line: no control characters, at most `max` characters (an ellipsis
 * ends a longer one).
 */
export function terminalLine(text: string, max = 60): string {
  const line = terminalSafe(text);
  return [...line].length > max ? `${[...line].slice(0, max - 1).join('')}…` : line;
}

/** "2026-11-27 09:42 UTC", or "-". */
export function utcMinute(date: Date | null): string {
  return date ? `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '-';
}

/** Places climbed as "▲3", "▼8", "±0"; "" when the move cannot be told. */
export function rankMove(places: number | null): string {
  if (places === null) return '';
  return places === 0 ? '±0' : `${places > 0 ? '▲' : '▼'}${Math.abs(places)}`;
}

export function formatPollLine(result: PollJobResult): string {
  const requests = plural(result.requests, 'request');
  switch (result.status) {
    case 'unavailable':
      return `${result.handle}: unavailable: ${result.unavailable ?? 'not found'}`;
    case 'skipped':
      return `${result.handle}: skipped: ${result.skippedBecause ?? 'another poll of it is still running'}`;
    case 'baseline':
      return `${result.handle}: baseline, ${result.newReviews} reviews stored as history (${requests})`;
    default: {
      const parts = [`${result.newReviews} new`];
      if (result.lowRated.length > 0) parts.push(`${result.lowRated.length} low-rated`);
      if (result.editedReviews > 0) parts.push(`${result.editedReviews} edited`);
      if (result.gap) parts.push(gapText(result.gap));
      return `${result.handle}: ${parts.join(', ')} (${requests})`;
    }
  }
}

function gapText(gap: NonNullable<PollJobResult['gap']>): string {
  if (gap.state === 'closed') return 'burst read to its end';
  const unread = gap.unread === null ? 'more reviews' : `about ${gap.unread} reviews`;
  return `page cap reached: ${unread} unread, the next polls read on`;
}

export function formatLowRated(
  items: Array<{ handle: string; review: PollJobResult['lowRated'][number] }>,
): string {
  return items
    .map(({ handle, review }) => {
      const content = terminalSafe(review.content);
      const excerpt = content.length > 120 ? `${content.slice(0, 119)}…` : content || '(no text)';
      return `  ${stars(review.rating)} ${handle} — ${terminalSafe(review.reviewer) || 'anonymous'}: ${excerpt}`;
    })
    .join('\n');
}
