/**
 * Retention at scale: a simulated month of polls for 10,000 apps every 5 minutes (a poll run and a rating
 * snapshot per poll, about one new review per app and day, an alert with a sent delivery for each low
 * one), written straight into SQLite with prepared statements in big transactions. Then the real prune
 * (store/retention.ts) as the daily job would run it, one more simulated day, and the next daily prune.
 *
 * The baseline, measured in the same run, is the same data with no retention: the database as built.
 *
 *   npx tsx bench/retention.ts [--apps 10000] [--days 30] [--every 5] [--dir /tmp] [--keep] [--built FILE]
 *
 * --built FILE keeps a copy of the month as built in FILE, or starts from that copy if it exists (the
 * same --apps, --days and --every): to measure the prune again without building again.
 *
 * --steady builds instead, directly, what the daily prune leaves once the policy's tiers are full (--days
 * defaults to 60, the hourly tier): the same polls, but only the rows the prune keeps, in a database
 * created with auto_vacuum=INCREMENTAL as the store creates one. Then one more day and the daily prune.
 * --reclaim-cache also times that prune's reclaim alone with SQLite's default 2 MB page cache and with
 * the prune's 64 MB, on two copies of the file as the prune's deletes leave it.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseConfig } from '../src/config/index.js';
import { openStore, type Store } from '../src/store/db.js';
import { snapshotTiers } from '../src/store/downsample.js';
import { fileBytes, reclaimSpace } from '../src/store/reclaim.js';
import {
  EMPTIED_PAYLOAD,
  type PruneProgress,
  type PruneResult,
  pruneDatabase,
  retentionPolicyOf,
} from '../src/store/retention.js';
import { indexNewReviews } from '../src/store/review-index.js';
import { round, seededRandom, writeResult } from './support.js';

const { values: args } = parseArgs({
  options: {
    apps: { type: 'string', default: '10000' },
    days: { type: 'string' },
    every: { type: 'string', default: '5' },
    dir: { type: 'string', default: tmpdir() },
    keep: { type: 'boolean', default: false },
    built: { type: 'string' },
    steady: { type: 'boolean', default: false },
    'reclaim-cache': { type: 'boolean', default: false },
  },
});
const APPS = Number(args.apps);
const DAYS = Number(args.days ?? (args.steady ? 60 : 30));
const EVERY_MS = Number(args.every) * 60_000;
const DAY_MS = 86_400_000;
const TICKS_PER_DAY = DAY_MS / EVERY_MS;
/** The simulated month ends here: a Monday 03:30 UTC, when the daily prune runs. */
const END = Date.parse('2026-11-23T03:30:00Z');

const config = parseConfig({ apps: [{ handle: 'app-00000' }], digest: { timezone: 'UTC' } }, {});
const policy = retentionPolicyOf(config);

const MB = 1024 * 1024;
const mb = (bytes: number) => round(bytes / MB, 1);
const log = (line: string) => process.stdout.write(`${line}\n`);

const dir = mkdtempSync(join(args.dir, 'reviewwatch-retention-'));
const path = join(dir, 'reviewwatch.db');
const random = seededRandom(42);
const handles = Array.from({ length: APPS }, (_, i) => `shop-app-${String(i).padStart(5, '0')}`);

/** What of one round of polls a steady-state build writes (a poll with a review always keeps its run). */
interface Kept {
  run: boolean;
  snapshot: boolean;
  /** The alert's payload and delivery: emptied and deleted once sent before the sent-alerts age. */
  sent: boolean;
}

interface AppState {
  stars: [number, number, number, number, number];
}

const REVIEW_TEXT =
  'We installed this for our store last month. Setup was quick, support answered within a day, but the ' +
  'sync with our inventory breaks every few days and we have to reconnect it by hand. ';

/** Writes polls for every app from `from` (inclusive) to `to`, in a random app order per round. */
function simulate(
  store: Store,
  from: number,
  to: number,
  label: string,
  keep: (t: number) => Kept = () => ({ run: true, snapshot: true, sent: true }),
): { polls: number; reviews: number } {
  const client = store.db.$client;
  const insertRun = client.prepare<[string, number, number, number]>(
    `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
     values (?, ?, ?, 'ok', 1, 1, ?, 0)`,
  );
  const insertSnapshot = client.prepare<
    [string, number, number, number, number, number, number, number, number, number | bigint]
  >(
    `insert into rating_snapshots (app_handle, taken_at, average, count, stars_1, stars_2, stars_3, stars_4, stars_5, poll_run_id)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertReview = client.prepare<{
    app: string;
    id: string;
    rating: number;
    content: string;
    createdAt: number;
    seenAt: number;
    run: number | bigint;
  }>(
    `insert into reviews (app_handle, identity, fingerprint, review_id, reviewer, location, rating, content,
     created_date, created_at, time_using_app, app_name, app_url, from_baseline, first_seen_at, updated_at, poll_run_id)
     values (@app, @id, 'fp-' || @id, @id, 'Northwind Outfitters', 'Germany', @rating, @content, '2026-11-20',
     @createdAt, '3 months', @app, '', 0, @seenAt, @seenAt, @run)`,
  );
  const insertAlert = client.prepare<{
    app: string;
    key: string;
    payload: string;
    at: number;
    review: number | bigint;
    run: number | bigint;
  }>(
    `insert into alerts (app_handle, kind, dedupe_key, priority, score, review_row_id, payload, created_at, poll_run_id)
     values (@app, 'review', @key, 'high', 62, @review, @payload, @at, @run)`,
  );
  const insertDelivery = client.prepare<[number | bigint, string, number, number]>(
    `insert into deliveries (alert_id, channel, app_handle, status, attempts, created_at, sent_at)
     values (?, 'support', ?, 'sent', 1, ?, ?)`,
  );
  const insertApp = client.prepare<[string]>('insert into apps (handle) values (?) on conflict do nothing');
  client.transaction(() => {
    for (const handle of handles) insertApp.run(handle);
  })();
  const order = handles.map((_, i) => i);
  let polls = 0;
  let reviews = 0;
  let lastLog = performance.now();
  const started = performance.now();
  const ticks = Math.round((to - from) / EVERY_MS);
  // An hour of rounds per transaction: the build is a bulk load, not the worker's write pattern.
  const hour = client.transaction((first: number, last: number) => {
    let firstRow = 0;
    let lastRow = 0;
    for (let tick = first; tick < last; tick++) {
      const t = from + tick * EVERY_MS;
      const kept = keep(t);
      for (let i = order.length - 1; i > 0; i--) {
        const j = random.int(0, i);
        [order[i], order[j]] = [order[j] as number, order[i] as number];
      }
      for (const i of order) {
        const handle = handles[i] as string;
        const app = states[i] as AppState;
        const startedAt = t + random.int(0, 60_000);
        const finishedAt = startedAt + random.int(150, 900);
        const review = random.next() < 1 / TICKS_PER_DAY;
        if (!review && !kept.run && !kept.snapshot) continue;
        const run = insertRun.run(handle, startedAt, finishedAt, review ? 1 : 0).lastInsertRowid;
        if (review) {
          const rating = random.int(1, 5);
          app.stars[rating - 1] = (app.stars[rating - 1] ?? 0) + 1;
          const id = `${handle}-${t}`;
          const row = insertReview.run({
            app: handle,
            id,
            rating,
            content: REVIEW_TEXT.slice(0, random.int(40, REVIEW_TEXT.length)),
            createdAt: finishedAt - 3_600_000,
            seenAt: finishedAt,
            run,
          }).lastInsertRowid;
          firstRow ||= Number(row);
          lastRow = Number(row);
          if (rating <= 3) {
            const payload = kept.sent
              ? JSON.stringify({
                  kind: 'review',
                  app: { handle, name: handle, url: `https://apps.platform.example/${handle}` },
                  review: { reviewId: id, reviewer: 'Northwind Outfitters', rating, content: REVIEW_TEXT },
                  severity: { score: 62, priority: 'high', reasons: [`${rating} stars`, 'mentions bugs'] },
                })
              : EMPTIED_PAYLOAD;
            const alert = insertAlert.run({
              app: handle,
              key: `review-${row}`,
              payload,
              at: finishedAt,
              review: row,
              run,
            }).lastInsertRowid;
            if (kept.sent) insertDelivery.run(alert, handle, finishedAt, finishedAt + 1_500);
          }
          reviews++;
        }
        const count = app.stars.reduce((a, b) => a + b, 0);
        const average = app.stars.reduce((sum, n, k) => sum + n * (k + 1), 0) / count;
        const [s1, s2, s3, s4, s5] = app.stars;
        if (kept.snapshot) insertSnapshot.run(handle, finishedAt, average, count, s1, s2, s3, s4, s5, run);
        polls++;
      }
    }
    // As a poll's insert does (src/store/review-index.ts): the per-day counts.
    indexNewReviews(store.db, firstRow, lastRow);
  });
  for (let tick = 0; tick < ticks; tick += TICKS_PER_DAY / 24) {
    hour(tick, Math.min(ticks, tick + TICKS_PER_DAY / 24));
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      const done = Math.min(ticks, tick + TICKS_PER_DAY / 24) / ticks;
      const elapsed = (performance.now() - started) / 1000;
      log(
        `  ${label}: ${(done * 100).toFixed(1)}% (${polls.toLocaleString('en')} polls, ${Math.round(polls / elapsed).toLocaleString('en')}/s, ${mb(fileBytes(client))} MB, about ${Math.round(elapsed / done - elapsed)} s left)`,
      );
    }
  }
  return { polls, reviews };
}

const states: AppState[] = handles.map(() => {
  // A few hundred reviews each, mostly good: averages between about 3.8 and 4.8.
  const n = random.int(50, 400);
  const low = random.next() * 0.2;
  return {
    stars: [
      Math.round(n * low * 0.5),
      Math.round(n * low * 0.3),
      Math.round(n * low * 0.2 + n * 0.05),
      Math.round(n * 0.25),
      Math.round(n * (0.7 - low)),
    ],
  };
});

function rowCounts(store: Store): Record<string, number> {
  const out: Record<string, number> = {};
  for (const table of ['poll_runs', 'rating_snapshots', 'reviews', 'alerts', 'deliveries']) {
    out[table] = (store.db.$client.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
  }
  return out;
}

/** Bytes per table with its indexes, from SQLite's dbstat (pages in use, not free ones). */
function tableBytes(store: Store): Record<string, number> {
  const rows = store.db.$client
    .prepare<[], { name: string; tbl: string; bytes: number }>(
      `select m.tbl_name as tbl, sum(s.pgsize) as bytes from dbstat s join sqlite_schema m on m.name = s.name
       group by m.tbl_name`,
    )
    .all();
  return Object.fromEntries(rows.map((r) => [r.tbl, r.bytes]));
}

function checkpointedSize(store: Store): number {
  store.db.$client.pragma('wal_checkpoint(TRUNCATE)');
  return fileBytes(store.db.$client);
}

/** Stops a prune as its reclaim begins (after the reclaim's first step). */
const STOP = new Error('stopped at the reclaim');

/**
 * Runs the prune, timing its phases from its progress reports: a phase runs from its first report to the
 * next phase's, so the reclaim's first step (256 pages) counts in the poll runs; `reclaimPagesPerSecond`
 * counts the pages after it.
 */
async function prune(
  store: Store,
  now: number,
  label: string,
  stopAtReclaim = false,
): Promise<PruneResult & { phaseMs: Record<string, number>; reclaimPagesPerSecond?: number }> {
  const phaseMs: Record<string, number> = {};
  let phase: string | undefined;
  let phaseStart = performance.now();
  let lastLog = performance.now();
  let reclaimPages = 0;
  const result = await pruneDatabase(store.db, policy, new Date(now), {
    onProgress: (p: PruneProgress) => {
      if (p.phase !== phase) {
        if (phase) phaseMs[phase] = Math.round(performance.now() - phaseStart);
        phase = p.phase;
        phaseStart = performance.now();
        if (p.phase === 'reclaim') {
          if (stopAtReclaim) throw STOP;
          reclaimPages = p.total - p.done;
        }
      }
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        log(`  ${label}: ${p.phase} ${p.done.toLocaleString('en')}/${p.total.toLocaleString('en')}`);
      }
    },
  });
  if (phase) phaseMs[phase] = Math.round(performance.now() - phaseStart);
  const reclaimMs = phaseMs.reclaim;
  const reclaimPagesPerSecond = reclaimMs ? Math.round(reclaimPages / (reclaimMs / 1000)) : undefined;
  return { ...result, phaseMs, reclaimPagesPerSecond };
}

/**
 * The daily prune's reclaim alone, with SQLite's default page cache (2 MB) and with the prune's (64 MB):
 * the prune's deletes run on a copy of the unpruned file, stopped as the reclaim begins; then
 * reclaimSpace on two copies of the result, one per cache size, each freshly opened.
 */
async function reclaimByCache(file: string): Promise<Record<string, unknown>> {
  const deleting = openStore(file);
  await prune(deleting, END + DAY_MS, 'deletes', true).catch((err: unknown) => {
    if (err !== STOP) throw err;
  });
  deleting.close();
  const out: Record<string, unknown> = {};
  for (const kb of [2_000, 65_536]) {
    const copy = `${file}-${kb}`;
    copyFileSync(file, copy);
    const store = openStore(copy);
    const client = store.db.$client;
    client.pragma(`cache_size = -${kb}`);
    const pages = client.pragma('freelist_count', { simple: true }) as number;
    const started = performance.now();
    await reclaimSpace(client, { vacuum: false, maxLockMs: 200, yieldNow: () => new Promise(setImmediate) });
    const seconds = (performance.now() - started) / 1000;
    out[`${kb} KB`] = {
      pages,
      seconds: round(seconds, 1),
      pagesPerSecond: Math.round(pages / seconds),
      load: load(),
    };
    log(`  reclaim with a ${kb} KB cache: ${JSON.stringify(out[`${kb} KB`])}`);
    store.close();
    rmSync(copy);
  }
  rmSync(file);
  return out;
}

/**
 * What the daily prune at END keeps of the polls of tick `t` (each finishes within a minute of `t`, in
 * its hour): every snapshot of the full-detail tier and the last of each hour, then day, before it; poll
 * runs of the last 7 days and those of kept snapshots; alerts sent before the sent-alerts age emptied.
 */
function steadyState(): (t: number) => Kept {
  const tiers = snapshotTiers(new Date(END), policy.snapshots, policy.timezone);
  return (t) => {
    const snapshot = t >= tiers.fullFrom || tiers.bucketOf(t) !== tiers.bucketOf(t + EVERY_MS);
    return { snapshot, run: snapshot || t >= END - policy.pollRunsMs, sent: t >= END - policy.sentAlertsMs };
  };
}

const load = () => loadavg().map((n) => round(n, 2));
const loads: Record<string, number[]> = { start: load() };

log(
  `Retention benchmark${args.steady ? ' (steady state)' : ''}: ${APPS} apps, a poll every ${args.every} min, ${DAYS} days, in ${path} (load ${load().join(' ')})`,
);
let buildSeconds = 0;
if (args.built && existsSync(args.built)) {
  log(`Starting from ${args.built}`);
  copyFileSync(args.built, path);
} else {
  const store = openStore(path);
  // A bulk load: no WAL, no fsync, no foreign-key checks (the generator keeps them), a big cache. The
  // prunes below run with the store's own settings (openStore again: WAL, foreign keys on).
  store.db.$client.pragma('journal_mode = MEMORY');
  store.db.$client.pragma('synchronous = OFF');
  store.db.$client.pragma('foreign_keys = OFF');
  store.db.$client.pragma('cache_size = -1000000');
  const buildStarted = performance.now();
  simulate(store, END - DAYS * DAY_MS, END, 'building', args.steady ? steadyState() : undefined);
  buildSeconds = (performance.now() - buildStarted) / 1000;
  loads.built = load();
  store.db.$client.pragma('journal_mode = WAL');
  store.close();
  if (args.built) copyFileSync(path, args.built);
}

const pruning = openStore(path);
const baselineBytes = checkpointedSize(pruning);
const rowsBefore = rowCounts(pruning);
log(
  `${buildSeconds > 0 ? `Built in ${round(buildSeconds, 0)} s` : 'Copied'}: ${JSON.stringify(rowsBefore)}; ${mb(baselineBytes)} MB ${args.steady ? `in steady state (${round(baselineBytes / APPS / 1024, 1)} KB per app, auto_vacuum ${pruning.db.$client.pragma('auto_vacuum', { simple: true })})` : 'with no retention'}`,
);
const bytesBuilt = args.steady ? tableBytes(pruning) : undefined;

let first: (Awaited<ReturnType<typeof prune>> & Record<string, unknown>) | undefined;
if (!args.steady) {
  log('First prune of the month:');
  const pruned = await prune(pruning, END, 'first prune');
  const afterMB = mb(checkpointedSize(pruning));
  first = { ...pruned, afterMB, rowsAfter: rowCounts(pruning), tableMB: mapValues(tableBytes(pruning), mb) };
  log(
    `  ${round(pruned.durationMs / 1000, 1)} s (${JSON.stringify(pruned.phaseMs)}): ${mb(pruned.bytesBefore)} MB → ${afterMB} MB; deleted ${JSON.stringify(pruned.counts)}`,
  );
}

// The next day as the worker writes it: WAL, foreign keys on; only fsync is off, to save the time.
pruning.db.$client.pragma('synchronous = OFF');
const nextDay = simulate(pruning, END, END + DAY_MS, 'one more day');
pruning.db.$client.pragma('synchronous = NORMAL');
const beforeDaily = checkpointedSize(pruning);
loads.dayWritten = load();
// The file as the day left it, for the reclaim's cache comparison below.
const unpruned = join(dir, 'unpruned.db');
if (args['reclaim-cache']) copyFileSync(path, unpruned);
log(`Daily prune, a day later (${mb(beforeDaily)} MB, load ${load().join(' ')}):`);
const daily = await prune(pruning, END + DAY_MS, 'daily prune');
const afterDaily = checkpointedSize(pruning);
log(
  `  ${round(daily.durationMs / 1000, 1)} s (${JSON.stringify(daily.phaseMs)}): ${mb(beforeDaily)} MB → ${mb(afterDaily)} MB; deleted ${JSON.stringify(daily.counts)} (load ${load().join(' ')})`,
);
loads.pruned = load();
const rowsDaily = rowCounts(pruning);
const bytesDaily = tableBytes(pruning);
pruning.close();
let reclaimCache: Record<string, unknown> | undefined;
if (args['reclaim-cache']) {
  if (!args.keep) rmSync(path);
  log('The daily reclaim by page cache size, on copies:');
  reclaimCache = await reclaimByCache(unpruned);
}

// The steady state: what an app keeps once its history is older than every tier, from the bytes per
// kept row measured above. Per app: 2 days of every poll's snapshot, 58 of hourly ones; 7 days of poll
// runs, and beyond them the poll runs of kept snapshots; then one snapshot and poll run a day, forever.
const perRow = (table: string) => (bytesDaily[table] ?? 0) / (rowsDaily[table] ?? 1);
const fullDays = policy.snapshots.fullDetailMs / DAY_MS;
const hourlyDays = policy.snapshots.hourlyMs / DAY_MS - fullDays;
const pollRunDays = policy.pollRunsMs / DAY_MS;
const steadySnapshots = fullDays * TICKS_PER_DAY + hourlyDays * 24;
const steadyRuns = pollRunDays * TICKS_PER_DAY + (hourlyDays - (pollRunDays - fullDays)) * 24;
const steadyPerApp = steadySnapshots * perRow('rating_snapshots') + steadyRuns * perRow('poll_runs');
const perYear = 365 * (perRow('rating_snapshots') + perRow('poll_runs'));
const noRetentionPerAppDay = (perRow('rating_snapshots') + perRow('poll_runs')) * TICKS_PER_DAY;

const result = {
  node: process.version,
  apps: APPS,
  everyMinutes: Number(args.every),
  days: DAYS,
  buildSeconds: round(buildSeconds, 0),
  steady: args.steady,
  loads,
  rowsBefore,
  baselineMB: mb(baselineBytes),
  builtTableMB: bytesBuilt && mapValues(bytesBuilt, mb),
  builtKbPerApp: round(baselineBytes / APPS / 1024, 1),
  first,
  nextDay: { polls: nextDay.polls, beforeMB: mb(beforeDaily) },
  daily: { ...daily, afterMB: mb(afterDaily), rowsAfter: rowsDaily, tableMB: mapValues(bytesDaily, mb) },
  reclaimCache,
  bytesPerRow: {
    rating_snapshots: round(perRow('rating_snapshots'), 1),
    poll_runs: round(perRow('poll_runs'), 1),
  },
  steadyState: {
    snapshotsPerApp: steadySnapshots,
    pollRunsPerApp: steadyRuns,
    kbPerApp: round(steadyPerApp / 1024, 1),
    kbPerAppPerYearAfter: round(perYear / 1024, 1),
    noRetentionKbPerAppPerDay: round(noRetentionPerAppDay / 1024, 1),
  },
};
log(JSON.stringify(result.steadyState));
log(`Results: ${writeResult('retention', Date.now(), JSON.stringify(result, null, 2))}`);
if (!args.keep) rmSync(dir, { recursive: true, force: true });

function mapValues(record: Record<string, number>, f: (n: number) => number): Record<string, number> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v)]));
}
