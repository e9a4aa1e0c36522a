/**
 * Category snapshots and their ranks: each snapshot (or gap) of a category, the organic ranks it held,
 * and every app a category's tracked pages ever ranked (what is not among them is a new entrant).
 */
import { and, asc, desc, eq, gte, inArray, lt } from 'drizzle-orm';
import type { CategorySnapshot } from '../../market/index.js';
import type { Db } from '../db.js';
import { categories, categoryAppsSeen, categoryRanks, categorySnapshots } from '../schema.js';
import { within } from '../window.js';
import { ensureCategory } from './categories.js';
import { latestListing } from './listings.js';
import type { MarketRunStatus } from './runs.js';

/** A category's successful snapshots: not its gaps (failed or unavailable). */
function successfulOf(category: string) {
  return and(eq(categorySnapshots.categoryHandle, category), eq(categorySnapshots.status, 'ok'));
}

/** Each category's latest successful snapshot (categories never snapshotted are absent). */
export function latestSnapshots(db: Db, handles: readonly string[]): Map<string, CategorySnapshot> {
  const out = new Map<string, CategorySnapshot>();
  for (const handle of handles) {
    const row = db
      .select({ snapshot: categorySnapshots.snapshot })
      .from(categorySnapshots)
      .where(successfulOf(handle))
      .orderBy(desc(categorySnapshots.takenAt), desc(categorySnapshots.id))
      .limit(1)
      .get();
    if (row?.snapshot) out.set(handle, row.snapshot as CategorySnapshot);
  }
  return out;
}

export interface SnapshotRecord {
  category: string;
  takenAt: Date;
  status: MarketRunStatus;
  requests: number;
  /** Set for `ok` only: a failed or unavailable snapshot is a gap. */
  snapshot?: CategorySnapshot;
  error?: string;
}

/**
 * Stores one snapshot (or gap) of a category with its ranks, marks the apps it ranked as seen, and keeps
 * the category's row up to date. Returns the snapshot's id and whether the category was unavailable
 * before (so the caller says once that it is back).
 */
export function recordCategorySnapshot(
  db: Db,
  record: SnapshotRecord,
): { id: number; wasUnavailable: boolean } {
  ensureCategory(db, record.category);
  const before = db.select().from(categories).where(eq(categories.handle, record.category)).get();
  const row = db
    .insert(categorySnapshots)
    .values({
      categoryHandle: record.category,
      takenAt: record.takenAt,
      status: record.status,
      requests: record.requests,
      snapshot: record.status === 'ok' ? (record.snapshot ?? null) : null,
      error: record.error ?? null,
    })
    .returning({ id: categorySnapshots.id })
    .get();
  const { snapshot } = record;
  if (record.status === 'ok' && snapshot) {
    for (const app of snapshot.apps) {
      db.insert(categoryRanks)
        .values({
          snapshotId: row.id,
          categoryHandle: record.category,
          appHandle: app.handle,
          takenAt: record.takenAt,
          rank: app.rank,
          sponsored: app.sponsored,
        })
        .onConflictDoNothing()
        .run();
      if (app.rank === null) continue;
      db.insert(categoryAppsSeen)
        .values({
          categoryHandle: record.category,
          appHandle: app.handle,
          firstSeenAt: record.takenAt,
          lastSeenAt: record.takenAt,
        })
        .onConflictDoUpdate({
          target: [categoryAppsSeen.categoryHandle, categoryAppsSeen.appHandle],
          set: { lastSeenAt: record.takenAt },
        })
        .run();
    }
  }
  db.update(categories)
    .set(
      record.status === 'ok'
        ? {
            baselineAt: before?.baselineAt ?? record.takenAt,
            lastSnapshotAt: record.takenAt,
            unavailableSince: null,
            unavailableReason: null,
            lastError: null,
          }
        : record.status === 'unavailable'
          ? {
              unavailableSince: before?.unavailableSince ?? record.takenAt,
              unavailableReason: record.error ?? null,
              lastError: record.error ?? null,
            }
          : { lastError: record.error ?? null },
    )
    .where(eq(categories.handle, record.category))
    .run();
  return { id: row.id, wasUnavailable: before?.unavailableSince != null };
}

/** A category's successful snapshots taken since `since`, oldest first: the detector's history. */
export function snapshotsSince(db: Db, category: string, since: Date): CategorySnapshot[] {
  return db
    .select({ snapshot: categorySnapshots.snapshot })
    .from(categorySnapshots)
    .where(and(successfulOf(category), gte(categorySnapshots.takenAt, since)))
    .orderBy(asc(categorySnapshots.takenAt))
    .all()
    .map((row) => row.snapshot as CategorySnapshot);
}

/** Every snapshot and gap of a category since `since`, oldest first: for charts that show the gaps. */
export function snapshotTimeline(
  db: Db,
  category: string,
  since: Date,
): Array<{ id: number; takenAt: Date; status: MarketRunStatus }> {
  return db
    .select({
      id: categorySnapshots.id,
      takenAt: categorySnapshots.takenAt,
      status: categorySnapshots.status,
    })
    .from(categorySnapshots)
    .where(and(eq(categorySnapshots.categoryHandle, category), gte(categorySnapshots.takenAt, since)))
    .orderBy(asc(categorySnapshots.takenAt))
    .all();
}

/** The organic ranks of these apps in a category since `since`, oldest first. */
export function rankHistory(
  db: Db,
  category: string,
  handles: readonly string[],
  since: Date,
): Array<{ appHandle: string; takenAt: Date; rank: number | null; sponsored: boolean }> {
  if (handles.length === 0) return [];
  return db
    .select({
      appHandle: categoryRanks.appHandle,
      takenAt: categoryRanks.takenAt,
      rank: categoryRanks.rank,
      sponsored: categoryRanks.sponsored,
    })
    .from(categoryRanks)
    .where(
      and(
        eq(categoryRanks.categoryHandle, category),
        inArray(categoryRanks.appHandle, [...handles]),
        gte(categoryRanks.takenAt, since),
      ),
    )
    .orderBy(asc(categoryRanks.takenAt))
    .all();
}

/** Every app the category's tracked pages ranked organically, ever (what is not in it is a new entrant). */
export function appsSeenIn(db: Db, category: string): Map<string, Date> {
  return new Map(
    db
      .select({ handle: categoryAppsSeen.appHandle, first: categoryAppsSeen.firstSeenAt })
      .from(categoryAppsSeen)
      .where(eq(categoryAppsSeen.categoryHandle, category))
      .all()
      .map((row) => [row.handle, row.first]),
  );
}

export interface StoredSnapshot {
  id: number;
  takenAt: Date;
  status: MarketRunStatus;
  /** Null for a gap (failed or unavailable). */
  snapshot: CategorySnapshot | null;
  error: string | null;
}

const STORED_SNAPSHOT = {
  id: categorySnapshots.id,
  takenAt: categorySnapshots.takenAt,
  status: categorySnapshots.status,
  snapshot: categorySnapshots.snapshot,
  error: categorySnapshots.error,
};

/** A snapshot row as the views read it: a gap's snapshot is null whatever the column holds. */
function storedSnapshotOf(row: Omit<StoredSnapshot, 'snapshot'> & { snapshot: unknown }): StoredSnapshot {
  return { ...row, snapshot: row.status === 'ok' ? (row.snapshot as CategorySnapshot) : null };
}

/** Every snapshot and gap of a category taken in [since, until), with the snapshots, oldest first. */
export function categorySnapshotsBetween(
  db: Db,
  category: string,
  since: Date,
  until: Date,
): StoredSnapshot[] {
  return db
    .select(STORED_SNAPSHOT)
    .from(categorySnapshots)
    .where(
      and(eq(categorySnapshots.categoryHandle, category), within(categorySnapshots.takenAt, since, until)),
    )
    .orderBy(asc(categorySnapshots.takenAt), asc(categorySnapshots.id))
    .all()
    .map(storedSnapshotOf);
}

/** The category's last successful snapshot taken before `before`, if any. */
export function lastSnapshotBefore(db: Db, category: string, before: Date): StoredSnapshot | undefined {
  const row = db
    .select(STORED_SNAPSHOT)
    .from(categorySnapshots)
    .where(and(successfulOf(category), lt(categorySnapshots.takenAt, before)))
    .orderBy(desc(categorySnapshots.takenAt), desc(categorySnapshots.id))
    .limit(1)
    .get();
  return row && storedSnapshotOf(row);
}

/** Apps a category's tracked pages ranked for the first time ever in [since, until), oldest first. */
export function firstSeenBetween(
  db: Db,
  category: string,
  since: Date,
  until: Date,
): Array<{ handle: string; firstSeenAt: Date }> {
  return db
    .select({ handle: categoryAppsSeen.appHandle, firstSeenAt: categoryAppsSeen.firstSeenAt })
    .from(categoryAppsSeen)
    .where(
      and(eq(categoryAppsSeen.categoryHandle, category), within(categoryAppsSeen.firstSeenAt, since, until)),
    )
    .orderBy(asc(categoryAppsSeen.firstSeenAt), asc(categoryAppsSeen.appHandle))
    .all();
}

export interface OutsideCategories {
  /** Watched apps in no tracked category's latest snapshot, with the categories their listing names. */
  apps: Array<{ handle: string; listingCategories: string[] | null }>;
  /** Tracked categories never snapshotted yet: until they are, an app's absence says nothing. */
  unsnapshotted: string[];
}

/**
 * Watched apps that appear (organically or in an ad) in none of the tracked categories' latest snapshots,
 * each with the categories its stored listing names (null: no listing read yet).
 */
export function appsOutsideCategories(
  db: Db,
  apps: readonly string[],
  categories: readonly string[],
): OutsideCategories {
  const latest = latestSnapshots(db, categories);
  const present = new Set([...latest.values()].flatMap((s) => s.apps.map((a) => a.handle)));
  return {
    apps: apps
      .filter((h) => !present.has(h))
      .map((handle) => ({
        handle,
        listingCategories: latestListing(db, handle)?.listing.categories ?? null,
      })),
    unsnapshotted: categories.filter((c) => !latest.has(c)),
  };
}

/** The categories whose tracked pages ranked this app (organically or in an ad) since `since`. */
export function categoriesRanking(db: Db, handle: string, since: Date): string[] {
  return db
    .selectDistinct({ category: categoryRanks.categoryHandle })
    .from(categoryRanks)
    .where(and(eq(categoryRanks.appHandle, handle), gte(categoryRanks.takenAt, since)))
    .all()
    .map((row) => row.category);
}
