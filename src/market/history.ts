/**
 * A category's stored history read back for people: how far an app moved over a span, the runs of failed
 * snapshots (gaps, never rank 0), the apps that left the tracked pages, and the sponsored slots that
 * changed hands. Pure: the store reads the snapshots, the views (web/market-views/) call these.
 */
import type { CategorySnapshot } from './snapshot.js';

/** A snapshot of the timeline as stored: `ok` ones carry the snapshot, the others are gaps. */
export interface TimelineEntry {
  at: number;
  status: 'ok' | 'failed' | 'unavailable';
  snapshot: CategorySnapshot | null;
}

/** The organic rank of an app in a snapshot; null when it is not in the tracked pages (or holds only an ad). */
export function rankIn(snapshot: CategorySnapshot, handle: string): number | null {
  return snapshot.apps.find((a) => a.handle === handle)?.rank ?? null;
}

/**
 * Places climbed from `from` to `to` (positive: up, towards rank 1); null when either side is not in the
 * tracked pages, where the distance is not known.
 */
export function placesClimbed(from: number | null, to: number | null): number | null {
  return from === null || to === null ? null : from - to;
}

/**
 * What a move over `spanMs` is measured against: the latest entry taken at least `spanMs` before
 * `latestAt`; when the history is shorter than that, its oldest entry (the caller says "since"). Entries
 * oldest first.
 */
export function entryBefore<T extends { at: number }>(
  entries: readonly T[],
  latestAt: number,
  spanMs: number,
): T | undefined {
  let found: T | undefined;
  for (const entry of entries) {
    if (entry.at <= latestAt - spanMs) found = entry;
    else break;
  }
  return found ?? entries[0];
}

/** A run of snapshots that failed or found the category unavailable: a break in every line, never rank 0. */
export interface SnapshotGap {
  /** When the first and the last snapshot of the run were due. */
  from: number;
  to: number;
  snapshots: number;
  status: 'failed' | 'unavailable';
}

/** The gaps of a timeline (oldest first), one per run of snapshots that are not `ok`. */
export function gapsOf(timeline: readonly Pick<TimelineEntry, 'at' | 'status'>[]): SnapshotGap[] {
  const gaps: SnapshotGap[] = [];
  let current: SnapshotGap | undefined;
  for (const entry of timeline) {
    if (entry.status === 'ok') {
      current = undefined;
      continue;
    }
    if (current === undefined) {
      current = { from: entry.at, to: entry.at, snapshots: 0, status: entry.status };
      gaps.push(current);
    }
    current.to = entry.at;
    current.snapshots++;
    // A run that was ever unavailable says so: that is the one that needs a person.
    if (entry.status === 'unavailable') current.status = 'unavailable';
  }
  return gaps;
}

export interface Exit {
  handle: string;
  name: string;
  /** The first snapshot that no longer ranked it. */
  at: number;
  /** Its rank in the last snapshot that did. */
  lastRank: number;
}

/**
 * Apps ranked organically in some snapshot but not in the last one: the apps that left the tracked pages
 * and have not come back, newest exit first. An app wobbling around the last tracked place shows once,
 * as of its last exit, and not at all while it is back in.
 */
export function exitsOf(snapshots: readonly CategorySnapshot[]): Exit[] {
  const last = snapshots[snapshots.length - 1];
  if (last === undefined) return [];
  const now = new Set(last.apps.filter((a) => a.rank !== null).map((a) => a.handle));
  const seen = new Map<string, Exit>();
  for (let i = 0; i < snapshots.length - 1; i++) {
    const snapshot = snapshots[i] as CategorySnapshot;
    const next = snapshots[i + 1] as CategorySnapshot;
    for (const app of snapshot.apps) {
      if (app.rank === null || now.has(app.handle)) continue;
      seen.set(app.handle, { handle: app.handle, name: app.name, at: next.at, lastRank: app.rank });
    }
  }
  return [...seen.values()].sort((a, b) => b.at - a.at || a.lastRank - b.lastRank);
}

export interface SponsorChange {
  at: number;
  added: Array<{ handle: string; name: string }>;
  removed: Array<{ handle: string; name: string }>;
}

/** Who took and who gave up a sponsored slot, between each snapshot and the one before it; oldest first. */
export function sponsorChanges(snapshots: readonly CategorySnapshot[]): SponsorChange[] {
  const changes: SponsorChange[] = [];
  for (let i = 1; i < snapshots.length; i++) {
    const before = sponsorsByHandle(snapshots[i - 1] as CategorySnapshot);
    const after = sponsorsByHandle(snapshots[i] as CategorySnapshot);
    const added = [...after].filter(([h]) => !before.has(h)).map(([handle, name]) => ({ handle, name }));
    const removed = [...before].filter(([h]) => !after.has(h)).map(([handle, name]) => ({ handle, name }));
    if (added.length > 0 || removed.length > 0)
      changes.push({ at: (snapshots[i] as CategorySnapshot).at, added, removed });
  }
  return changes;
}

function sponsorsByHandle(snapshot: CategorySnapshot): Map<string, string> {
  const sponsors = new Map<string, string>();
  for (const slot of snapshot.sponsored) if (!sponsors.has(slot.handle)) sponsors.set(slot.handle, slot.name);
  return sponsors;
}
