/**
 * How the store writes SQL that runs often (docs/stack-notes.md, "better-sqlite3 and drizzle"): drizzle
 * queries over the schema's tables and columns, prepared once per database with named placeholders, so
 * the compiler checks every column against the schema and derives every row's type from it, while a run
 * costs what the statement costs (no query building, a few µs of row mapping).
 */
import { Column, getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { StoreDb } from './db.js';

/**
 * A named placeholder for a value of `column`, encoded as the column encodes it: a timestamp takes a
 * Date, a boolean column a boolean, a JSON column the value. Null stays null (drizzle encodes a bare
 * placeholder's null as the column would a value: a timestamp's throws, a JSON column's becomes "null").
 * Usable wherever a value of the column goes: `values`, `set`, and comparisons in `where`.
 */
export function bound<C extends SQLiteColumn>(column: C, name: string): SQL<C['_']['data'] | null> {
  // Text, integers and reals bind as they are: no encoder to call for each run.
  if (column.mapToDriverValue === Column.prototype.mapToDriverValue) return sql`${sql.placeholder(name)}`;
  const encoder = {
    mapToDriverValue: (value: unknown) => (value === null ? null : column.mapToDriverValue(value)),
  };
  return sql`${sql.param(sql.placeholder(name), encoder)}`;
}

/**
 * An insert's values: every column of `table` but those of `except` (the id, say), each bound to the
 * placeholder of its own name (`bound`), so a row binds as it is. Derived from the table: a new column
 * binds with no edit here; a run must then give its value (drizzle throws on a missing one).
 */
export function rowBindings<T extends SQLiteTable, E extends keyof T['$inferInsert'] = never>(
  table: T,
  except: readonly E[] = [],
): Record<Exclude<keyof T['$inferInsert'], E>, SQL> {
  const left: ReadonlySet<PropertyKey> = new Set(except);
  return Object.fromEntries(
    Object.entries(getTableColumns(table))
      .filter(([key]) => !left.has(key))
      .map(([key, column]) => [key, bound(column, key)]),
  ) as Record<Exclude<keyof T['$inferInsert'], E>, SQL>;
}

/**
 * `(select value from json_each(?))` over a placeholder holding a JSON array: one statement for any number
 * of values (`inArray(column, jsonEach('ids'))`), where a list would need a statement per length.
 */
export function jsonEach(name: string): SQL {
  return sql`(select value from json_each(${sql.placeholder(name)}))`;
}

/** Queries built by `build` once per database (they are prepared on its connection), then reused. */
export function preparedOnce<T>(build: (db: StoreDb) => T): (db: StoreDb) => T {
  const cache = new WeakMap<StoreDb, T>();
  return (db) => {
    let prepared = cache.get(db);
    if (!prepared) {
      prepared = build(db);
      cache.set(db, prepared);
    }
    return prepared;
  };
}
