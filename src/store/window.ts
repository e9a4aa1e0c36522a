import { and, gte, lt, type SQL } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';

/**
 * Rows whose `column` falls in [since, until): half-open, so windows that meet (a page's weeks, a chart's
 * days) never both hold a row.
 */
export function within(column: SQLiteColumn, since: Date, until: Date): SQL | undefined {
  return and(gte(column, since), lt(column, until));
}
