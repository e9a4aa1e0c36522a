/**
 * The market watch's store: category snapshots and ranks, the apps each category ever ranked, listing
 * versions and their changes, developers' apps and the requests each kind of read spent.
 */
import { and, asc, desc, eq, gte, inArray, isNotNull, isNull, lt, lte, sql } from 'drizzle-orm';
import type { CategorySnapshot, ListingChange, NormalizedListing } from '../market/index.js';
import type { Db } from './db.js';
import {
  categories,
  categoryAppsSeen,
  categoryRanks,
  categorySnapshots,
  developerApps,
  developers,
  type ListingChangeRow,
  listingChanges,
  listingVersions,
  marketRuns,
  ratingSnapshots,
  reviews,
  reviewTriage,
} from './schema.js';

export type MarketRunKind = 'category' | 'listing' | 'developer';
export type MarketRunStatus = 'ok' | 'failed' | 'unavailable';

export function ensureCategory(db: Db, handle: string): void {
  db.insert(categories).values({ handle }).onConflictDoNothing().run();
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
    .where(
      and(
        eq(categorySnapshots.categoryHandle, category),
        eq(categorySnapshots.status, 'ok'),
        gte(categorySnapshots.takenAt, since),
      ),
    )
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

export interface StoredListing {
  versionId: number;
  listing: NormalizedListing;
  hash: string;
  builtFor: boolean | null;
  rating: number | null;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

/** The app's latest listing version, if it was ever read. */
export function latestListing(db: Db, handle: string): StoredListing | undefined {
  const row = db
    .select()
    .from(listingVersions)
    .where(eq(listingVersions.appHandle, handle))
    .orderBy(desc(listingVersions.id))
    .limit(1)
    .get();
  return row
    ? {
        versionId: row.id,
        listing: row.listing as NormalizedListing,
        hash: row.hash,
        builtFor: row.builtFor,
        rating: row.rating,
        firstSeenAt: row.firstSeenAt,
        lastSeenAt: row.lastSeenAt,
      }
    : undefined;
}

/**
 * Stores a listing read: a new version when the normalised listing's hash (or the badge) moved, else
 * only when it was last seen. Returns the version now current and the one before, if any.
 */
export function recordListing(
  db: Db,
  read: {
    handle: string;
    listing: NormalizedListing;
    hash: string;
    builtFor: boolean | null;
    rating: number | null;
    at: Date;
  },
): { current: number; previous: StoredListing | undefined; changed: boolean } {
  const previous = latestListing(db, read.handle);
  if (previous && previous.hash === read.hash && previous.builtFor === read.builtFor) {
    db.update(listingVersions)
      .set({ lastSeenAt: read.at, rating: read.rating })
      .where(eq(listingVersions.id, previous.versionId))
      .run();
    return { current: previous.versionId, previous, changed: false };
  }
  const row = db
    .insert(listingVersions)
    .values({
      appHandle: read.handle,
      hash: read.hash,
      listing: read.listing,
      builtFor: read.builtFor,
      rating: read.rating,
      firstSeenAt: read.at,
      lastSeenAt: read.at,
    })
    .returning({ id: listingVersions.id })
    .get();
  return { current: row.id, previous, changed: true };
}

export function insertListingChanges(
  db: Db,
  handle: string,
  versionId: number,
  changes: ReadonlyArray<ListingChange & { alerted: boolean }>,
  at: Date,
): void {
  for (const change of changes) {
    db.insert(listingChanges)
      .values({ appHandle: handle, versionId, field: change.field, change, alerted: change.alerted, at })
      .run();
  }
}

/** The listing changes of these apps since `since`, newest first. */
export function listingChangesSince(db: Db, handles: readonly string[], since: Date): ListingChangeRow[] {
  if (handles.length === 0) return [];
  return db
    .select()
    .from(listingChanges)
    .where(and(inArray(listingChanges.appHandle, [...handles]), gte(listingChanges.at, since)))
    .orderBy(desc(listingChanges.at), desc(listingChanges.id))
    .all();
}

/**
 * Stores what a developer publishes now; returns the apps added and removed since the last read (none on
 * the first read: that is the baseline).
 */
export function recordDeveloperApps(
  db: Db,
  developer: { handle: string; name: string | null },
  apps: ReadonlyArray<{ handle: string; name: string | null }>,
  at: Date,
): { added: string[]; removed: string[]; first: boolean } {
  const known = db.select().from(developers).where(eq(developers.handle, developer.handle)).get();
  db.insert(developers)
    .values({ handle: developer.handle, name: developer.name, checkedAt: at })
    .onConflictDoUpdate({
      target: developers.handle,
      set: { name: developer.name, checkedAt: at, unavailableSince: null, unavailableReason: null },
    })
    .run();
  const listed = db
    .select()
    .from(developerApps)
    .where(and(eq(developerApps.developerHandle, developer.handle), isNull(developerApps.removedAt)))
    .all();
  const now = new Set(apps.map((a) => a.handle));
  const before = new Set(listed.map((a) => a.appHandle));
  const added = apps.filter((a) => !before.has(a.handle));
  const removed = listed.filter((a) => !now.has(a.appHandle)).map((a) => a.appHandle);
  for (const app of added) {
    db.insert(developerApps)
      .values({ developerHandle: developer.handle, appHandle: app.handle, name: app.name, firstSeenAt: at })
      .onConflictDoUpdate({
        target: [developerApps.developerHandle, developerApps.appHandle],
        set: { removedAt: null, name: app.name },
      })
      .run();
  }
  for (const handle of removed) {
    db.update(developerApps)
      .set({ removedAt: at })
      .where(and(eq(developerApps.developerHandle, developer.handle), eq(developerApps.appHandle, handle)))
      .run();
  }
  const first = known === undefined;
  return { added: first ? [] : added.map((a) => a.handle), removed, first };
}

export function insertMarketRun(
  db: Db,
  run: {
    kind: MarketRunKind;
    subject: string;
    startedAt: Date;
    finishedAt: Date;
    status: MarketRunStatus;
    requests: number;
    error?: string;
  },
): void {
  db.insert(marketRuns)
    .values({ ...run, error: run.error ?? null })
    .run();
}

/** Catalog requests the market reads spent since `since`, by kind: for `status` and the credit plan. */
export function marketRequestsSince(db: Db, since: Date): Record<MarketRunKind, number> {
  const totals: Record<MarketRunKind, number> = { category: 0, listing: 0, developer: 0 };
  const rows = db
    .select({ kind: marketRuns.kind, n: sql<number>`sum(${marketRuns.requests})` })
    .from(marketRuns)
    .where(gte(marketRuns.startedAt, since))
    .groupBy(marketRuns.kind)
    .all();
  for (const row of rows) totals[row.kind] = row.n ?? 0;
  return totals;
}

// ---------------------------------------------------------------------------------------------------------
// Reads for the market views (store/market-views.ts): the overview, a category's page, an app's listing
// timeline, the CLI's `market` and the digest's Market section.

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

export interface StoredSnapshot {
  id: number;
  takenAt: Date;
  status: MarketRunStatus;
  /** Null for a gap (failed or unavailable). */
  snapshot: CategorySnapshot | null;
  error: string | null;
}

/** Every snapshot and gap of a category taken in [since, until), with the snapshots, oldest first. */
export function categorySnapshotsBetween(
  db: Db,
  category: string,
  since: Date,
  until: Date,
): StoredSnapshot[] {
  return db
    .select({
      id: categorySnapshots.id,
      takenAt: categorySnapshots.takenAt,
      status: categorySnapshots.status,
      snapshot: categorySnapshots.snapshot,
      error: categorySnapshots.error,
    })
    .from(categorySnapshots)
    .where(
      and(
        eq(categorySnapshots.categoryHandle, category),
        gte(categorySnapshots.takenAt, since),
        lt(categorySnapshots.takenAt, until),
      ),
    )
    .orderBy(asc(categorySnapshots.takenAt), asc(categorySnapshots.id))
    .all()
    .map((row) => ({ ...row, snapshot: row.status === 'ok' ? (row.snapshot as CategorySnapshot) : null }));
}

/** The category's last successful snapshot taken before `before`, if any. */
export function lastSnapshotBefore(db: Db, category: string, before: Date): StoredSnapshot | undefined {
  const row = db
    .select({
      id: categorySnapshots.id,
      takenAt: categorySnapshots.takenAt,
      status: categorySnapshots.status,
      snapshot: categorySnapshots.snapshot,
      error: categorySnapshots.error,
    })
    .from(categorySnapshots)
    .where(
      and(
        eq(categorySnapshots.categoryHandle, category),
        eq(categorySnapshots.status, 'ok'),
        lt(categorySnapshots.takenAt, before),
      ),
    )
    .orderBy(desc(categorySnapshots.takenAt), desc(categorySnapshots.id))
    .limit(1)
    .get();
  return row ? { ...row, snapshot: row.snapshot as CategorySnapshot } : undefined;
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
      and(
        eq(categoryAppsSeen.categoryHandle, category),
        gte(categoryAppsSeen.firstSeenAt, since),
        lt(categoryAppsSeen.firstSeenAt, until),
      ),
    )
    .orderBy(asc(categoryAppsSeen.firstSeenAt), asc(categoryAppsSeen.appHandle))
    .all();
}

/**
 * An app's listing changes by version, newest version first and each version's changes in the order the
 * diff gave them: at most `versions` versions, older than the version `beforeVersion` when given (the JSON
 * API's cursor). Returns one more version than asked for when there is one, for the caller's cursor.
 */
export function listingChangesOf(
  db: Db,
  handle: string,
  options: { versions: number; beforeVersion?: number },
): ListingChangeRow[] {
  const versions = db
    .selectDistinct({ id: listingChanges.versionId })
    .from(listingChanges)
    .where(
      and(
        eq(listingChanges.appHandle, handle),
        options.beforeVersion === undefined ? undefined : lt(listingChanges.versionId, options.beforeVersion),
      ),
    )
    .orderBy(desc(listingChanges.versionId))
    .limit(options.versions + 1)
    .all()
    .map((row) => row.id);
  if (versions.length === 0) return [];
  return db
    .select()
    .from(listingChanges)
    .where(and(eq(listingChanges.appHandle, handle), inArray(listingChanges.versionId, versions)))
    .orderBy(desc(listingChanges.versionId), asc(listingChanges.id))
    .all();
}

/** Each app's latest listing version that changed something, with all the changes it made. */
export function lastListingChanges(db: Db, handles: readonly string[]): Map<string, ListingChangeRow[]> {
  const out = new Map<string, ListingChangeRow[]>();
  if (handles.length === 0) return out;
  const latest = db
    .select({ version: sql<number>`max(${listingChanges.versionId})` })
    .from(listingChanges)
    .where(inArray(listingChanges.appHandle, [...handles]))
    .groupBy(listingChanges.appHandle)
    .all()
    .map((row) => row.version);
  if (latest.length === 0) return out;
  const rows = db
    .select()
    .from(listingChanges)
    .where(inArray(listingChanges.versionId, latest))
    .orderBy(asc(listingChanges.id))
    .all();
  for (const row of rows) out.set(row.appHandle, [...(out.get(row.appHandle) ?? []), row]);
  return out;
}

/** Whether the store has read this app's listing (or changes of it) at all. */
export function listingKnown(db: Db, handle: string): boolean {
  return (
    db
      .select({ id: listingVersions.id })
      .from(listingVersions)
      .where(eq(listingVersions.appHandle, handle))
      .limit(1)
      .get() !== undefined
  );
}

/**
 * The listed rating of each app as the review polls stored it: the latest, and the latest at or before
 * `before` (for the change over a week); null where none was stored.
 */
export function ratingsAt(
  db: Db,
  handles: readonly string[],
  before: Date,
): Map<string, { latest: { average: number; at: Date } | null; before: number | null }> {
  const out = new Map<string, { latest: { average: number; at: Date } | null; before: number | null }>();
  const pick = (handle: string, until: Date | undefined) =>
    db
      .select({ average: ratingSnapshots.average, at: ratingSnapshots.takenAt })
      .from(ratingSnapshots)
      .where(
        and(
          eq(ratingSnapshots.appHandle, handle),
          isNotNull(ratingSnapshots.average),
          until === undefined ? undefined : lte(ratingSnapshots.takenAt, until),
        ),
      )
      .orderBy(desc(ratingSnapshots.takenAt), desc(ratingSnapshots.id))
      .limit(1)
      .get();
  for (const handle of handles) {
    const latest = pick(handle, undefined);
    const then = pick(handle, before);
    out.set(handle, {
      latest: latest?.average == null ? null : { average: latest.average, at: latest.at },
      before: then?.average ?? null,
    });
  }
  return out;
}

/** Low-rated reviews (at most `maxRating` stars) still new or acknowledged, per app. */
export function openLowReviews(db: Db, handles: readonly string[], maxRating: number): Map<string, number> {
  const out = new Map<string, number>(handles.map((h) => [h, 0]));
  if (handles.length === 0) return out;
  const rows = db
    .select({ handle: reviews.appHandle, n: sql<number>`count(*)` })
    .from(reviews)
    .leftJoin(reviewTriage, eq(reviewTriage.reviewRowId, reviews.id))
    .where(
      and(
        inArray(reviews.appHandle, [...handles]),
        lte(reviews.rating, maxRating),
        sql`coalesce(${reviewTriage.status}, 'new') in ('new', 'acknowledged')`,
      ),
    )
    .groupBy(reviews.appHandle)
    .all();
  for (const row of rows) out.set(row.handle, row.n);
  return out;
}
