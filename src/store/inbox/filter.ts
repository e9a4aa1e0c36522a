/** What the inbox's list is narrowed to, and what a filter's words and statuses mean to the queries. */
import type { Priority } from '../../scoring/priority.js';
import type { TriageStatus } from '../schema.js';

/** Every field narrows the list; an absent one does not filter. */
export interface InboxFilter {
  /** These apps only (an app filter, a role's apps, or both intersected); an empty list matches nothing. */
  apps?: readonly string[];
  /** Not these apps (the Open view leaves out competitors' reviews). */
  excludeApps?: readonly string[];
  stars?: readonly number[];
  priorities?: readonly Priority[];
  statuses?: readonly TriageStatus[];
  assignee?: string;
  tag?: string;
  /** Reviews with this topic (their `topics` column, computed from the text: src/topics). */
  topic?: string;
  /** From this moment, inclusive: of the review's date, or of when it was first seen under `seen`. */
  from?: Date;
  /** Until this moment, exclusive (the same date as `from`). */
  to?: Date;
  /** Words to find in the review's text or reviewer (full-text, each word a prefix, all of them). */
  text?: string;
  /**
   * Reviews the marketplace removed (`removed_at`): left out (`hide`), or the only ones (`only`); absent,
   * they are listed with the others. A review's removal is no answer to its complaint, so the list does not
   * hide them unless asked (web/filters.ts).
   */
  removed?: 'hide' | 'only';
}

/**
 * The words of a search as an FTS5 query: each a quoted word, all required; undefined when none is left.
 * The index stems (drizzle/0009_fts_stemmed.sql), so "refund" also finds "refunds" and "refunded" without
 * a prefix query, which FTS5 could not check review by review quickly.
 */
export function ftsQuery(text: string): string | undefined {
  const terms = text
    .split(/\s+/)
    .map((word) => word.replace(/"/g, ''))
    // A word of punctuation alone is no token to FTS5, and would match nothing.
    .filter((word) => /[\p{L}\p{N}]/u.test(word))
    .slice(0, 16);
  if (terms.length === 0) return undefined;
  return terms.map((term) => `"${term}"`).join(' ');
}

/** A filter only reviews with a triage row can match: no tag, and a status other than new or an assignee. */
export function onlyTriaged(filter: InboxFilter): boolean {
  if (filter.tag !== undefined) return false;
  return filter.assignee !== undefined || (filter.statuses !== undefined && !filter.statuses.includes('new'));
}
