/**
 * New entrants in a category, apps a developer published or removed, and Built-for badges gained or lost.
 * All judged against what was stored before: the caller passes it in.
 */
import type { DeveloperApp } from '../catalog/schemas.js';
import type { CategorySnapshot, SnapshotApp } from './snapshot.js';

export interface NewEntrants {
  category: string;
  at: number;
  /** In rank order: one message per category and snapshot lists them all. */
  apps: SnapshotApp[];
}

/**
 * Apps ranked organically in this snapshot that the category's whole stored history never ranked.
 * `seen` holds every handle ranked organically in any earlier snapshot of the category; an ad alone does
 * not enter an app (it is bought, not earned), so an app first seen in a sponsored slot is still new when
 * it first ranks. The first snapshot of a category is its baseline: everything in it is known, nothing new.
 */
export function newEntrants(
  snapshot: CategorySnapshot,
  seen: ReadonlySet<string>,
  options: { baseline: boolean },
): NewEntrants | null {
  if (options.baseline) return null;
  const apps = snapshot.apps.filter((a) => a.rank !== null && !seen.has(a.handle));
  return apps.length === 0 ? null : { category: snapshot.category, at: snapshot.at, apps };
}

export interface DeveloperAppChanges {
  published: DeveloperApp[];
  removed: DeveloperApp[];
}

/** An app's identity in a developer's list: its handle, else its URL, else its name (the reduced form). */
function developerAppKey(app: DeveloperApp): string {
  return app.handle || app.url || `name:${app.name.trim().toLowerCase()}`;
}

/**
 * Apps in `next` and not in `previous` (published), and the reverse (removed), by identity, not by order.
 * The caller compares two successful reads only: a failed read is no evidence of a removal.
 */
export function developerAppChanges(
  previous: readonly DeveloperApp[],
  next: readonly DeveloperApp[],
): DeveloperAppChanges {
  const before = new Map(previous.map((a) => [developerAppKey(a), a]));
  const after = new Map(next.map((a) => [developerAppKey(a), a]));
  return {
    published: [...after].filter(([k]) => !before.has(k)).map(([, a]) => a),
    removed: [...before].filter(([k]) => !after.has(k)).map(([, a]) => a),
  };
}

export interface BadgeChange {
  handle: string;
  name: string;
  kind: 'gained' | 'lost';
}

/**
 * Built-for badges of `watched` apps that changed between two snapshots of a category. An app missing
 * from either snapshot, or whose badge a page did not state, changed nothing we know of.
 */
export function badgeChanges(
  previous: CategorySnapshot,
  next: CategorySnapshot,
  watched: ReadonlySet<string>,
): BadgeChange[] {
  const before = new Map(previous.apps.map((a) => [a.handle, a.builtFor]));
  const changes: BadgeChange[] = [];
  for (const app of next.apps) {
    if (!watched.has(app.handle)) continue;
    const was = before.get(app.handle);
    if (was === undefined || was === null || app.builtFor === null || was === app.builtFor) continue;
    changes.push({ handle: app.handle, name: app.name, kind: app.builtFor ? 'gained' : 'lost' });
  }
  return changes;
}
