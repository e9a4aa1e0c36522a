import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { silentLogger } from '../src/log.js';
import { connectRedis, DEFAULT_REDIS_URL } from '../src/queue/connection.js';
import { POLL_JOB } from '../src/queue/names.js';
import { type PollJobResult, pollJobOptions } from '../src/queue/poll-worker.js';
import { partsOf, startWorker } from '../src/root/worker.js';
import { loadSettings } from '../src/settings.js';
import {
  alertBenchConfig,
  control,
  round,
  type Stats,
  startSimulatorProcess,
  startWebhookRecorder,
  stats,
  writeResult,
} from './support.js';

const { values } = parseArgs({
  options: {
    alerts: { type: 'string', default: '200' },
    apps: { type: 'string', default: '4' },
    batch: { type: 'string', default: '1' },
    warmup: { type: 'string', default: '5' },
  },
});
const ALERTS = Number(values.alerts);
const APPS = Number(values.apps);
const BATCH = Math.min(Number(values.batch), APPS);
const WARMUP = Number(values.warmup);
const REDIS_URL = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const stamp = Date.now();

interface Sample {
  marker: string;
  app: string;
  t0: number;
  pollActive?: number;
  pollDone?: number;
  deliveryId?: number;
  notifyActive?: number;
  webhook?: number;
}

const { url, child } = await startSimulatorProcess(APPS);
const handles = ((await control(url, '/handles')) as { handles: string[] }).handles.slice(0, APPS);
const webhook = await startWebhookRecorder(/lat-\d+-\d+/);
const dir = mkdtempSync(join(tmpdir(), 'reviewwatch-latency-'));
const prefix = `rwlatency-${process.pid}-${stamp}`;
// Written to a file and read through loadSettings, as `reviewwatch start` reads its config and environment.
const configPath = join(dir, 'reviewwatch.yaml');
writeFileSync(configPath, alertBenchConfig(handles, { maxRequestsPerSecond: 1000, poll: { every: '15m' } }));
const settings = loadSettings({
  configPath,
  env: {
    CATALOG_API_BASE_URL: url,
    CATALOG_API_KEY: 'bench',
    SLACK_WEBHOOK_URL: webhook.url,
    REDIS_URL,
    DATABASE_PATH: join(dir, 'reviewwatch.db'),
    REVIEWWATCH_QUEUE_PREFIX: prefix,
  },
});
// The worker `start` runs, less its schedules: this benchmark enqueues its own polls.
const services = await startWorker(settings, { mode: 'once', logger: silentLogger });
const parts = partsOf(services);

const samples = new Map<string, Sample>();
const deliveryToJob = new Map<number, string>();
const notifyActiveByDelivery = new Map<number, number>();
const finished = new Map<string, (result: PollJobResult | Error) => void>();
parts.pollWorker.on('active', (job) => {
  const sample = job.id ? samples.get(job.id) : undefined;
  if (sample) sample.pollActive = performance.now();
});
parts.pollWorker.on('completed', (job, result) => {
  const now = performance.now();
  const sample = job.id ? samples.get(job.id) : undefined;
  if (sample) {
    sample.pollDone = now;
    sample.deliveryId = result.deliveryIds[0];
    for (const id of result.deliveryIds) deliveryToJob.set(id, job.id as string);
  }
  if (job.id) finished.get(job.id)?.(result);
});
parts.pollWorker.on('failed', (job, err) => {
  if (job?.id) finished.get(job.id)?.(err);
});
parts.notifyWorker.on('active', (job) => {
  const id = job.data.deliveryIds[0];
  if (id !== undefined && !notifyActiveByDelivery.has(id)) notifyActiveByDelivery.set(id, performance.now());
});

/** Enqueues polls of these apps under the given job ids and resolves when they have finished. */
async function poll(jobs: Array<{ jobId: string; handle: string }>): Promise<PollJobResult[]> {
  const done = jobs.map(
    ({ jobId }) =>
      new Promise<PollJobResult>((resolve, reject) => {
        finished.set(jobId, (result) => {
          finished.delete(jobId);
          if (result instanceof Error) reject(result);
          else resolve(result);
        });
      }),
  );
  await parts.pollQueue.addBulk(
    jobs.map(({ jobId, handle }) => ({
      name: POLL_JOB,
      data: { handle },
      opts: { ...pollJobOptions(parts.retry), jobId },
    })),
  );
  return Promise.all(done);
}

function progress(text: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${text}`);
}

const measured: Sample[] = [];
const loadBefore = loadavg()[0] ?? 0;
const started = performance.now();
try {
  await poll(handles.map((handle) => ({ jobId: `baseline-${handle}`, handle })));
  const steps = Math.ceil((ALERTS + WARMUP) / BATCH);
  let n = 0;
  for (let step = 0; step < steps; step++) {
    const batch: Sample[] = [];
    for (let k = 0; k < BATCH; k++) {
      const app = handles[(step * BATCH + k) % handles.length] as string;
      const marker = `lat-${stamp}-${++n}`;
      await control(url, `/apps/${app}/reviews`, [
        { rating: 1 + (n % 3), review_content: `${marker} Crashes every time I open the settings page.` },
      ]);
      batch.push({ marker, app, t0: 0 });
    }
    const t0 = performance.now();
    for (const sample of batch) {
      sample.t0 = t0;
      samples.set(sample.marker, sample);
    }
    const arrived = batch.map((sample) => webhook.waitFor(sample.marker, 30_000));
    await poll(batch.map((sample) => ({ jobId: sample.marker, handle: sample.app })));
    const messages = await Promise.all(arrived);
    messages.forEach((message, i) => {
      const sample = batch[i] as Sample;
      sample.webhook = message.t;
      if (sample.deliveryId !== undefined)
        sample.notifyActive = notifyActiveByDelivery.get(sample.deliveryId);
    });
    if (n > WARMUP) measured.push(...batch.filter((_, i) => n - BATCH + i + 1 > WARMUP));
    progress(`${Math.max(0, n - WARMUP)}/${ALERTS} alerts`);
  }
  progress('');
} finally {
  await services.stop();
  const redis = await connectRedis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  await redis.quit();
  await webhook.close();
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
const seconds = (performance.now() - started) / 1000;

const used = measured.slice(0, ALERTS);
const duplicateMessages = webhook.messages.length - new Set(webhook.messages.flatMap((m) => m.markers)).size;
const of = (pick: (s: Sample) => number | undefined): Stats =>
  stats(used.map(pick).filter((v): v is number => v !== undefined && Number.isFinite(v)));
const rows: Array<[string, Stats]> = [
  ['poll start → webhook received (end to end)', of((s) => (s.webhook ?? Number.NaN) - s.t0)],
  ['  poll start → poll job picked up', of((s) => (s.pollActive ?? Number.NaN) - s.t0)],
  [
    '  poll job picked up → notify job picked up',
    of((s) => (s.notifyActive ?? Number.NaN) - (s.pollActive ?? Number.NaN)),
  ],
  [
    '  notify job picked up → webhook received',
    of((s) => (s.webhook ?? Number.NaN) - (s.notifyActive ?? Number.NaN)),
  ],
  ['poll job alone (poll start → poll job completed)', of((s) => (s.pollDone ?? Number.NaN) - s.t0)],
];

const lines = [
  `Node ${process.version}, ${used.length} alerts over ${APPS} apps, ${BATCH} poll(s) at a time, simulator in its own process, load average ${loadBefore.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)}, ${new Date(stamp).toISOString()}`,
  '',
  '| measure (ms) | n | p50 | p95 | max | mean |',
  '| --- | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(([label, s]) => `| ${label} | ${s.n} | ${s.p50} | ${s.p95} | ${s.max} | ${s.mean} |`),
];
if (duplicateMessages > 0) lines.push('', `${duplicateMessages} duplicate webhook message(s)!`);

// Beside the watch loop's figures: the newest bench/poll.ts result, if there is one.
const pollResults = (() => {
  try {
    return readdirSync('bench/results')
      .filter((f) => /^poll-\d+\.json$/.test(f))
      .sort()
      .reverse();
  } catch {
    return [];
  }
})();
const latestPoll = pollResults[0];
let watchLoop: unknown = null;
if (latestPoll) {
  const figures = JSON.parse(readFileSync(`bench/results/${latestPoll}`, 'utf8')) as Array<{
    round?: number;
    phase: string;
    apps: number;
    seconds: number;
    appsPerSecond: number;
    requestsPerApp: number;
  }>;
  watchLoop = { file: latestPoll, figures };
  lines.push(
    '',
    `Beside the watch loop (bench/poll.ts, bench/results/${latestPoll}):`,
    '',
    '| apps | round | phase | seconds | apps/s | ms per app (1 / apps/s) |',
    '| ---: | ---: | --- | ---: | ---: | ---: |',
    ...figures.map(
      (f) =>
        `| ${f.apps} | ${f.round ?? ''} | ${f.phase} | ${f.seconds} | ${f.appsPerSecond} | ${round(1000 / f.appsPerSecond, 2)} |`,
    ),
  );
}
const jsonPath = writeResult(
  'latency',
  stamp,
  JSON.stringify(
    {
      node: process.version,
      at: new Date(stamp).toISOString(),
      alerts: used.length,
      apps: APPS,
      batch: BATCH,
      warmup: WARMUP,
      seconds: round(seconds, 1),
      loadAverage: [round(loadBefore, 2), round(loadavg()[0] ?? 0, 2)],
      duplicateMessages,
      figures: Object.fromEntries(rows.map(([label, s]) => [label.trim(), s])),
      samplesMs: used.map((s) => ({
        app: s.app,
        endToEnd: round((s.webhook ?? Number.NaN) - s.t0, 2),
        pollPickup: round((s.pollActive ?? Number.NaN) - s.t0, 2),
        pollToNotify: round((s.notifyActive ?? Number.NaN) - (s.pollActive ?? Number.NaN), 2),
        notifyToWebhook: round((s.webhook ?? Number.NaN) - (s.notifyActive ?? Number.NaN), 2),
        pollJob: round((s.pollDone ?? Number.NaN) - s.t0, 2),
      })),
      watchLoop,
    },
    null,
    2,
  ),
);
lines.push('', `${round(seconds, 1)} s in all; results: ${jsonPath}`);
process.stdout.write(`${lines.join('\n')}\n`);
