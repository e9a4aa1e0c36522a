/** The tracked categories' rows: baseline, last snapshot, unavailable since, last error. */
import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../db.js';
import { categories } from '../schema.js';

export function ensureCategory(db: Db, handle: string): void {
  db.insert(categories).values({ handle }).onConflictDoNothing().run();
}

export type CategoryRow = typeof categories.$inferSelect;

/** A category's row (baseline, last snapshot, unavailable since), if it was ever snapshotted. */
export function categoryRow(db: Db, handle: string): CategoryRow | undefined {
  return db.select().from(categories).where(eq(categories.handle, handle)).get();
}

/** Every tracked category's row, for `status` and the views. */
export function categoryRows(db: Db, handles: readonly string[]): CategoryRow[] {
  if (handles.length === 0) return [];
  return db
    .select()
    .from(categories)
    .where(inArray(categories.handle, [...handles]))
    .all();
}

export interface CategoryState {
  handle: string;
  baselineAt: Date | null;
  lastSnapshotAt: Date | null;
  unavailableSince: Date | null;
  unavailableReason: string | null;
  lastError: string | null;
}

/** The stored state of these categories; a category never snapshotted has none. */
export function categoryStates(db: Db, handles: readonly string[]): Map<string, CategoryState> {
  if (handles.length === 0) return new Map();
  return new Map(
    db
      .select()
      .from(categories)
      .where(inArray(categories.handle, [...handles]))
      .all()
      .map((row) => [row.handle, row]),
  );
}
