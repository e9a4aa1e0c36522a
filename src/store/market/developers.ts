/** Developers and the apps each publishes, as its last successful read stored them. */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../db.js';
import { developerApps, developers } from '../schema.js';

export type DeveloperRow = typeof developers.$inferSelect;

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
