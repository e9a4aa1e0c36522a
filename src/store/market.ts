/**
 * The market watch's store: category snapshots and ranks, the apps each category ever ranked, listing
 * versions and their changes, developers' apps and the requests each kind of read spent.
 */
import { and, asc, desc, eq, gte, inArray, isNotNull, isNull, like, lt, lte, max, sql } from 'drizzle-orm';
import type { CategorySnapshot, ListingChange, NormalizedListing } from '../market/index.js';
import type { Db } from './db.js';
import {
  alerts,
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

export type CategoryRow = typeof categories.$inferSelect;
export type DeveloperRow = typeof developers.$inferSelect;

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

/** Each category's latest successful snapshot (categories never snapshotted are absent). */
export function latestSnapshots(db: Db, handles: readonly string[]): Map<string, CategorySnapshot> {
  const out = new Map<string, CategorySnapshot>();
  for (const handle of handles) {
    const row = db
      .select({ snapshot: categorySnapshots.snapshot })
      .from(categorySnapshots)
      .where(and(eq(categorySnapshots.categoryHandle, handle), eq(categorySnapshots.status, 'ok')))
      .orderBy(desc(categorySnapshots.takenAt), desc(categorySnapshots.id))
      .limit(1)
      .get();
    if (row?.snapshot) out.set(handle, row.snapshot as CategorySnapshot);
  }
  return out;
}

export function developerRow(db: Db, handle: string): DeveloperRow | undefined {
  return db.select().from(developers).where(eq(developers.handle, handle)).get();
}

/**
 * The API answered 404 for a developer: marks it unavailable (keeping the first time) and says whether it
 * was not already, so the caller logs it once. Its apps stay as they were: a 404 is no evidence of removals.
 */
export function markDeveloperUnavailable(db: Db, handle: string, reason: string, at: Date): boolean {
  const known = developerRow(db, handle);
  db.insert(developers)
    // No checkedAt: that is when its apps were last read, and a 404 read none (the first read that
    // answers stays the baseline).
    .values({ handle, unavailableSince: at, unavailableReason: reason })
    .onConflictDoUpdate({
      target: developers.handle,
      set: {
        unavailableSince: known?.unavailableSince ?? at,
        unavailableReason: reason,
      },
    })
    .run();
  return known?.unavailableSince == null;
}

/** The watched apps (of `handles`) a developer lists now, as its last successful read stored them. */
export function watchedAppsOf(db: Db, developer: string, handles: readonly string[]): string[] {
  if (handles.length === 0) return [];
  const listed = new Set(
    db
      .select({ app: developerApps.appHandle })
      .from(developerApps)
      .where(
        and(
          eq(developerApps.developerHandle, developer),
          isNull(developerApps.removedAt),
          inArray(developerApps.appHandle, [...handles]),
        ),
      )
      .all()
      .map((row) => row.app),
  );
  return handles.filter((h) => listed.has(h));
}

/**
 * Rank alerts are stored under the dedupe key `rank:<category>:<app>:<snapshot id>` (handles hold no
 * colon), raised at the snapshot's time: when each app last had one in this category.
 */
export function rankAlertKey(category: string, app: string, snapshotId: number): string {
  return `rank:${category}:${app}:${snapshotId}`;
}

export function lastRankAlertAt(db: Db, category: string, handles: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const handle of handles) {
    const row = db
      .select({ at: max(alerts.createdAt) })
      .from(alerts)
      .where(
        and(
          eq(alerts.appHandle, handle),
          eq(alerts.kind, 'rank'),
          like(alerts.dedupeKey, `rank:${category}:${handle}:%`),
        ),
      )
      .get();
    if (row?.at) out.set(handle, row.at.getTime());
  }
  return out;
}

/** Rating drops and incidents of these apps raised since `since`: what a rank alert may be explained by. */
export function reviewAlertsSince(
  db: Db,
  handles: readonly string[],
  since: Date,
): Array<{ handle: string; kind: 'rating-drop' | 'incident'; at: Date; payload: unknown }> {
  if (handles.length === 0) return [];
  return db
    .select({ handle: alerts.appHandle, kind: alerts.kind, at: alerts.createdAt, payload: alerts.payload })
    .from(alerts)
    .where(
      and(
        inArray(alerts.appHandle, [...handles]),
        inArray(alerts.kind, ['rating-drop', 'incident']),
        gte(alerts.createdAt, since),
      ),
    )
    .orderBy(asc(alerts.createdAt))
    .all()
    .flatMap((row) =>
      row.kind === 'rating-drop' || row.kind === 'incident' ? [{ ...row, kind: row.kind }] : [],
    );
}

/**
 * When each subject of a kind was last read (a run started, whatever came of it), from SQLite: the
 * market schedule's "last done", so a flushed Redis loses nothing and repeats nothing.
 */
export function lastMarketRuns(db: Db, kind: MarketRunKind): Map<string, number> {
  return new Map(
    db
      .select({ subject: marketRuns.subject, at: max(marketRuns.startedAt) })
      .from(marketRuns)
      .where(eq(marketRuns.kind, kind))
      .groupBy(marketRuns.subject)
      .all()
      .flatMap((row) => (row.at ? [[row.subject, row.at.getTime()] as const] : [])),
  );
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
  // Never read successfully (a 404 alone leaves a row without checkedAt): this read is the baseline.
  const first = known?.checkedAt == null;
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
      and(
        eq(categorySnapshots.categoryHandle, category),
        gte(categorySnapshots.takenAt, since),
        lt(categorySnapshots.takenAt, until),
      ),
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

/** The apps a developer lists as its last successful read stored them: handle (or `name:…`) to name. */
export function listedDeveloperApps(db: Db, developer: string): Map<string, string | null> {
  return new Map(
    db
      .select({ app: developerApps.appHandle, name: developerApps.name })
      .from(developerApps)
      .where(and(eq(developerApps.developerHandle, developer), isNull(developerApps.removedAt)))
      .all()
      .map((row) => [row.app, row.name]),
  );
}

/** When a subject's last successful read of a kind started, if it ever had one. */
export function lastOkMarketRun(db: Db, kind: MarketRunKind, subject: string): Date | undefined {
  const row = db
    .select({ at: max(marketRuns.startedAt) })
    .from(marketRuns)
    .where(and(eq(marketRuns.kind, kind), eq(marketRuns.subject, subject), eq(marketRuns.status, 'ok')))
    .get();
  return row?.at ?? undefined;
}

/**
 * The developer each of these apps was last listed by (a successful developer read lists the app), for the
 * credit plan: how many distinct developers the listing reads will ask for.
 */
export function developersOfApps(db: Db, handles: readonly string[]): Map<string, string> {
  if (handles.length === 0) return new Map();
  return new Map(
    db
      .select({ app: developerApps.appHandle, developer: developerApps.developerHandle })
      .from(developerApps)
      .where(and(inArray(developerApps.appHandle, [...handles]), isNull(developerApps.removedAt)))
      .all()
      .map((row) => [row.app, row.developer]),
  );
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
