/** Listing versions (a new one when the normalised listing or its badge moved) and their changes. */
import { and, asc, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { ListingChange, NormalizedListing } from '../../market/index.js';
import type { Db } from '../db.js';
import { type ListingChangeRow, listingChanges, listingVersions } from '../schema.js';

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
