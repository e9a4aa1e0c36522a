/**
 * The market's part of the daily prune (retention.ts), with the ages of `retention.ratingSnapshots`:
 *
 * - Category snapshots and their ranks are thinned like rating snapshots: all of the recent past, then
 *   the last of each hour, then the last of each day (downsample.ts), per category. In a bucket holding a
 *   successful snapshot, a gap is dropped; a bucket of gaps only keeps its last, so a chart still shows
 *   the hole.
 * - Listing versions (their JSON holds whole descriptions) are thinned the same way per app: the last of
 *   each bucket stays, and so does each app's latest (the next read diffs against it). The changes of a
 *   dropped version move to the version kept in its bucket: every change stays in the timeline.
 * - Market runs past `retention.pollRuns` are deleted, except the latest of each kind and subject, from
 *   which the market schedule knows when each was last read.
 * - `category_apps_seen` is kept forever: it is the new entrants' memory.
 */
import type Database from 'better-sqlite3';
import type { SnapshotTiers } from './downsample.js';

export interface MarketPruneCounts {
  categorySnapshots: number;
  listingVersions: number;
  marketRuns: number;
}

type Row = { id: number; key: string; at: number; ok: number };

/**
 * Which rows of each key (a category, an app) to drop before `tiers.fullFrom`: all but the last of each
 * bucket, preferring the last with `ok`. Rows must come in time order.
 */
function thin(
  rows: readonly Row[],
  tiers: SnapshotTiers,
  keep: ReadonlySet<number> = new Set(),
): Map<number, number> {
  // Dropped id -> the id kept in its bucket.
  const dropped = new Map<number, number>();
  const buckets = new Map<string, Row[]>();
  for (const row of rows) {
    if (row.at >= tiers.fullFrom) continue;
    const key = `${row.key}\u0000${tiers.bucketOf(row.at)}`;
    const list = buckets.get(key);
    if (list) list.push(row);
    else buckets.set(key, [row]);
  }
  for (const list of buckets.values()) {
    const okRows = list.filter((r) => r.ok === 1);
    const kept = (okRows.at(-1) ?? list.at(-1)) as Row;
    for (const row of list) if (row.id !== kept.id && !keep.has(row.id)) dropped.set(row.id, kept.id);
  }
  return dropped;
}

export function pruneMarket(
  client: Database.Database,
  tiers: SnapshotTiers,
  runsCutoff: number,
  dryRun: boolean,
): MarketPruneCounts {
  const counts: MarketPruneCounts = { categorySnapshots: 0, listingVersions: 0, marketRuns: 0 };
  const ids = (values: Iterable<number>) => JSON.stringify([...values]);
  const work = () => {
    const snapshots = client
      .prepare<[number], Row>(
        `select id, category_handle as key, taken_at as at, status = 'ok' as ok
           from category_snapshots where taken_at < ? order by taken_at, id`,
      )
      .all(tiers.fullFrom);
    const doomedSnapshots = thin(snapshots, tiers);
    counts.categorySnapshots = doomedSnapshots.size;

    const versions = client
      .prepare<[number], Row>(
        `select id, app_handle as key, last_seen_at as at, 1 as ok
           from listing_versions where last_seen_at < ? order by last_seen_at, id`,
      )
      .all(tiers.fullFrom);
    const latest = new Set(
      client
        .prepare<[], { id: number }>('select max(id) as id from listing_versions group by app_handle')
        .all()
        .map((r) => r.id),
    );
    const doomedVersions = thin(versions, tiers, latest);
    counts.listingVersions = doomedVersions.size;

    const runs = client
      .prepare<[number], { id: number }>(
        `select id from market_runs m where started_at < ?
           and id <> (select max(id) from market_runs l where l.kind = m.kind and l.subject = m.subject)`,
      )
      .all(runsCutoff)
      .map((r) => r.id);
    counts.marketRuns = runs.length;
    if (dryRun) return;
    const doomed = ids(doomedSnapshots.keys());
    client
      .prepare('delete from category_ranks where snapshot_id in (select value from json_each(?))')
      .run(doomed);
    client.prepare('delete from category_snapshots where id in (select value from json_each(?))').run(doomed);
    const move = client.prepare('update listing_changes set version_id = ? where version_id = ?');
    for (const [from, to] of doomedVersions) move.run(to, from);
    client
      .prepare('delete from listing_versions where id in (select value from json_each(?))')
      .run(ids(doomedVersions.keys()));
    client.prepare('delete from market_runs where id in (select value from json_each(?))').run(ids(runs));
  };
  if (dryRun) work();
  else client.transaction(work).immediate();
  return counts;
}
