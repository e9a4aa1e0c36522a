/**
 * Crash safety of alert delivery: SIGKILL the real `reviewwatch start` at random moments of a run that
 * keeps getting new low reviews, restart it, repeat; then check every alert reached the webhook, none
 * twice (outside the one inherent window docs/architecture.md names: a crash after the webhook accepted a
 * message and before the send was recorded).
 *
 *   npx tsx bench/crash.ts [--rounds 20] [--seed N] [--apps 4] [--drain-timeout 240] [--slack-delay 0]
 *                          [--schedule fixed|adaptive|budget] [--alongside]
 *
 * Parts, all real: the Catalog API simulator (in this process), a fake Slack webhook (an HTTP server in
 * this process recording every POST), Redis under a prefix of its own, a temporary SQLite file, and the
 * CLI as a child process (`node --import tsx src/cli/main.ts start`). Each round adds 1–3 reviews (mostly
 * 1–3 stars, some 4–5 stars that must not alert) whose content starts with a unique marker, lets the
 * worker run 50–1500 ms, SIGKILLs it, adds 0–2 low reviews while it is down, and restarts it; every 5th
 * round also kills one start around the moment it gets ready (schedulers synced, outbox re-enqueued).
 * After the last round the worker runs until every review is stored and the outbox is empty, then gets
 * SIGTERM. `--slack-delay MS` makes the fake Slack answer MS after taking a message, so kills land in
 * the accept-to-record window (and on notify jobs in flight) far more often.
 *
 * `--alongside`: two processes on the one store and queue prefix, as docs/deployment.md adds capacity. A
 * first `start` runs from the beginning to the end and is never killed; the second is the one started,
 * SIGKILLed and restarted every round as above. Reviews added while the second is down are the first's
 * to poll and alert, and the second's deliveries in flight at a kill are the first's to finish (the
 * notify job's lock lapses, or the sweep re-enqueues it). Each process gets its own ops port.
 *
 * A duplicate counts as "inherent window" when the first kill after its first arrival left its delivery
 * row unsent (the database is read right after each kill); anything else is "unexplained". Exits 1 if an
 * alert was missed, a duplicate is unexplained, or a high review alerted.
 *
 * Also noted at each kill (Redis read once the process is gone): apps whose poll schedule has no next job
 * queued (the kill fell between a poll's pickup and BullMQ re-arming its scheduler), and whether the
 * scheduler-sync lock was left behind. Both only delay; the delays show in "added → delivered" and in
 * the restart times. The worker's JSON log goes to bench/results/crash-<timestamp>-worker.log.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { pollLockKey } from '../src/queue/app-lock.js';
import { connectRedis, DEFAULT_REDIS_URL } from '../src/queue/connection.js';
import { startSimulator } from '../src/simulator/index.js';
import {
  alertBenchConfig,
  round,
  seededRandom,
  sleep,
  startWebhookRecorder,
  writeResult,
} from './support.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    seed: { type: 'string' },
    apps: { type: 'string', default: '4' },
    'drain-timeout': { type: 'string', default: '240' },
    'slack-delay': { type: 'string', default: '0' },
    schedule: { type: 'string', default: 'fixed' },
    alongside: { type: 'boolean', default: false },
  },
});
/**
 * `adaptive` or `budget`: each app's interval planned from its pace between 1 s and 4 s (tightened to 1 s
 * after a low review), so kills also land while schedulers are being rewritten.
 */
const SCHEDULE = values.schedule;
if (!['fixed', 'adaptive', 'budget'].includes(SCHEDULE))
  throw new Error('--schedule: fixed, adaptive or budget');
const SCHEDULE_CONFIG: Record<string, string> =
  SCHEDULE === 'fixed' ? {} : { schedule: SCHEDULE, minEvery: '1s', maxEvery: '4s' };
const ROUNDS = Number(values.rounds);
const APPS = Number(values.apps);
const SEED = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const DRAIN_TIMEOUT_MS = Number(values['drain-timeout']) * 1000;
/** The fake Slack answers this long after a message is in: widens the window between accept and record. */
const SLACK_DELAY_MS = Number(values['slack-delay']);
/** A first process runs throughout beside the one killed and restarted. */
const ALONGSIDE = values.alongside === true;
const REDIS_URL = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** How long after a message reached the webhook a kill still counts as "before the send was recorded". */
const INHERENT_WINDOW_MS = 2_000;

const stamp = Date.now();
const rng = seededRandom(SEED);
const MARKER = /crash-\d+-r\d+-(?:low|high)-\d+/;

interface Added {
  marker: string;
  app: string;
  rating: number;
  round: number;
  whileDown: boolean;
  at: number;
}

interface Kill {
  generation: number;
  round: number;
  kind: 'running' | 'startup';
  /** ms the worker had been ready (running) or alive (startup) when the signal went. */
  upMs: number;
  at: number;
  exitedAt: number;
  lastLog: string;
  /** Delivery status per marker right after the process died. */
  statuses: Map<string, { status: string; attempts: number }>;
  /** Apps whose poll schedule had no next job queued right after the kill (picked up, not yet re-armed). */
  orphanedSchedules: string[];
  /** The kill left the scheduler-sync lock behind (the next start waits for it to expire). */
  leftSyncLock: boolean;
  /** Apps whose per-app poll lock the killed process held: nobody polls them until it lapses (30 s). */
  leftPollLocks: string[];
}

interface Worker {
  generation: number;
  child: ChildProcess;
  spawnedAt: number;
  ready: Promise<number>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  lastLog: string;
}

const dir = mkdtempSync(join(tmpdir(), 'reviewwatch-crash-'));
const dbPath = join(dir, 'reviewwatch.db');
const prefix = `rwcrash-${process.pid}-${stamp}`;
const logPath = `bench/results/crash-${stamp}-worker.log`;
mkdirSync('bench/results', { recursive: true });
const workerLog = createWriteStream(logPath);

const sim = await startSimulator({ appCount: APPS, maxReviewsPerApp: 40, seed: SEED % 1000 });
const handles = sim.controls.handles();
const webhook = await startWebhookRecorder(MARKER, { answerAfterMs: SLACK_DELAY_MS });
const redis = await connectRedis(REDIS_URL);
const configPath = join(dir, 'reviewwatch.yaml');
writeFileSync(
  configPath,
  alertBenchConfig(handles, {
    maxRequestsPerSecond: 50,
    poll: { every: '1s', backoff: '1s', ...SCHEDULE_CONFIG },
    ...(SCHEDULE === 'budget' ? { dailyRequestBudget: 200_000 } : {}),
  }),
);
const env = {
  PATH: process.env.PATH ?? '',
  LOG_FORMAT: 'json',
  LOG_LEVEL: 'info',
  REVIEWWATCH_CONFIG: configPath,
  CATALOG_API_BASE_URL: sim.url,
  CATALOG_API_KEY: 'bench',
  DATABASE_PATH: dbPath,
  REDIS_URL,
  REVIEWWATCH_QUEUE_PREFIX: prefix,
  SLACK_WEBHOOK_URL: webhook.url,
  // Two processes on one host cannot share the default ops port: each takes a free one.
  ...(ALONGSIDE ? { REVIEWWATCH_HTTP_PORT: '0' } : {}),
};

let generation = 0;
let baselines = 0;
const logCounts = new Map<string, number>();
const startupMs: number[] = [];

function spawnWorker(): Worker {
  const gen = ++generation;
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'start'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const worker: Worker = {
    generation: gen,
    child,
    spawnedAt,
    lastLog: '(nothing logged)',
    ready: Promise.resolve(0),
    exited: Promise.resolve({ code: null, signal: null, at: 0 }),
  };
  worker.exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() }));
  });
  worker.ready = new Promise((resolve, reject) => {
    const onLine = (line: string) => {
      workerLog.write(`[${gen}] ${line}\n`);
      let msg = line;
      try {
        msg = String((JSON.parse(line) as { msg?: unknown }).msg ?? line);
      } catch {
        // not JSON: keep the raw line
      }
      worker.lastLog = msg;
      const kind = msg.replace(/\d+/g, 'N').replace(/app-N/g, 'APP').slice(0, 70);
      logCounts.set(kind, (logCounts.get(kind) ?? 0) + 1);
      if (/baseline stored/.test(msg)) baselines++;
      if (/^watching \d+ app/.test(msg)) resolve(Date.now());
    };
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', onLine);
    }
    void worker.exited.then(({ code, signal }) => reject(new Error(`worker exited (${code ?? signal})`)));
  });
  worker.ready.catch(() => undefined);
  return worker;
}

let db: Database.Database | undefined;
function database(): Database.Database | undefined {
  if (!db && existsSync(dbPath)) {
    try {
      db = new Database(dbPath, { readonly: true, fileMustExist: true });
    } catch {
      return undefined;
    }
  }
  return db;
}

function query<T>(sql: string, fallback: T[] = []): T[] {
  try {
    return (database()?.prepare(sql).all() as T[] | undefined) ?? fallback;
  } catch {
    // The schema may not exist yet (a worker killed before its migrations ran).
    return fallback;
  }
}

interface DeliveryState {
  id: number;
  marker: string;
  status: string;
  attempts: number;
  sentAt: number | null;
  lastError: string | null;
}

function deliveryStates(): Map<string, DeliveryState> {
  const rows = query<{
    id: number;
    content: string | null;
    status: string;
    attempts: number;
    sent_at: number | null;
    last_error: string | null;
  }>(
    `select d.id, json_extract(a.payload, '$.review.content') as content, d.status, d.attempts, d.sent_at, d.last_error
       from deliveries d join alerts a on a.id = d.alert_id where a.kind = 'review'`,
  );
  const out = new Map<string, DeliveryState>();
  for (const row of rows) {
    const marker = row.content?.match(MARKER)?.[0];
    if (marker) {
      out.set(marker, {
        id: row.id,
        marker,
        status: row.status,
        attempts: row.attempts,
        sentAt: row.sent_at,
        lastError: row.last_error,
      });
    }
  }
  return out;
}

function storedMarkers(): Set<string> {
  const rows = query<{ content: string }>(`select content from reviews where content like 'crash-%'`);
  return new Set(rows.map((r) => r.content.match(MARKER)?.[0] ?? ''));
}

function notSentCount(): number {
  return (
    query<{ n: number }>(`select count(*) as n from deliveries where status != 'sent'`, [{ n: 0 }])[0]?.n ?? 0
  );
}

const added: Added[] = [];
let reviewSeq = 0;
function addReviews(roundNo: number, count: number, whileDown: boolean, highShare: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const high = rng.next() < highShare;
    const rating = high ? rng.int(4, 5) : rng.int(1, 3);
    const app = handles[rng.int(0, handles.length - 1)] as string;
    const marker = `crash-${stamp}-r${roundNo}-${high ? 'high' : 'low'}-${++reviewSeq}`;
    sim.controls.addReviews(app, [
      {
        rating,
        review_content: `${marker} The app stopped syncing after the update; support never answered.`,
      },
    ]);
    added.push({ marker, app, rating, round: roundNo, whileDown, at: Date.now() });
    out.push(`${rating}★`);
  }
  return out;
}

async function stuckDeliveries(
  states: Map<string, DeliveryState>,
): Promise<Array<DeliveryState & { reason: string }>> {
  const failedIds = new Set(await redis.zrange(`${prefix}:notify:failed`, '0', '-1'));
  const out: Array<DeliveryState & { reason: string }> = [];
  for (const state of states.values()) {
    const jobId = `delivery-${state.id}`;
    if (state.status === 'pending' && failedIds.has(jobId)) {
      const reason = (await redis.hget(`${prefix}:notify:${jobId}`, 'failedReason')) ?? '';
      out.push({ ...state, reason });
    }
  }
  return out;
}

/** Apps whose poll scheduler has no job delayed, waiting or prioritized: nothing will poll them. */
async function appsWithoutNextPoll(): Promise<string[]> {
  // One MULTI, so a process still running (--alongside) cannot move a job from one list to another
  // between the reads.
  const lists = await redis
    .multi()
    .zrange(`${prefix}:poll:delayed`, '0', '-1')
    .lrange(`${prefix}:poll:wait`, 0, -1)
    .zrange(`${prefix}:poll:prioritized`, '0', '-1')
    .exec();
  const next = (lists ?? []).flatMap(([, ids]) => (Array.isArray(ids) ? ids.map(String) : []));
  return handles.filter((h) => !next.some((id) => id.startsWith(`repeat:poll-${h}:`)));
}

const kills: Kill[] = [];
async function kill(worker: Worker, roundNo: number, kind: Kill['kind'], since: number): Promise<Kill> {
  const at = Date.now();
  worker.child.kill('SIGKILL');
  const exit = await worker.exited;
  const leftPollLocks: string[] = [];
  for (const handle of handles) {
    // The lock's token starts with its holder's pid (src/queue/app-lock.ts).
    const token = await redis.get(pollLockKey(prefix, handle));
    if (token?.startsWith(`${worker.child.pid}-`)) leftPollLocks.push(handle);
  }
  const statuses = new Map(
    [...deliveryStates()].map(([m, s]) => [m, { status: s.status, attempts: s.attempts }]),
  );
  let orphanedSchedules = await appsWithoutNextPoll();
  if (ALONGSIDE && orphanedSchedules.length > 0) {
    // The first process may be between taking an app's poll job and re-arming its scheduler (one round
    // trip): what still has no next job a moment later was left so by the kill.
    await sleep(1_000);
    const still = await appsWithoutNextPoll();
    orphanedSchedules = orphanedSchedules.filter((h) => still.includes(h));
  }
  const record: Kill = {
    generation: worker.generation,
    round: roundNo,
    kind,
    upMs: at - since,
    at,
    exitedAt: exit.at,
    lastLog: worker.lastLog,
    statuses,
    orphanedSchedules,
    leftSyncLock: (await redis.exists(`${prefix}:poll:scheduler-sync-lock`)) === 1,
    leftPollLocks,
  };
  kills.push(record);
  return record;
}

function notes(k: Kill): string {
  return [
    k.orphanedSchedules.length > 0 ? `; no next poll job for ${k.orphanedSchedules.join(' ')}` : '',
    k.leftSyncLock ? '; left the scheduler-sync lock' : '',
    k.leftPollLocks.length > 0 ? `; left the poll lock of ${k.leftPollLocks.join(' ')}` : '',
  ].join('');
}

async function startReady(): Promise<{ worker: Worker; readyAt: number }> {
  const worker = spawnWorker();
  const readyAt = await Promise.race([
    worker.ready,
    sleep(90_000).then(() => {
      throw new Error(`worker generation ${worker.generation} not ready after 90 s`);
    }),
  ]);
  startupMs.push(readyAt - worker.spawnedAt);
  return { worker, readyAt };
}

const started = Date.now();
const loadBefore = loadavg()[0] ?? 0;
let current: Worker | undefined;
/** With --alongside: the first process, never killed. */
let steady: Worker | undefined;
let failure: string | undefined;
let stopCode: number | null = null;
let stopMs = 0;
let drainMs = 0;
try {
  process.stderr.write(
    `seed ${SEED}, ${APPS} apps, queue prefix ${prefix}, database ${dbPath}\nworker log: ${logPath}\n`,
  );
  if (ALONGSIDE) steady = (await startReady()).worker;
  let { worker, readyAt } = await startReady();
  current = worker;
  const baselineDeadline = Date.now() + 60_000;
  while (baselines < handles.length) {
    if (Date.now() > baselineDeadline)
      throw new Error(`only ${baselines}/${handles.length} baselines in 60 s`);
    await sleep(100);
  }
  process.stderr.write(
    `baseline of ${handles.length} apps stored (${Date.now() - started} ms after launch)\n`,
  );

  for (let r = 1; r <= ROUNDS; r++) {
    const live = addReviews(r, rng.int(1, 3), false, 0.2);
    const upMs = rng.int(50, 1500);
    await sleep(Math.max(0, readyAt + upMs - Date.now()));
    const k = await kill(worker, r, 'running', readyAt);
    const down = addReviews(r, rng.int(0, 2), true, 0);
    let extra = '';
    if (r % 5 === 0) {
      // A kill during startup: before the schedulers are synced or the outbox re-enqueued.
      const early = spawnWorker();
      current = early;
      const typical = [...startupMs].sort((a, b) => a - b)[Math.floor(startupMs.length / 2)] ?? 1_000;
      await sleep(rng.int(Math.max(50, typical - 150), typical + 150));
      const e = await kill(early, r, 'startup', early.spawnedAt);
      extra = `, startup kill at ${e.upMs} ms (last log: ${JSON.stringify(e.lastLog.slice(0, 50))}${notes(e)})`;
    }
    ({ worker, readyAt } = await startReady());
    current = worker;
    process.stderr.write(
      `round ${String(r).padStart(2)}/${ROUNDS}: +${live.join(' ') || '0'} while up, killed after ${upMs} ms ` +
        `(last log: ${JSON.stringify(k.lastLog.slice(0, 60))}${notes(k)}), +${down.join(' ') || '0'} while down${extra}; ` +
        `webhook ${webhook.messages.length} msg, outbox ${notSentCount()} unsent, restart ${startupMs.at(-1)} ms\n`,
    );
  }

  if (steady && steady.child.exitCode !== null)
    throw new Error(`the first process exited during the rounds (${steady.child.exitCode})`);

  // Drain: every review stored, every low one in the outbox, nothing unsent (or something failed for good).
  const drainStart = Date.now();
  const lows = added.filter((a) => a.rating <= 3);
  let stuckSince: number | undefined;
  let stuckRestarted = false;
  for (;;) {
    const stored = storedMarkers();
    const states = deliveryStates();
    const unsent = notSentCount();
    const failed = [...states.values()].filter((s) => s.status === 'failed');
    const done = added.every((a) => stored.has(a.marker)) && lows.every((a) => states.has(a.marker));
    if (done && unsent === 0) break;
    if (failed.length > 0 && unsent === failed.length && done) break;
    // A pending row whose notify job BullMQ already failed: re-enqueueing under the same job id is a no-op.
    const stuck = await stuckDeliveries(states);
    if (stuck.length === 0) stuckSince = undefined;
    else if (stuckSince === undefined) {
      stuckSince = Date.now();
      process.stderr.write(
        `drain: ${stuck.map((d) => `${d.marker} (delivery ${d.id}: ${d.reason})`).join(', ')} pending, its job failed in BullMQ\n`,
      );
    } else if (Date.now() - stuckSince > 10_000 && !stuckRestarted) {
      // A restart re-enqueues the outbox: does that get it out?
      process.stderr.write('drain: restarting the worker to see whether the restart re-enqueues it\n');
      stuckRestarted = true;
      worker.child.kill('SIGTERM');
      await worker.exited;
      ({ worker, readyAt } = await startReady());
      current = worker;
      stuckSince = Date.now();
    } else if (Date.now() - stuckSince > 15_000 && stuckRestarted) {
      failure = `stuck: ${stuck.length} deliveries pending whose notify jobs BullMQ failed (${stuck[0]?.reason}); a restart did not send them`;
      break;
    }
    if (Date.now() - drainStart > DRAIN_TIMEOUT_MS) {
      failure = `drain timed out after ${DRAIN_TIMEOUT_MS / 1000}s: ${added.filter((a) => !stored.has(a.marker)).length} reviews not stored, ${unsent} deliveries unsent`;
      break;
    }
    await sleep(250);
  }
  drainMs = Date.now() - drainStart;
  await sleep(1_000);
  const termAt = Date.now();
  const running = steady ? [worker, steady] : [worker];
  for (const w of running) w.child.kill('SIGTERM');
  const exits = await Promise.race([
    Promise.all(running.map((w) => w.exited)),
    sleep(45_000).then(() => undefined),
  ]);
  stopMs = Date.now() - termAt;
  // The worst of the two: a clean stop is 0 for each.
  stopCode = exits ? Math.max(...exits.map((e) => e.code ?? 128)) : null;
  if (!exits) {
    failure ??= 'worker did not stop within 45 s of SIGTERM';
    for (const w of running) w.child.kill('SIGKILL');
  }
} catch (err) {
  failure = err instanceof Error ? err.message : String(err);
  current?.child.kill('SIGKILL');
  steady?.child.kill('SIGKILL');
}
const totalMs = Date.now() - started;

// ---- Analysis -------------------------------------------------------------------------------------
const arrivals = new Map<string, number[]>();
for (const message of webhook.messages) {
  for (const marker of message.markers) arrivals.set(marker, [...(arrivals.get(marker) ?? []), message.at]);
}
const finalStates = deliveryStates();
const lows = added.filter((a) => a.rating <= 3);
const highs = added.filter((a) => a.rating > 3);
const missed = lows.filter((a) => !arrivals.has(a.marker));
const falseAlerts = highs.filter((a) => arrivals.has(a.marker));
const sortedKills = [...kills].sort((a, b) => a.exitedAt - b.exitedAt);

interface Duplicate {
  marker: string;
  arrivals: number[];
  verdict: 'inherent window' | 'unexplained';
  why: string;
}
const duplicates: Duplicate[] = [];
for (const [marker, times] of arrivals) {
  if (times.length < 2) continue;
  const reasons: string[] = [];
  let inherent = true;
  for (let i = 0; i + 1 < times.length; i++) {
    const first = times[i] as number;
    const next = times[i + 1] as number;
    const k = sortedKills.find((kk) => kk.exitedAt >= first);
    const state = k?.statuses.get(marker);
    if (!k || k.exitedAt > next) {
      inherent = false;
      reasons.push(`arrival ${i + 1} and ${i + 2} with no kill between them`);
    } else if (state?.status === 'sent') {
      inherent = false;
      reasons.push(`recorded sent before the kill of generation ${k.generation}, yet sent again`);
    } else if (k.at - first > INHERENT_WINDOW_MS + SLACK_DELAY_MS) {
      inherent = false;
      reasons.push(
        `unrecorded ${k.at - first} ms after the webhook took it (window ${INHERENT_WINDOW_MS + SLACK_DELAY_MS} ms)`,
      );
    } else {
      reasons.push(
        `accepted ${k.at - first} ms before the SIGKILL of generation ${k.generation}, row still ${state?.status ?? 'absent'}`,
      );
    }
  }
  duplicates.push({
    marker,
    arrivals: times,
    verdict: inherent ? 'inherent window' : 'unexplained',
    why: reasons.join('; '),
  });
}
const inherentCount = duplicates.filter((d) => d.verdict === 'inherent window').length;
const unexplained = duplicates.filter((d) => d.verdict === 'unexplained');
const delayOf = (a: Added) => (arrivals.get(a.marker)?.[0] ?? a.at) - a.at;
const delays = lows
  .filter((a) => arrivals.has(a.marker))
  .map(delayOf)
  .sort((a, b) => a - b);
// Added while the killed process was down: alone, they wait for its restart; --alongside, the first polls them.
const whileDownDelays = lows
  .filter((a) => a.whileDown && arrivals.has(a.marker))
  .map(delayOf)
  .sort((a, b) => a - b);
const failedRows = [...finalStates.values()].filter((s) => s.status !== 'sent');

// Redis: what BullMQ holds as failed (a failed job's id blocks re-enqueueing that delivery), then clean up.
let failedJobs: Array<{ id: string; reason: string }> = [];
try {
  for (const queue of ['notify', 'poll']) {
    const ids = await redis.zrange(`${prefix}:${queue}:failed`, '0', '-1');
    for (const id of ids) {
      const reason = (await redis.hget(`${prefix}:${queue}:${id}`, 'failedReason')) ?? '';
      failedJobs.push({ id: `${queue}/${id}`, reason });
    }
  }
  failedJobs = failedJobs.slice(0, 50);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
} finally {
  await redis.quit();
}
db?.close();
await webhook.close();
await sim.close();
workerLog.end();
rmSync(dir, { recursive: true, force: true });

const figures = {
  seed: SEED,
  apps: APPS,
  rounds: ROUNDS,
  slackDelayMs: SLACK_DELAY_MS,
  alongside: ALONGSIDE,
  kills: kills.length,
  killsRunning: kills.filter((k) => k.kind === 'running').length,
  killsStartup: kills.filter((k) => k.kind === 'startup').length,
  reviewsAdded: added.length,
  lowReviewsAdded: lows.length,
  lowAddedWhileDown: lows.filter((a) => a.whileDown).length,
  highReviewsAdded: highs.length,
  webhookMessages: webhook.messages.length,
  alertsDelivered: lows.filter((a) => arrivals.has(a.marker)).length,
  missed: missed.map((a) => a.marker),
  duplicates,
  duplicatesInherent: inherentCount,
  duplicatesUnexplained: unexplained.length,
  falseAlerts: falseAlerts.map((a) => a.marker),
  undeliveredRows: failedRows,
  failedJobs,
  addedToDeliveredMs: {
    p50: delays[Math.floor(delays.length / 2)] ?? null,
    max: delays.at(-1) ?? null,
  },
  addedWhileDownToDeliveredMs: {
    p50: whileDownDelays[Math.floor(whileDownDelays.length / 2)] ?? null,
    max: whileDownDelays.at(-1) ?? null,
  },
  startupMs: {
    min: Math.min(...startupMs),
    median: [...startupMs].sort((a, b) => a - b)[Math.floor(startupMs.length / 2)],
    max: Math.max(...startupMs),
  },
  drainMs,
  sigtermStopMs: stopMs,
  sigtermExitCode: stopCode,
  killsOrphaningSchedules: kills.filter((k) => k.orphanedSchedules.length > 0).length,
  killsLeavingSyncLock: kills.filter((k) => k.leftSyncLock).length,
  killsLeavingPollLocks: kills.filter((k) => k.leftPollLocks.length > 0).length,
  atKill: kills.map((k) => ({
    generation: k.generation,
    kind: k.kind,
    upMs: k.upMs,
    lastLog: k.lastLog,
    orphanedSchedules: k.orphanedSchedules,
    leftSyncLock: k.leftSyncLock,
    leftPollLocks: k.leftPollLocks,
  })),
  logKinds: Object.fromEntries([...logCounts].sort((a, b) => b[1] - a[1])),
  totalSeconds: round(totalMs / 1000, 1),
  loadAverage: [round(loadBefore, 2), round(loadavg()[0] ?? 0, 2)],
  failure: failure ?? null,
  node: process.version,
  at: new Date(stamp).toISOString(),
};
const jsonPath = writeResult('crash', stamp, JSON.stringify(figures, null, 2));

const lines = [
  `Node ${process.version}, ${APPS} apps, poll ${SCHEDULE === 'fixed' ? 'every 1s' : `${SCHEDULE}, every 1s to 4s`}, ${ALONGSIDE ? 'two processes (the second killed, the first kept running), ' : ''}Slack answers after ${SLACK_DELAY_MS} ms, seed ${SEED}, load average ${loadBefore.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)}, ${new Date(stamp).toISOString()}`,
  '',
  '| rounds | SIGKILLs (running / startup) | reviews added (low / high) | alerts delivered | webhook messages | missed | duplicates (inherent window / unexplained) | false alerts | added → delivered p50 / max | total time |',
  '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  `| ${ROUNDS} | ${kills.length} (${figures.killsRunning} / ${figures.killsStartup}) | ${added.length} (${lows.length} / ${highs.length}) | ${figures.alertsDelivered}/${lows.length} | ${webhook.messages.length} | ${missed.length} | ${duplicates.length} (${inherentCount} / ${unexplained.length}) | ${falseAlerts.length} | ${round((figures.addedToDeliveredMs.p50 ?? 0) / 1000, 1)} s / ${round((figures.addedToDeliveredMs.max ?? 0) / 1000, 1)} s | ${figures.totalSeconds} s |`,
];
for (const d of duplicates) lines.push(`- duplicate ${d.marker}: ${d.verdict} (${d.why})`);
for (const m of missed)
  lines.push(
    `- MISSED ${m.marker} (${m.rating}★ on ${m.app}, round ${m.round}${m.whileDown ? ', added while down' : ''})`,
  );
for (const f of falseAlerts) lines.push(`- FALSE ALERT ${f.marker} (${f.rating}★)`);
for (const row of failedRows)
  lines.push(`- delivery of ${row.marker} ended ${row.status}: ${row.lastError ?? ''}`);
for (const job of failedJobs) lines.push(`- BullMQ failed job ${job.id}: ${job.reason}`);
if (failure) lines.push(`- run problem: ${failure}`);
lines.push(
  '',
  `added while down → delivered: p50 ${round((figures.addedWhileDownToDeliveredMs.p50 ?? 0) / 1000, 1)} s, max ${round((figures.addedWhileDownToDeliveredMs.max ?? 0) / 1000, 1)} s (${whileDownDelays.length} alerts)`,
  `restart to ready: min ${figures.startupMs.min} ms, median ${figures.startupMs.median} ms, max ${figures.startupMs.max} ms; drain after the last round ${round(drainMs / 1000, 1)} s; SIGTERM stop ${stopMs} ms (exit ${stopCode})`,
  `kills that left an app with no next poll job: ${figures.killsOrphaningSchedules}; kills that left the scheduler-sync lock: ${figures.killsLeavingSyncLock}; kills that left an app's poll lock (30 s without polls of it): ${figures.killsLeavingPollLocks}`,
  `results: ${jsonPath}`,
);
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(missed.length > 0 || unexplained.length > 0 || falseAlerts.length > 0 || failure ? 1 : 0);
