/**
 * The inbox list's orders and its cursors: where a page starts, as `next` gives it and a URL carries it.
 */
import { HANDLE_PATTERN } from '../../catalog/handle.js';

/**
 * The orders of the list: `newest` by the marketplace's date (the default), `seen` by when reviewwatch
 * first saw the review (its period then counts by that too), `severity` most urgent first and `app` by the
 * app's handle; the last two newest first within.
 */
export const INBOX_SORTS = ['newest', 'seen', 'severity', 'app'] as const;
export type InboxSort = (typeof INBOX_SORTS)[number];

/**
 * Where a page starts: after the row with these values of the list's order. `key` is the sort's own value
 * (the first-seen time, the severity, the app's handle); `at` the review's date; ties go by row id.
 */
export type Cursor =
  | { sort: 'newest'; at: number; id: number }
  | { sort: 'seen'; key: number; id: number }
  | { sort: 'severity'; key: number; at: number; id: number }
  | { sort: 'app'; key: string; at: number; id: number };

const NUMBER = '(-?\\d{1,16})';
const ROW = '(\\d{1,16})';
const CURSOR_FORMS: { [S in InboxSort]: RegExp } = {
  newest: new RegExp(`^${NUMBER}_${ROW}$`),
  seen: new RegExp(`^seen\\.${NUMBER}_${ROW}$`),
  severity: new RegExp(`^severity\\.${NUMBER}_${NUMBER}_${ROW}$`),
  app: new RegExp(`^app\\.([a-z0-9-]{1,200})\\.${NUMBER}_${ROW}$`),
};

/**
 * A cursor as `next` gave it, for any of the orders; undefined for one the caller made up or mangled (the
 * list then answers with its first page). The newest-first form is `<date>_<id>`, as before there were
 * other orders; the others lead with their name (`seen.…`, `severity.…`, `app.…`).
 */
export function parseCursor(cursor: string | undefined): Cursor | undefined {
  if (!cursor) return undefined;
  for (const sort of INBOX_SORTS) {
    const m = CURSOR_FORMS[sort].exec(cursor);
    if (!m) continue;
    const n = (i: number) => Number(m[i]);
    switch (sort) {
      case 'newest':
        return { sort, at: n(1), id: n(2) };
      case 'seen':
        return { sort, key: n(1), id: n(2) };
      case 'severity':
        return { sort, key: n(1), at: n(2), id: n(3) };
      case 'app':
        return HANDLE_PATTERN.test(m[1] ?? '') ? { sort, key: m[1] ?? '', at: n(2), id: n(3) } : undefined;
    }
  }
  return undefined;
}

/** The cursor that starts a page right after this row of a list in this order. */
export function cursorAfter(sort: InboxSort, row: { id: number; at: number; key: number | string }): string {
  switch (sort) {
    case 'newest':
      return `${row.at}_${row.id}`;
    case 'seen':
      return `seen.${row.key}_${row.id}`;
    case 'severity':
      return `severity.${row.key}_${row.at}_${row.id}`;
    case 'app':
      return `app.${row.key}.${row.at}_${row.id}`;
  }
}
