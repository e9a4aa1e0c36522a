import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Queue, type Worker } from 'bullmq';
import { Agent, request } from 'undici';
import { alertPolicyOf } from '../src/alerts/policy.js';
import type { AlertPolicy } from '../src/alerts/raise.js';
import { CatalogClient } from '../src/catalog/index.js';
import { parseConfig } from '../src/config/index.js';
import { silentLogger } from '../src/log.js';
import { Metrics } from '../src/ops/metrics.js';
import { connectRedis, DEFAULT_REDIS_URL } from '../src/queue/connection.js';
import { POLL_JOB, POLL_QUEUE, type PollJobData } from '../src/queue/names.js';
import { createPollWorker, type PollJobResult, pollJobOptions } from '../src/queue/poll-worker.js';
import { RedisRequestGate } from '../src/queue/rate-gate.js';
import { openStore } from '../src/store/db.js';
import { compileTaxonomy } from '../src/topics/index.js';
import { control, round, startSimulatorProcess } from './support.js';

const { values } = parseArgs({
  options: {
    apps: { type: 'string', default: '1000,10000' },
    concurrency: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
    // `off` stores reviews under a taxonomy of no topics (and scores without topics): the cost of topics at
    // ingest is the difference in CPU per app between `on` and `off` (bench/README.md, Topics).
    topics: { type: 'string', default: 'on' },
    // With topics on: a CPU profile of each cycle, and topics' own functions' share of the poller's busy time.
    attribute: { type: 'boolean', default: false },
    // Where the figures' JSON goes; by default a new file in bench/results/ (bench/topics-cost.ts names one).
    out: { type: 'string' },
  },
});
const TOPICS_ON = values.topics !== 'off';
const APP_COUNTS = values.apps.split(',').map(Number);
const CONCURRENCY = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
const REDIS_URL = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
const KEY = 'bench';
const BARE_FETCH = 'bare loop, fetch() (page 1 only)';
const BARE_UNDICI = 'bare loop, undici request() (page 1 only)';
const BASELINE = 'baseline cycle (1 page each)';
const QUIET = 'poll cycle, nothing new';
const FIVE_NEW = 'poll cycle, 5 new each';

interface Figures {
  /** Phases of one round are compared with that round's bare loops. */
  round: number;
  phase: string;
  apps: number;
  seconds: number;
  appsPerSecond: number;
  requestsPerApp: number;
  peakRssMiB: number;
  /** CPU time of this process (the poll worker, its store writes, BullMQ) per app, user + system. */
  cpuMsPerApp: number;
  /**
   * Of it, the main thread's, where Linux tells it (mainThreadMicros): the poll itself. The rest is V8's
   * threads (optimizing compiles, the collector's helpers) and libuv's.
   */
  mainThreadMsPerApp?: number;
  /** With `--attribute`: the profile's time in TOPIC_WORK, and its busy time, per app (topicWork). */
  topicsMsPerApp?: number;
  busyMsPerApp?: number;
}

/**
 * Topics' own work at ingest that a profile can name: matching a review's text (src/topics/match.ts). Left
 * out: the topic counters of the day counts, written by the same statement as the day's own count
 * (src/store/review-index.ts), the bigger rows topics make the write insert, read back and commit, and the
 * collector's work for their garbage (bench/README.md, "Stored topics", measures them apart).
 */
const TOPIC_WORK = new Set(['topicsOf']);

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

interface TopicWork {
  topicsMs: number;
  busyMs: number;
}

/**
 * The profile's time within a call of TOPIC_WORK (the calls inside it included), and its busy time (not
 * idle), in ms. Both are of the main thread, where the poll runs: the share they give is not diluted by
 * the collector's and libuv's threads, which the process's CPU counts, and the machine's load slows both.
 */
function topicWork(profile: CpuProfile): TopicWork {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const within = new Set<number>();
  const idle = new Set<number>();
  const mark = (id: number, inside: boolean) => {
    const node = byId.get(id);
    if (!node) return;
    const { functionName } = node.callFrame;
    if (functionName === '(idle)') idle.add(id);
    const now = inside || TOPIC_WORK.has(functionName);
    if (now) within.add(id);
    for (const child of node.children ?? []) mark(child, now);
  };
  const root = profile.nodes[0];
  if (root) mark(root.id, false);
  let topics = 0;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const micros = profile.timeDeltas[i] ?? 0;
    if (!idle.has(id)) busy += micros;
    if (within.has(id)) topics += micros;
  });
  return { topicsMs: topics / 1000, busyMs: busy / 1000 };
}

/**
 * V8's sampling profiler on this thread, when `--attribute` asks; `stop` gives its topicWork. Stopped
 * after the CPU time is read: turning a profile into JSON is the bench's cost, not the poll's.
 */
async function startProfiler(phase: string): Promise<{ stop: () => Promise<TopicWork> } | undefined> {
  // Only the cycles that store reviews: the bare loops and quiet cycles keep their figures unprofiled.
  if (!values.attribute || !TOPICS_ON || (phase !== BASELINE && phase !== FIVE_NEW)) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    stop: async () => {
      try {
        const { profile } = await session.post('Profiler.stop');
        return topicWork(profile as CpuProfile);
      } finally {
        session.disconnect();
      }
    },
  };
}

/** A live progress line on a terminal; in a log, only the start of each step. */
let lastStep = '';
function progress(text: string): void {
  if (process.stderr.isTTY) {
    process.stderr.write(`\r\x1b[K${text}`);
    return;
  }
  const step = text.replace(/\d+\/\d+.*$/, '');
  if (text !== '' && step !== lastStep) process.stderr.write(`${text}\n`);
  lastStep = step;
}

async function requestCount(url: string): Promise<number> {
  return ((await control(url, '/stats')) as { requests: number }).requests;
}

/** Runs `task` over items with `concurrency` in flight. */
async function pool<T>(items: T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await task(items[next++] as T);
    }),
  );
}

/**
 * The CPU time of this process's main thread so far, in µs, from /proc (Linux); undefined elsewhere.
 * process.cpuUsage() counts every thread: this tells the poll's own work from V8 compiling it on its
 * worker threads, which a fresh process does in its first cycles (bench/README.md, "Stored topics").
 */
function mainThreadMicros(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
  } catch {
    return undefined;
  }
}

/** Samples RSS while `work` runs. */
async function measured(
  phase: string,
  apps: number,
  url: string,
  work: () => Promise<void>,
): Promise<Omit<Figures, 'round'>> {
  const before = await requestCount(url);
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  const profiler = await startProfiler(phase);
  const cpu = process.cpuUsage();
  const main = mainThreadMicros();
  await work();
  const used = process.cpuUsage(cpu);
  const mainAfter = mainThreadMicros();
  const profiled = await profiler?.stop();
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const requests = (await requestCount(url)) - before;
  progress('');
  return {
    phase,
    apps,
    seconds: round(seconds, 2),
    appsPerSecond: Math.round(apps / seconds),
    requestsPerApp: round(requests / apps, 3),
    peakRssMiB: Math.round(Math.max(peak, process.memoryUsage().rss) / 2 ** 20),
    cpuMsPerApp: round((used.user + used.system) / 1000 / apps, 3),
    ...(main !== undefined &&
      mainAfter !== undefined && { mainThreadMsPerApp: round((mainAfter - main) / 1000 / apps, 3) }),
    ...(profiled && {
      topicsMsPerApp: round(profiled.topicsMs / apps, 3),
      busyMsPerApp: round(profiled.busyMs / apps, 3),
    }),
  };
}

/** The real alert policy; with `--topics off`, one whose taxonomy has no topics. */
function policyOf(handles: string[]): AlertPolicy {
  const policy = alertPolicyOf(parseConfig({ apps: handles.map((handle) => ({ handle })) }, {}));
  return TOPICS_ON ? policy : { ...policy, scoring: { ...policy.scoring, topics: compileTaxonomy([]) } };
}

async function benchmark(apps: number): Promise<Figures[]> {
  progress(`${apps} apps: starting the simulator…`);
  const { url, child } = await startSimulatorProcess(apps);
  const handles = ((await control(url, '/handles')) as { handles: string[] }).handles.slice(0, apps);
  const dir = join(tmpdir(), `reviewwatch-bench-${process.pid}-${apps}`);
  mkdirSync(dir, { recursive: true });
  const store = openStore(join(dir, 'bench.db'));
  const redis = await connectRedis(REDIS_URL);
  const prefix = `rwbench-${process.pid}-${apps}`;
  const queue = new Queue<PollJobData>(POLL_QUEUE, { connection: redis, prefix });
  const maxRequestsPerSecond = 1_000_000;
  const gate = new RedisRequestGate(redis, { prefix, maxRequestsPerSecond });
  const client = new CatalogClient({ baseUrl: url, apiKey: KEY, gate });
  const worker: Worker<PollJobData, PollJobResult> = createPollWorker({
    connection: redis,
    queue,
    prefix,
    concurrency: CONCURRENCY,
    maxRequestsPerSecond,
    poll: { maxPages: 10, baselinePages: 1 },
    lowRatingMax: 3,
    // The real path: alerts are raised (and stored) too; no channel is configured, so nothing is sent.
    deps: {
      client,
      store,
      logger: silentLogger,
      alerts: policyOf(handles),
    },
    logger: silentLogger,
    // As `start` runs it: the poll metrics are counted too.
    metrics: new Metrics(),
  });
  let completed = 0;
  let failed = 0;
  worker.on('completed', () => {
    completed++;
  });
  worker.on('failed', () => {
    failed++;
  });
  void worker.run();

  const cycle = async (label: string) => {
    completed = 0;
    failed = 0;
    await queue.addBulk(
      handles.map((handle) => ({
        name: POLL_JOB,
        data: { handle },
        // As the job schedulers add them (queue/schedulers.ts).
        opts: pollJobOptions({ attempts: 3, backoffMs: 100 }),
      })),
    );
    while (completed + failed < apps) {
      progress(`${apps} apps: ${label}: ${completed + failed}/${apps} polls done`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (failed > 0) throw new Error(`${failed} polls failed in ${label}`);
  };

  const figures: Figures[] = [];
  try {
    // The simulator generates an app's data on first request: warm it so the bare loop is not charged.
    progress(`${apps} apps: warming the simulator…`);
    await pool(handles, CONCURRENCY, async (handle) => {
      await (await fetch(`${url}/__sim/apps/${handle}/reviews`)).arrayBuffer();
    });
    // Two bare loops: fetch(), the plainest way to fetch page 1 (the baseline), and the client's
    // own transport (undici's request() on a keep-alive pool), which costs the process less per request.
    const pageOne = (handle: string) =>
      `${url}/v1/scrape/platform/app/${handle}/reviews?page=1&sortBy=newest`;
    const bareLoop = async (label: string, get: (handle: string) => Promise<unknown>) => {
      let done = 0;
      await pool(handles, CONCURRENCY, async (handle) => {
        await get(handle);
        if (++done % 500 === 0) progress(`${apps} apps: ${label}: ${done}/${apps}`);
      });
    };
    const agent = new Agent();
    const bareLoops = async (round: number) => {
      figures.push({
        round,
        ...(await measured(BARE_FETCH, apps, url, () =>
          bareLoop('bare loop', async (handle) => {
            const response = await fetch(pageOne(handle), { headers: { 'x-api-key': KEY } });
            return response.json();
          }),
        )),
      });
      figures.push({
        round,
        ...(await measured(BARE_UNDICI, apps, url, () =>
          bareLoop('bare loop (undici)', async (handle) => {
            const response = await request(pageOne(handle), {
              dispatcher: agent,
              headers: { 'x-api-key': KEY },
            });
            return response.body.json();
          }),
        )),
      });
    };
    const pollCycle = async (round: number, phase: string) => {
      figures.push({ round, ...(await measured(phase, apps, url, () => cycle(`round ${round}, ${phase}`))) });
    };
    // The quiet cycle is the headline: it runs ROUNDS times, each right after its own bare loops, and the
    // ratios are taken within a round, so a noisy moment of the machine hits both sides.
    for (let round = 1; round <= ROUNDS; round++) {
      await bareLoops(round);
      if (round === 1) await pollCycle(round, BASELINE);
      await pollCycle(round, QUIET);
    }
    progress(`${apps} apps: adding 5 reviews to every app…`);
    await pool(handles, 32, async (handle) => {
      await control(url, `/apps/${handle}/reviews`, 5);
    });
    await bareLoops(ROUNDS + 1);
    await pollCycle(ROUNDS + 1, FIVE_NEW);
    await agent.close();
  } finally {
    await worker.close();
    await client.close();
    await queue.obliterate({ force: true });
    await queue.close();
    await redis.del(`${prefix}:catalog-gate`);
    await redis.quit();
    store.close();
    rmSync(dir, { recursive: true, force: true });
    child.kill('SIGTERM');
  }
  return figures;
}

const all: Figures[] = [];
for (const apps of APP_COUNTS) all.push(...(await benchmark(apps)));

const ratio = (f: Figures, phase: string): number | undefined => {
  const bare = all.find((b) => b.apps === f.apps && b.round === f.round && b.phase === phase);
  return bare ? f.appsPerSecond / bare.appsPerSecond : undefined;
};
const percent = (value: number | undefined) => (value === undefined ? '' : `${Math.round(value * 100)}%`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const lines = [
  `Node ${process.version}, concurrency ${CONCURRENCY}, ${ROUNDS} rounds, topics ${TOPICS_ON ? 'on' : 'off'}, simulator in its own process, ${new Date().toISOString()}`,
  '',
  '| apps | round | phase | seconds | apps/s | vs fetch() loop | vs undici loop | requests/app | peak RSS (MiB) | CPU ms/app |',
  '| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
];
for (const f of all) {
  lines.push(
    `| ${f.apps} | ${f.round} | ${f.phase} | ${f.seconds} | ${f.appsPerSecond} | ${percent(ratio(f, BARE_FETCH))} | ${percent(ratio(f, BARE_UNDICI))} | ${f.requestsPerApp} | ${f.peakRssMiB} | ${f.cpuMsPerApp} |`,
  );
}
lines.push('');
for (const apps of APP_COUNTS) {
  const quiet = all.filter((f) => f.apps === apps && f.phase === QUIET);
  const vs = (phase: string) => percent(median(quiet.map((f) => ratio(f, phase) ?? 0)));
  lines.push(
    `${apps} apps, ${QUIET}: median of ${quiet.length} rounds ${vs(BARE_FETCH)} of the fetch() loop, ${vs(BARE_UNDICI)} of the undici loop`,
  );
}
const storing = all.filter(
  (f) => f.topicsMsPerApp !== undefined && (f.phase === BASELINE || f.phase === FIVE_NEW),
);
if (storing.length > 0) {
  lines.push('', "Topics' own work (matching, topic day counts) in the cycles that store reviews:", '');
  lines.push(
    '| apps | phase | CPU ms/app (profiled) | main thread busy, ms/app | topics, ms/app | share of busy |',
    '| ---: | --- | ---: | ---: | ---: | ---: |',
  );
  for (const f of storing) {
    const busy = f.busyMsPerApp ?? 0;
    const share = busy > 0 ? `${((100 * (f.topicsMsPerApp ?? 0)) / busy).toFixed(1)}%` : '';
    lines.push(
      `| ${f.apps} | ${f.phase} | ${f.cpuMsPerApp} | ${f.busyMsPerApp} | ${f.topicsMsPerApp} | ${share} |`,
    );
  }
}
const report = lines.join('\n');
process.stdout.write(`${report}\n`);
mkdirSync('bench/results', { recursive: true });
writeFileSync(values.out ?? `bench/results/poll-${Date.now()}.json`, JSON.stringify(all, null, 2));
