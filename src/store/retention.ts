/**
 * Retention: what the store deletes as it ages, and what it keeps forever.
 *
 * - Reviews and their edits are kept: they are the product's memory.
 * - Rating snapshots are downsampled (downsample.ts): all of the recent past, then the last of each
 *   hour, then the last of each day, forever. The digest's rating history reads the last snapshot before
 *   a week boundary, which downsampling keeps. Rating-drop detection reads no snapshot: it compares with
 *   the level stored on the app and explains a drop with reviews and edits, all kept.
 * - Poll runs older than their age are deleted, except those a kept review, edit, snapshot or alert
 *   points to (foreign keys). So a downsampled snapshot keeps its poll run: one per app and hour, then
 *   day, costing about as much again as the snapshots themselves.
 * - Sent alerts: once every delivery of an alert was sent, and sent before the age, its deliveries are
 *   deleted and its payload emptied (`{}`). The alert row stays, small: its dedupe key keeps a retried
 *   or concurrent poll from raising it again, the incident rule reads when the last incident was, and the
 *   review it is about stays linked. Alerts with a pending, held or failed delivery are untouched, so
 *   nothing owed is lost and the digest still lists failed ones.
 * - Sent digest runs older than their age are deleted, except the latest of each channel: a digest that
 *   is due checks that its own period was sent, never an older one.
 *
 * Work is done in short write transactions, yielding to the event loop between them: the worker's polls
 * share the database (and, in `start`, the connection), and better-sqlite3 is synchronous.
 */
import type Database from 'better-sqlite3';
import type { Config } from '../config/index.js';
import type { StoreDb } from './db.js';
import { Downsampler, type SnapshotRef, type SnapshotTiers, snapshotTiers } from './downsample.js';
import { fileBytes, freeBytes, type ReclaimMode, reclaimSpace } from './reclaim.js';

export interface RetentionPolicy {
  /** Poll runs started longer ago than this are deleted (unless a kept row points to them). */
  pollRunsMs: number;
  /** Deliveries of alerts fully sent longer ago than this are deleted and the alert payload emptied. */
  sentAlertsMs: number;
  /** Sent digest runs older than this are deleted (the latest per channel stays). */
  digestRunsMs: number;
  /** Every snapshot of the last `fullDetailMs`, then one per hour until `hourlyMs`, then one a day. */
  snapshots: { fullDetailMs: number; hourlyMs: number };
  /** The IANA zone of those hours and days: the digest's, so its weeks start on a bucket boundary. */
  timezone: string;
}

/** The config's `retention` section as a policy. */
export function retentionPolicyOf(config: Config): RetentionPolicy {
  const { retention, alerts } = config;
  return {
    pollRunsMs: retention.pollRuns,
    // The throttle counts the deliveries sent within its window: those must outlive it.
    sentAlertsMs: Math.max(retention.sentAlerts, alerts.throttle.window),
    digestRunsMs: retention.digestRuns,
    snapshots: {
      fullDetailMs: retention.ratingSnapshots.fullDetail,
      hourlyMs: retention.ratingSnapshots.hourly,
    },
    timezone: config.digest?.timezone ?? 'UTC',
  };
}

/** Rows deleted per table; `alertPayloads` counts the alerts whose payload was emptied. */
export interface PruneCounts {
  pollRuns: number;
  ratingSnapshots: number;
  deliveries: number;
  alertPayloads: number;
  digestRuns: number;
}

export interface PruneResult {
  dryRun: boolean;
  /** What was deleted, or in a dry run what would be. */
  counts: PruneCounts;
  /** The database file and its WAL, before and after. */
  bytesBefore: number;
  bytesAfter: number;
  /** bytesBefore - bytesAfter (0 in a dry run). */
  bytesReclaimed: number;
  /** Free pages left inside the file afterwards, reused by later writes. */
  freeBytes: number;
  /** How space was given back (reclaim.ts); undefined in a dry run. */
  reclaim: ReclaimMode | undefined;
  /** False when a reader kept the WAL from being emptied. */
  checkpointed: boolean;
  durationMs: number;
}

export type PrunePhase = 'alerts' | 'digest runs' | 'apps' | 'reclaim';

export interface PruneProgress {
  phase: PrunePhase;
  /** Units of the phase done and in all: alerts, apps, or free pages returned. */
  done: number;
  total: number;
  counts: Readonly<PruneCounts>;
}

export interface PruneOptions {
  /** Count what would be deleted, delete nothing. */
  dryRun?: boolean;
  /** Rewrite the file with VACUUM afterwards (once, for a database created before auto_vacuum). */
  vacuum?: boolean;
  onProgress?: (progress: PruneProgress) => void;
  /** Rows per write transaction. */
  batchRows?: number;
}

const DEFAULT_BATCH_ROWS = 5_000;
/** Rows read per query while deciding: reading takes no lock in WAL, but it does block the event loop. */
const PAGE_ROWS = 5_000;
/** What an alert's payload becomes when its deliveries are deleted (matches the partial index). */
export const EMPTIED_PAYLOAD = '{}';

const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

function statementsOf(client: Database.Database) {
  const ids = 'select value from json_each(@ids)';
  /** No kept row other than a snapshot points to the poll run `p`. */
  const unreferenced = `not exists (select 1 from reviews where poll_run_id = p.id)
    and not exists (select 1 from review_edits where poll_run_id = p.id)
    and not exists (select 1 from alerts where poll_run_id = p.id)`;
  return {
    sentAlerts: client.prepare<
      { cutoff: number; afterAt: number; afterId: number; limit: number },
      { id: number; createdAt: number; deliveries: number }
    >(
      `select a.id, a.created_at as createdAt,
        (select count(*) from deliveries where alert_id = a.id) as deliveries
       from alerts a
       where a.payload <> '${EMPTIED_PAYLOAD}' and a.created_at < @cutoff
         and (a.created_at, a.id) > (@afterAt, @afterId)
         and not exists (select 1 from deliveries d where d.alert_id = a.id
           and (d.status <> 'sent' or d.sent_at is null or d.sent_at >= @cutoff))
       order by a.created_at, a.id limit @limit`,
    ),
    deleteDeliveries: client.prepare<{ ids: string }>(`delete from deliveries where alert_id in (${ids})`),
    emptyPayloads: client.prepare<{ ids: string }>(
      `update alerts set payload = '${EMPTIED_PAYLOAD}' where id in (${ids})`,
    ),
    /** Sent runs before the cutoff, but never a channel's latest. */
    oldDigestRuns: client.prepare<{ cutoff: number }, { id: number }>(
      `select id from digest_runs d where status = 'sent' and sent_at < @cutoff
       and id <> (select max(id) from digest_runs where channel = d.channel and status = 'sent')`,
    ),
    deleteDigestRuns: client.prepare<{ ids: string }>(`delete from digest_runs where id in (${ids})`),
    apps: client.prepare<[], { handle: string }>('select handle from apps order by handle'),
    snapshots: client.prepare<{
      app: string;
      before: number;
      afterAt: number;
      afterId: number;
      limit: number;
    }>(
      `select id, taken_at, average is not null from rating_snapshots
       where app_handle = @app and taken_at < @before and (taken_at, id) > (@afterAt, @afterId)
       order by taken_at, id limit @limit`,
    ),
    deleteSnapshots: client.prepare<{ ids: string }>(`delete from rating_snapshots where id in (${ids})`),
    /** Old poll runs no review, edit or alert points to, each with the snapshot pointing to it, if any. */
    oldPollRuns: client.prepare<{
      app: string;
      before: number;
      afterAt: number;
      afterId: number;
      limit: number;
    }>(
      `select p.id, p.started_at, s.id from poll_runs p left join rating_snapshots s on s.poll_run_id = p.id
       where p.app_handle = @app and p.started_at < @before and (p.started_at, p.id) > (@afterAt, @afterId)
         and ${unreferenced}
       order by p.started_at, p.id limit @limit`,
    ),
    // Checked again as it deletes: a row written since the decision keeps its poll run.
    deletePollRuns: client.prepare<{ ids: string }>(
      `delete from poll_runs as p where id in (${ids})
       and not exists (select 1 from rating_snapshots where poll_run_id = p.id) and ${unreferenced}`,
    ),
  };
}

type Statements = ReturnType<typeof statementsOf>;

/** One prune's shared state: its statements, mode and running counts. */
interface Pass {
  client: Database.Database;
  st: Statements;
  dryRun: boolean;
  batchRows: number;
  counts: PruneCounts;
  progress(phase: PrunePhase, done: number, total: number): void;
}

/** Runs `work` as one short write transaction; in a dry run, as plain reads. */
function write(pass: Pass, work: () => void): void {
  if (pass.dryRun) work();
  else pass.client.transaction(work).immediate();
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Deletes what the policy says has expired, as of `now`, then gives the space back (reclaim.ts). With
 * `dryRun` it reads the same rows and deletes nothing. Safe beside a running worker, and beside another
 * prune: every delete is by id, and a poll run is deleted only while nothing points to it.
 */
export async function pruneDatabase(
  db: StoreDb,
  policy: RetentionPolicy,
  now: Date,
  options: PruneOptions = {},
): Promise<PruneResult> {
  const started = performance.now();
  const client = db.$client;
  const counts: PruneCounts = {
    pollRuns: 0,
    ratingSnapshots: 0,
    deliveries: 0,
    alertPayloads: 0,
    digestRuns: 0,
  };
  const pass: Pass = {
    client,
    st: statementsOf(client),
    dryRun: options.dryRun === true,
    batchRows: options.batchRows ?? DEFAULT_BATCH_ROWS,
    counts,
    progress: (phase, done, total) => options.onProgress?.({ phase, done, total, counts: { ...counts } }),
  };
  const bytesBefore = fileBytes(client);

  await pruneSentAlerts(pass, now.getTime() - policy.sentAlertsMs);
  pruneDigestRuns(pass, now.getTime() - policy.digestRunsMs);
  const apps = pass.st.apps.all();
  const tiers = snapshotTiers(now, policy.snapshots, policy.timezone);
  const pollRunsBefore = now.getTime() - policy.pollRunsMs;
  for (const [i, { handle }] of apps.entries()) {
    await pruneApp(pass, handle, tiers, pollRunsBefore);
    pass.progress('apps', i + 1, apps.length);
    await yieldNow();
  }

  let reclaim: ReclaimMode | undefined;
  let checkpointed = true;
  if (!pass.dryRun) {
    const result = await reclaimSpace(client, {
      vacuum: options.vacuum === true,
      yieldNow,
      onStep: (left, atStart) => pass.progress('reclaim', atStart - left, atStart),
    });
    reclaim = result.mode;
    checkpointed = result.checkpointed;
  }
  const bytesAfter = pass.dryRun ? bytesBefore : fileBytes(client);
  return {
    dryRun: pass.dryRun,
    counts,
    bytesBefore,
    bytesAfter,
    bytesReclaimed: Math.max(0, bytesBefore - bytesAfter),
    freeBytes: freeBytes(client),
    reclaim,
    checkpointed,
    durationMs: Math.round(performance.now() - started),
  };
}

async function pruneSentAlerts(pass: Pass, cutoff: number): Promise<void> {
  const { st, counts } = pass;
  let afterAt = Number.MIN_SAFE_INTEGER;
  let afterId = 0;
  for (;;) {
    let found = 0;
    // Chosen and changed in one transaction: no delivery changes state in between.
    write(pass, () => {
      const rows = st.sentAlerts.all({ cutoff, afterAt, afterId, limit: pass.batchRows });
      found = rows.length;
      const last = rows.at(-1);
      if (!last) return;
      ({ createdAt: afterAt, id: afterId } = last);
      counts.alertPayloads += rows.length;
      if (pass.dryRun) {
        counts.deliveries += rows.reduce((sum, r) => sum + r.deliveries, 0);
        return;
      }
      const ids = JSON.stringify(rows.map((r) => r.id));
      counts.deliveries += st.deleteDeliveries.run({ ids }).changes;
      st.emptyPayloads.run({ ids });
    });
    pass.progress('alerts', counts.alertPayloads, counts.alertPayloads);
    if (found < pass.batchRows) return;
    await yieldNow();
  }
}

function pruneDigestRuns(pass: Pass, cutoff: number): void {
  const { st, counts } = pass;
  write(pass, () => {
    const ids = st.oldDigestRuns.all({ cutoff }).map((r) => r.id);
    counts.digestRuns += pass.dryRun
      ? ids.length
      : st.deleteDigestRuns.run({ ids: JSON.stringify(ids) }).changes;
  });
  pass.progress('digest runs', 1, 1);
}

/** Reads a keyset-paged query to the end, `[id, time, ...]` rows in (time, id) order, yielding between pages. */
async function readPaged<R extends [number, number, ...unknown[]]>(
  statement: Database.Statement<{
    app: string;
    before: number;
    afterAt: number;
    afterId: number;
    limit: number;
  }>,
  params: { app: string; before: number },
  each: (row: R) => void,
): Promise<void> {
  let afterAt = Number.MIN_SAFE_INTEGER;
  let afterId = 0;
  for (;;) {
    const rows = statement.raw().all({ ...params, afterAt, afterId, limit: PAGE_ROWS }) as R[];
    for (const row of rows) each(row);
    const last = rows.at(-1);
    if (!last || rows.length < PAGE_ROWS) return;
    [afterId, afterAt] = last;
    await yieldNow();
  }
}

async function pruneApp(
  pass: Pass,
  app: string,
  tiers: SnapshotTiers,
  pollRunsBefore: number,
): Promise<void> {
  const { st, counts } = pass;
  const dropped = new Set<number>();
  const sampler = new Downsampler(tiers.bucketOf, (id) => dropped.add(id));
  await readPaged<SnapshotRef>(st.snapshots, { app, before: tiers.fullFrom }, (row) => sampler.add(row));
  sampler.end();

  // A poll run goes when nothing but dropped snapshots points to it. (A run with two snapshots split
  // across pages may be counted wrongly in a dry run; the delete itself checks again.)
  const runs: number[] = [];
  let run: number | undefined;
  let free = true;
  await readPaged<[number, number, number | null]>(
    st.oldPollRuns,
    { app, before: pollRunsBefore },
    ([id, , snapshot]) => {
      if (id !== run) {
        if (run !== undefined && free) runs.push(run);
        run = id;
        free = true;
      }
      if (snapshot !== null && !dropped.has(snapshot)) free = false;
    },
  );
  if (run !== undefined && free) runs.push(run);

  if (pass.dryRun) {
    counts.ratingSnapshots += dropped.size;
    counts.pollRuns += runs.length;
    return;
  }
  // Snapshots first: a poll run cannot go while a snapshot still points to it.
  for (const chunk of chunks([...dropped], pass.batchRows)) {
    write(pass, () => {
      counts.ratingSnapshots += st.deleteSnapshots.run({ ids: JSON.stringify(chunk) }).changes;
    });
    await yieldNow();
  }
  for (const chunk of chunks(runs, pass.batchRows)) {
    write(pass, () => {
      counts.pollRuns += st.deletePollRuns.run({ ids: JSON.stringify(chunk) }).changes;
    });
    await yieldNow();
  }
}
