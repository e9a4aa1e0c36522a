/**
 * Retention: what the store deletes as it ages, and what it keeps forever.
 *
 * - Reviews and their edits are kept: they are the product's memory.
 * - Rating snapshots are downsampled (downsample.ts): all of the recent past, then the last of each
 *   hour, then the last of each day, forever. The digest's rating history reads the last snapshot before
 *   a week boundary, which downsampling keeps. Rating-drop detection reads no snapshot: it compares with
 *   the level stored on the app and explains a drop with reviews and edits, all kept.
 * - Poll runs older than their age are deleted, except those a kept review, edit, snapshot or alert
 *   points to (foreign keys), and each app's latest reconciliation. So a downsampled snapshot keeps its
 *   poll run: one per app and hour, then day, costing about as much again as the snapshots themselves.
 * - Sent alerts: once every delivery of an alert was sent, and sent before the age, its deliveries are
 *   deleted and its payload emptied (`{}`). The alert row stays, small: its dedupe key keeps a retried
 *   or concurrent poll from raising it again, the incident rule reads when the last incident was, and the
 *   review it is about stays linked. Alerts with a pending, held or failed delivery are untouched, so
 *   nothing owed is lost and the digest still lists failed ones.
 * - Sent digest runs older than their age are deleted, except the latest of each channel: a digest that
 *   is due checks that its own period was sent, never an older one.
 *
 * Work is done in write transactions of at most about `maxLockMs` (200 ms), yielding to the event loop
 * between them (batched-delete.ts, which the market's pass, market/retention.ts, deletes through too):
 * the worker's polls share the database (and, in `start`, the connection), and better-sqlite3 is
 * synchronous.
 */
import {
  and,
  eq,
  exists,
  gt,
  gte,
  inArray,
  isNull,
  lt,
  lte,
  max,
  min,
  ne,
  not,
  notExists,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import { alias, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Config } from '../config/index.js';
import {
  type BatchedDelete,
  DELETE_RUN,
  IdSet,
  idRange,
  pendingDeletes,
  readRange,
  write,
  yieldNow,
} from './batched-delete.js';
import type { StoreDb } from './db.js';
import { Downsampler, type SnapshotRef, snapshotTiers } from './downsample.js';
import { pruneMarket } from './market/retention.js';
import { bound, jsonEach, preparedOnce } from './prepared.js';
import { fileBytes, freeBytes, type ReclaimMode, reclaimSpace } from './reclaim.js';
import { alerts, deliveries, digestRuns, pollRuns, ratingSnapshots, reviewEdits, reviews } from './schema.js';

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
    timezone: config.digest.timezone,
  };
}

/** Rows deleted per table; `alertPayloads` counts the alerts whose payload was emptied. */
export interface PruneCounts {
  pollRuns: number;
  ratingSnapshots: number;
  deliveries: number;
  alertPayloads: number;
  digestRuns: number;
  /** The market's (market/retention.ts): thinned snapshots (with their ranks), listing versions, runs. */
  categorySnapshots: number;
  listingVersions: number;
  marketRuns: number;
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

export type PrunePhase = 'alerts' | 'digest runs' | 'snapshots' | 'market' | 'poll runs' | 'reclaim';

export interface PruneProgress {
  phase: PrunePhase;
  /** How far the phase got, in its own units (rows by id for the tables, free pages for reclaim). */
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
  /** Rows per delete statement (and per page read). */
  batchRows?: number;
  /** A write transaction takes more statements while it has held the lock for less than this. */
  maxLockMs?: number;
}

const DEFAULT_BATCH_ROWS = 2_000;
const DEFAULT_MAX_LOCK_MS = 200;
/** Rows are read in id order up to the first one this much past the cutoff (ids follow time closely). */
const SCAN_MARGIN_MS = 3_600_000;
/** The prune's page cache while it runs (64 MB), instead of SQLite's 2 MB: it touches pages all over. */
const PRUNE_CACHE_KB = 65_536;
/** What an alert's payload becomes when its deliveries are deleted (matches the partial index). */
export const EMPTIED_PAYLOAD = '{}';

/**
 * The two reads idRange bisects a table with: its first and last ids, and the first row at or after an id
 * with the time it was written.
 */
function idRangeReads<I extends SQLiteColumn, A extends SQLiteColumn>(
  db: StoreDb,
  table: SQLiteTable,
  id: I,
  at: A,
) {
  return {
    bounds: db
      .select({ first: min(id), last: max(id) })
      .from(table)
      .prepare(),
    timeAt: db
      .select({ id, at })
      .from(table)
      .where(gte(id, sql.placeholder('id')))
      .orderBy(id)
      .limit(1)
      .prepare(),
  };
}

/**
 * The prune's statements, prepared once per database (prepared.ts). Literals where a partial index needs
 * them (`payload <> '{}'`, `kind = 'reconcile'`): SQLite uses such an index only for a term it can read.
 * The big tables are read with `values()`, rows as arrays of what SQLite holds (epoch ms, 0/1), not
 * mapped into objects: there can be millions of them.
 *
 * Long because it is a table: one entry per statement, each prepared once, in one place to read.
 */
const statementsOf = preparedOnce((db: StoreDb) => {
  const ids = jsonEach('ids');
  const after = sql.placeholder('after');
  const notPinned = notPinnedRun(db);
  const snapshotOf = db
    .select({ one: sql`1` })
    .from(ratingSnapshots)
    .where(eq(ratingSnapshots.pollRunId, pollRuns.id));
  const oldRuns = and(
    gt(pollRuns.id, after),
    lte(pollRuns.id, sql.placeholder('last')),
    lt(pollRuns.startedAt, bound(pollRuns.startedAt, 'before')),
  );
  const digestOf = alias(digestRuns, 'latest');
  return {
    sentAlerts: sentAlerts(db),
    deleteDeliveries: db.delete(deliveries).where(inArray(deliveries.alertId, ids)).prepare(),
    emptyPayloads: db
      .update(alerts)
      .set({ payload: sql`'${sql.raw(EMPTIED_PAYLOAD)}'` })
      .where(inArray(alerts.id, ids))
      .prepare(),
    /** Sent runs before the cutoff, but never a channel's latest. */
    oldDigestRuns: db
      .select({ id: digestRuns.id })
      .from(digestRuns)
      .where(
        and(
          eq(digestRuns.status, 'sent'),
          lt(digestRuns.sentAt, bound(digestRuns.sentAt, 'cutoff')),
          ne(
            digestRuns.id,
            db
              .select({ id: max(digestOf.id) })
              .from(digestOf)
              .where(and(eq(digestOf.channel, digestRuns.channel), eq(digestOf.status, 'sent'))),
          ),
        ),
      )
      .prepare(),
    deleteDigestRuns: db.delete(digestRuns).where(inArray(digestRuns.id, ids)).prepare(),
    snapshotRange: idRangeReads(db, ratingSnapshots, ratingSnapshots.id, ratingSnapshots.takenAt),
    /** `[id, app, takenAt, hasAverage, pollRunId]` (SnapshotValues), in id order. */
    snapshots: db
      .select({
        id: ratingSnapshots.id,
        app: ratingSnapshots.appHandle,
        takenAt: ratingSnapshots.takenAt,
        hasAverage: sql`${ratingSnapshots.average} is not null`,
        pollRunId: ratingSnapshots.pollRunId,
      })
      .from(ratingSnapshots)
      .where(
        and(
          gt(ratingSnapshots.id, after),
          lte(ratingSnapshots.id, sql.placeholder('last')),
          lt(ratingSnapshots.takenAt, bound(ratingSnapshots.takenAt, 'before')),
        ),
      )
      .orderBy(ratingSnapshots.id)
      .limit(sql.placeholder('limit'))
      .prepare(),
    deleteSnapshots: db.delete(ratingSnapshots).where(inArray(ratingSnapshots.id, ids)).prepare(),
    pollRunRange: idRangeReads(db, pollRuns, pollRuns.id, pollRuns.startedAt),
    /** `[id]` of old poll runs nothing points to, in id order. */
    freePollRuns: db
      .select({ id: pollRuns.id })
      .from(pollRuns)
      .where(and(oldRuns, notExists(snapshotOf), notPinned))
      .orderBy(pollRuns.id)
      .limit(sql.placeholder('limit'))
      .prepare(),
    /** In a dry run: `[id, hasSnapshot]` of old poll runs no review, edit or alert points to. */
    unpinnedPollRuns: db
      .select({ id: pollRuns.id, hasSnapshot: exists(snapshotOf) })
      .from(pollRuns)
      .where(and(oldRuns, notPinned))
      .orderBy(pollRuns.id)
      .limit(sql.placeholder('limit'))
      .prepare(),
    // Checked again as it deletes: a row written since the decision keeps its poll run.
    deletePollRuns: db
      .delete(pollRuns)
      .where(and(inArray(pollRuns.id, ids), notExists(snapshotOf), notPinned))
      .prepare(),
  };
});

/**
 * A poll run nothing points to: no review, edit or alert; nor each app's latest reconciliation, which says
 * when the next one is due (store/reconcile.ts).
 */
function notPinnedRun(db: StoreDb): SQL | undefined {
  const latestRun = alias(pollRuns, 'latest');
  return and(
    notExists(db.select({ one: sql`1` }).from(reviews).where(eq(reviews.pollRunId, pollRuns.id))),
    notExists(db.select({ one: sql`1` }).from(reviewEdits).where(eq(reviewEdits.pollRunId, pollRuns.id))),
    notExists(db.select({ one: sql`1` }).from(alerts).where(eq(alerts.pollRunId, pollRuns.id))),
    not(
      and(
        sql`${pollRuns.kind} = 'reconcile'`,
        gte(
          pollRuns.startedAt,
          db
            .select({ at: max(latestRun.startedAt) })
            .from(latestRun)
            .where(and(eq(latestRun.appHandle, pollRuns.appHandle), sql`${latestRun.kind} = 'reconcile'`)),
        ),
      ) as SQL,
    ),
  );
}

/** A page of the alerts whose every delivery was sent before the cutoff, in (created, id) order. */
function sentAlerts(db: StoreDb) {
  const cutoff = (column: typeof alerts.createdAt | typeof deliveries.sentAt) => bound(column, 'cutoff');
  return db
    .select({
      id: alerts.id,
      createdAt: alerts.createdAt,
      deliveries: db.$count(deliveries, eq(deliveries.alertId, alerts.id)),
    })
    .from(alerts)
    .where(
      and(
        sql`${alerts.payload} <> '${sql.raw(EMPTIED_PAYLOAD)}'`,
        lt(alerts.createdAt, cutoff(alerts.createdAt)),
        sql`(${alerts.createdAt}, ${alerts.id}) > (${sql.placeholder('afterAt')}, ${sql.placeholder('afterId')})`,
        notExists(
          db
            .select({ one: sql`1` })
            .from(deliveries)
            .where(
              and(
                eq(deliveries.alertId, alerts.id),
                or(
                  ne(deliveries.status, 'sent'),
                  isNull(deliveries.sentAt),
                  gte(deliveries.sentAt, cutoff(deliveries.sentAt)),
                ),
              ),
            ),
        ),
      ),
    )
    .orderBy(alerts.createdAt, alerts.id)
    .limit(sql.placeholder('limit'))
    .prepare();
}

type Statements = ReturnType<typeof statementsOf>;

/** One prune's shared state: how it deletes (batched-delete.ts), its statements and running counts. */
interface Pass extends BatchedDelete {
  st: Statements;
  counts: PruneCounts;
  progress(phase: PrunePhase, done: number, total: number): void;
}

/**
 * Deletes what the policy says has expired, as of `now`, then gives the space back (reclaim.ts). With
 * `dryRun` it reads the same rows and deletes nothing. Safe beside a running worker, and beside another
 * prune: every delete is by id, and a poll run is deleted only while nothing points to it.
 *
 * The big tables are read and deleted in id order, which is the order polls wrote them in: each write
 * transaction then rewrites a few neighbouring pages of the table instead of a page per row (the
 * per-app index still takes a page per app; bench/README.md has the figures).
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
    categorySnapshots: 0,
    listingVersions: 0,
    marketRuns: 0,
  };
  const pass: Pass = {
    client,
    st: statementsOf(db),
    dryRun: options.dryRun === true,
    batchRows: options.batchRows ?? DEFAULT_BATCH_ROWS,
    maxLockMs: options.maxLockMs ?? DEFAULT_MAX_LOCK_MS,
    counts,
    progress: (phase, done, total) => options.onProgress?.({ phase, done, total, counts: { ...counts } }),
  };
  const bytesBefore = fileBytes(client);
  const cacheSize = client.pragma('cache_size', { simple: true }) as number;
  client.pragma(`cache_size = -${PRUNE_CACHE_KB}`);
  try {
    await pruneSentAlerts(pass, now.getTime() - policy.sentAlertsMs);
    pruneDigestRuns(pass, now.getTime() - policy.digestRunsMs);
    const dropped = await pruneSnapshots(pass, policy, now);
    await pruneMarket(pass, snapshotTiers(now, policy.snapshots, policy.timezone), {
      runsBefore: now.getTime() - policy.pollRunsMs,
      counts,
      progress: (done, total) => pass.progress('market', done, total),
    });
    await prunePollRuns(pass, now.getTime() - policy.pollRunsMs, dropped);
  } finally {
    client.pragma(`cache_size = ${cacheSize}`);
  }

  let reclaim: ReclaimMode | undefined;
  let checkpointed = true;
  if (!pass.dryRun) {
    const result = await reclaimSpace(client, {
      vacuum: options.vacuum === true,
      maxLockMs: pass.maxLockMs,
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
      const rows = st.sentAlerts.all({ cutoff: new Date(cutoff), afterAt, afterId, limit: pass.batchRows });
      found = rows.length;
      const last = rows.at(-1);
      if (!last) return;
      afterAt = last.createdAt.getTime();
      afterId = last.id;
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
    const ids = st.oldDigestRuns.all({ cutoff: new Date(cutoff) }).map((r) => r.id);
    counts.digestRuns += pass.dryRun
      ? ids.length
      : st.deleteDigestRuns.run({ ids: JSON.stringify(ids) }).changes;
  });
  pass.progress('digest runs', 1, 1);
}

/**
 * Downsamples the snapshots older than the full-detail window. Returns, in a dry run, the poll runs whose
 * snapshot would go (a real run deletes those snapshots, so the poll-run pass finds them gone).
 */
async function pruneSnapshots(pass: Pass, policy: RetentionPolicy, now: Date): Promise<IdSet | undefined> {
  const { st, counts } = pass;
  const tiers = snapshotTiers(now, policy.snapshots, policy.timezone);
  const range = idRange(st.snapshotRange, tiers.fullFrom, SCAN_MARGIN_MS);
  if (!range) return undefined;
  const droppedRuns = pass.dryRun ? new IdSet(st.pollRunRange.bounds.get()?.last ?? 0) : undefined;
  const doomed = pendingDeletes(pass, st.deleteSnapshots, (n) => {
    counts.ratingSnapshots += n;
  });
  const drop = (row: SnapshotRef) => {
    if (droppedRuns) {
      counts.ratingSnapshots++;
      droppedRuns.add(row[3]);
    } else {
      doomed.add(row[0]);
    }
  };
  // One sampler per app, fed in id order: an app's bucket is decided when its next bucket begins.
  const samplers = new Map<string, Downsampler>();
  await readRange<[number, string, number, 0 | 1, number]>(pass, range, {
    read: (after) =>
      st.snapshots.values({
        after,
        last: range.last,
        before: new Date(tiers.fullFrom),
        limit: pass.batchRows,
      }) as Array<[number, string, number, 0 | 1, number]>,
    each: ([id, app, takenAt, hasAverage, pollRunId]) => {
      let sampler = samplers.get(app);
      if (!sampler) {
        sampler = new Downsampler(tiers.bucketOf, drop);
        samplers.set(app, sampler);
      }
      sampler.add([id, takenAt, hasAverage, pollRunId]);
    },
    afterPage: () => doomed.flush(DELETE_RUN),
    progress: (done, total) => pass.progress('snapshots', done, total),
  });
  for (const sampler of samplers.values()) sampler.end();
  await doomed.flush(0);
  return droppedRuns;
}

/**
 * Deletes the poll runs older than `before` that nothing points to any more. In a dry run, a snapshot
 * that would go (`droppedRuns`) does not hold its poll run either.
 */
async function prunePollRuns(pass: Pass, before: number, droppedRuns: IdSet | undefined): Promise<void> {
  const { st, counts } = pass;
  const range = idRange(st.pollRunRange, before, SCAN_MARGIN_MS);
  if (!range) return;
  const params = (after: number) => ({
    after,
    last: range.last,
    before: new Date(before),
    limit: pass.batchRows,
  });
  const progress = (done: number, total: number) => pass.progress('poll runs', done, total);
  if (pass.dryRun) {
    await readRange<[number, 0 | 1]>(pass, range, {
      read: (after) => st.unpinnedPollRuns.values(params(after)) as Array<[number, 0 | 1]>,
      each: ([id, hasSnapshot]) => {
        if (hasSnapshot === 0 || droppedRuns?.has(id)) counts.pollRuns++;
      },
      afterPage: async () => {},
      progress,
    });
    return;
  }
  const doomed = pendingDeletes(pass, st.deletePollRuns, (n) => {
    counts.pollRuns += n;
  });
  await readRange<[number]>(pass, range, {
    read: (after) => st.freePollRuns.values(params(after)) as Array<[number]>,
    each: ([id]) => doomed.add(id),
    afterPage: () => doomed.flush(DELETE_RUN),
    progress,
  });
  await doomed.flush(0);
}
