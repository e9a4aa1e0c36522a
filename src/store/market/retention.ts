/**
 * The market's part of the daily prune (../retention.ts), with the ages of `retention.ratingSnapshots`,
 * deleted in its short transactions (../batched-delete.ts):
 *
 * - Category snapshots and their ranks are thinned like rating snapshots: all of the recent past, then
 *   the last of each hour, then the last of each day (../downsample.ts), per category. In a bucket holding
 *   a successful snapshot, a gap is dropped; a bucket of gaps only keeps its last, so a chart still shows
 *   the hole.
 * - Listing versions (their JSON holds whole descriptions) are thinned the same way per app: the last of
 *   each bucket stays, and so does each app's latest (the next read diffs against it). The changes of a
 *   dropped version move to the version kept in its bucket: every change stays in the timeline.
 * - Market runs past `retention.pollRuns` are deleted, except the latest of each kind and subject, from
 *   which the market schedule knows when each was last read.
 * - `category_apps_seen` is kept forever: it is the new entrants' memory.
 */
import type Database from 'better-sqlite3';
import { type BatchedDelete, deleteByIds, inBatches } from '../batched-delete.js';
import type { SnapshotTiers } from '../downsample.js';

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

/**
 * Thins the market's tables (above) through the prune's batched deletes: reads what goes first, then
 * deletes it in short transactions, adding to `counts` what went (or, in a dry run, would go). A change
 * of a dropped listing version moves to the kept one in the same transaction as the delete.
 */
export async function pruneMarket(
  batch: BatchedDelete,
  tiers: SnapshotTiers,
  options: {
    /** Market runs started before this (epoch ms) go, but each subject's latest. */
    runsBefore: number;
    counts: MarketPruneCounts;
    progress: (done: number, total: number) => void;
  },
): Promise<void> {
  const { client } = batch;
  const { counts } = options;
  const doomed = doomedMarketRows(client, tiers, options.runsBefore);
  if (batch.dryRun) {
    counts.categorySnapshots += doomed.snapshots.length;
    counts.listingVersions += doomed.versions.size;
    counts.marketRuns += doomed.runs.length;
    options.progress(1, 1);
    return;
  }
  const total = doomed.snapshots.length + doomed.versions.size + doomed.runs.length;
  const deleteRanks = client.prepare<[string]>(
    'delete from category_ranks where snapshot_id in (select value from json_each(?))',
  );
  const deleteSnapshots = client.prepare<[string]>(
    'delete from category_snapshots where id in (select value from json_each(?))',
  );
  counts.categorySnapshots += await inBatches(batch, doomed.snapshots, (chunk) => {
    deleteRanks.run(JSON.stringify(chunk));
    return deleteSnapshots.run(JSON.stringify(chunk)).changes;
  });
  options.progress(doomed.snapshots.length, total);
  const moveChanges = client.prepare<[number, number]>(
    'update listing_changes set version_id = ? where version_id = ?',
  );
  const deleteVersions = client.prepare<[string]>(
    'delete from listing_versions where id in (select value from json_each(?))',
  );
  counts.listingVersions += await inBatches(
    batch,
    [...doomed.versions.keys()].sort((a, b) => a - b),
    (chunk) => {
      for (const id of chunk) moveChanges.run(doomed.versions.get(id) as number, id);
      return deleteVersions.run(JSON.stringify(chunk)).changes;
    },
  );
  options.progress(doomed.snapshots.length + doomed.versions.size, total);
  counts.marketRuns += await deleteByIds(
    batch,
    client.prepare<{ ids: string }>(
      'delete from market_runs where id in (select value from json_each(@ids))',
    ),
    doomed.runs,
  );
  options.progress(total, total);
}

/**
 * What goes: the thinned category snapshots, the thinned listing versions (each with the version its
 * changes move to) and the old market runs. New rows written meanwhile are never among them: they are
 * past the cutoffs, a new listing version leaves the one before it thinned like any other, and a new
 * run leaves its subject's latest before it deletable next time.
 */
function doomedMarketRows(
  client: Database.Database,
  tiers: SnapshotTiers,
  runsBefore: number,
): { snapshots: number[]; versions: Map<number, number>; runs: number[] } {
  const snapshots = client
    .prepare<[number], Row>(
      `select id, category_handle as key, taken_at as at, status = 'ok' as ok
         from category_snapshots where taken_at < ? order by taken_at, id`,
    )
    .all(tiers.fullFrom);
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
  const runs = client
    .prepare<[number], { id: number }>(
      `select id from market_runs m where started_at < ?
         and id <> (select max(id) from market_runs l where l.kind = m.kind and l.subject = m.subject)`,
    )
    .all(runsBefore)
    .map((r) => r.id);
  return {
    snapshots: [...thin(snapshots, tiers).keys()].sort((a, b) => a - b),
    versions: thin(versions, tiers, latest),
    runs,
  };
}
