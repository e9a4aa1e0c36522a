/**
 * Live updates with 50 open tabs: 50 concurrent clients of `/api/live` against the real inbox (express, the
 * real routers and middleware, a session cookie) over a real SQLite store, in a server process of its own
 * whose CPU time is measured, against the plain list page (`/`) measured in the same run.
 *
 *   npx tsx bench/live.ts [--reviews 200000] [--apps 50] [--clients 50] [--seconds 8] [--db path]
 *
 * Phases, each for --seconds, every client sending its next request as soon as the last is answered (so
 * the figures are what one process can serve, far above what 50 tabs ask):
 *   - list page: GET / (the default view), what a reload costs;
 *   - live, nothing new: GET /api/live with the ETag of the last answer, as the page's script sends it: 304s;
 *   - live, a review a second: the same while the server stores a low review every second, so the mark moves
 *     and answers are computed again (once per mark, shared by the 50 clients);
 *   - live, each tab its own mark: the same churn, the 50 clients drawn at 50 different marks (tabs opened at
 *     different times): the first page and the triage changes are still shared, `newer` is each tab's own.
 * Then 50 tabs at the pace the pages poll (every 15 s; here every 1 s, 15 times more), for the CPU share.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import express from 'express';
import { type Config, parseConfig } from '../src/config/index.js';
import { createLogger } from '../src/log.js';
import { Rng } from '../src/simulator/random.js';
import { openStore, type Store } from '../src/store/db.js';
import { indexNewReviews } from '../src/store/review-index.js';
import { createWeb } from '../src/web/router.js';
import { addUser } from '../src/web/users.js';
import { Browser } from '../test/helpers/web.js';
import { writeApps, writeReviews } from './synthetic-store.js';

const { values } = parseArgs({
  options: {
    serve: { type: 'boolean', default: false },
    reviews: { type: 'string', default: '200000' },
    apps: { type: 'string', default: '50' },
    clients: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '8' },
    db: { type: 'string' },
  },
});
const REVIEWS = Number(values.reviews);
const APPS = Number(values.apps);
const CLIENTS = Number(values.clients);
const SECONDS = Number(values.seconds);
const DAY = 86_400_000;
const PASSWORD = 'bench password for the inbox';

function benchConfig(): Config {
  return parseConfig(
    {
      catalog: { simulator: true },
      // One in ten apps is a competitor, as in the config of a team watching a few.
      apps: Array.from({ length: APPS }, (_, i) => ({
        handle: `app-${i}`,
        name: `App ${i}`,
        ...(i % 10 === 9 ? { role: 'competitor' } : {}),
      })),
    },
    {},
  );
}

/** Reviews over the last two years, a third of them low, a fifth of the low ones triaged. */
function build(store: Store): void {
  const client = store.db.$client;
  const rng = new Rng(7);
  const now = Date.now();
  const insertTriage = client.prepare(
    `insert into review_triage (review_row_id, status, assignee, updated_at, updated_by)
     values (?, ?, null, ?, 'bench')`,
  );
  writeApps(store, APPS, now);
  writeReviews(
    store,
    REVIEWS,
    (i) => {
      const app = Math.floor(rng.next() * rng.next() * APPS);
      const rating = rng.next() < 0.33 ? 1 + Math.floor(rng.next() * 3) : 4 + Math.floor(rng.next() * 2);
      const at = Math.round(now - ((REVIEWS - i) / REVIEWS) * 730 * DAY);
      const content = `Review ${i}: ${rating <= 3 ? 'it crashes and support is slow' : 'works well'}`;
      return { app, rating, content, at };
    },
    {
      timeUsingApp: '1 year using the app',
      appUrl: true,
      stored: (id, { rating, at }) => {
        if (rating <= 3 && rng.next() < 0.2) insertTriage.run(id, 'resolved', at);
      },
    },
  );
  process.stderr.write('\n');
}

// ---------------------------------------------------------------------------------------------------------
// The server process: the inbox over the store, its CPU time and a review a second on request (IPC).

type ToServer = { kind: 'cpu' } | { kind: 'churn'; on: boolean } | { kind: 'insert' };
type FromServer = { kind: 'ready'; url: string } | { kind: 'cpu'; micros: number } | { kind: 'inserted' };

async function serve(path: string): Promise<void> {
  const store = openStore(path);
  const web = createWeb({ store, config: benchConfig(), admin: {}, logger: createLogger({ level: 'warn' }) });
  const app = express();
  app.use(web.router);
  const server = createServer({ keepAliveTimeout: 60_000 }, app);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  const insert = store.db.$client.prepare(
    `insert into reviews (app_handle, identity, fingerprint, review_id, reviewer, location, rating, content,
     created_date, created_at, time_using_app, app_name, app_url, from_baseline, first_seen_at, updated_at,
     poll_run_id) values ('app-0', ?, ?, ?, 'Someone new', 'Canada', 1, 'It stopped working today', ?, ?,
     '1 day using the app', 'App 0', 'https://apps.example/app-0', 0, ?, ?, 1)`,
  );
  let churn: NodeJS.Timeout | undefined;
  let n = 0;
  const send = (message: FromServer) => process.send?.(message);
  const storeOne = () => {
    const now = Date.now();
    const id = `live-${process.pid}-${++n}`;
    const row = Number(insert.run(id, id, id, new Date(now).toISOString(), now, now, now).lastInsertRowid);
    indexNewReviews(store.db, row, row);
  };
  process.on('message', (message: ToServer) => {
    if (message.kind === 'cpu') {
      const { user, system } = process.cpuUsage();
      send({ kind: 'cpu', micros: user + system });
    } else if (message.kind === 'insert') {
      storeOne();
      send({ kind: 'inserted' });
    } else {
      clearInterval(churn);
      if (message.on) churn = setInterval(storeOne, 1000);
    }
  });
  process.on('disconnect', () => {
    clearInterval(churn);
    server.close();
    store.close();
    process.exit(0);
  });
  send({ kind: 'ready', url: `http://127.0.0.1:${port}` });
}

// ---------------------------------------------------------------------------------------------------------
// The clients.

class Server {
  readonly #child: ChildProcess;
  #waiting: ((message: FromServer) => void) | undefined;

  constructor(child: ChildProcess) {
    this.#child = child;
    child.on('message', (message: FromServer) => this.#waiting?.(message));
  }

  next(): Promise<FromServer> {
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  async cpuMicros(): Promise<number> {
    const answer = this.next();
    this.#child.send({ kind: 'cpu' } satisfies ToServer);
    const message = await answer;
    if (message.kind !== 'cpu') throw new Error('the server answered something else');
    return message.micros;
  }

  churn(on: boolean): void {
    this.#child.send({ kind: 'churn', on } satisfies ToServer);
  }

  /** Stores one review now, so the next page drawn has a mark of its own. */
  async insert(): Promise<void> {
    const answer = this.next();
    this.#child.send({ kind: 'insert' } satisfies ToServer);
    await answer;
  }
}

interface Tab {
  cookie: string;
  liveUrl: string;
  etag?: string;
}

interface PhaseResult {
  phase: string;
  requests: number;
  perSecond: number;
  statuses: Record<string, number>;
  p50: number;
  p95: number;
  p99: number;
  cpuMsPerRequest: number;
  cpuShare: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

/** A session and the live URL of a freshly drawn list page, as a tab has them. */
async function openTab(url: string, cookie: string | undefined): Promise<Tab> {
  const browser = new Browser(url);
  if (cookie) {
    const [name, value] = cookie.split('=') as [string, string];
    browser.cookies.set(name, value);
  } else if ((await browser.login('ana', PASSWORD)).status !== 303) throw new Error('could not log in');
  const page = await (await browser.get('/')).text();
  const live = /data-live-url="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');
  if (!live) throw new Error('the list page has no data-live-url');
  const session = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  return { cookie: session, liveUrl: live };
}

async function phase(
  server: Server,
  name: string,
  tabs: Tab[],
  request: (tab: Tab) => Promise<number>,
  options: { paceMs?: number } = {},
): Promise<PhaseResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const cpuBefore = await server.cpuMicros();
  const started = performance.now();
  const until = started + SECONDS * 1000;
  await Promise.all(
    tabs.map(async (tab, i) => {
      // Paced tabs start spread over one interval, as tabs opened at different moments are.
      if (options.paceMs) await new Promise((r) => setTimeout(r, (options.paceMs ?? 0) * (i / tabs.length)));
      while (performance.now() < until) {
        const t0 = performance.now();
        const status = await request(tab);
        const took = performance.now() - t0;
        latencies.push(took);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (options.paceMs)
          await new Promise((r) => setTimeout(r, Math.max(0, (options.paceMs ?? 0) - took)));
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  const cpuMs = ((await server.cpuMicros()) - cpuBefore) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    phase: name,
    requests: latencies.length,
    perSecond: latencies.length / wall,
    statuses,
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    p99: percentile(latencies, 0.99),
    cpuMsPerRequest: cpuMs / latencies.length,
    cpuShare: cpuMs / 1000 / wall,
  };
}

async function main(): Promise<void> {
  const work = join(tmpdir(), `reviewwatch-live-${process.pid}`);
  const dbPath = values.db ?? join(work, 'live.db');
  mkdirSync(work, { recursive: true });
  const fresh = !existsSync(dbPath);
  const store = openStore(dbPath);
  if (fresh) {
    process.stderr.write(`building a store of ${REVIEWS.toLocaleString('en')} reviews over ${APPS} apps…\n`);
    build(store);
    await addUser(store, { name: 'ana', password: PASSWORD });
  }
  store.close();

  const child = fork(new URL(import.meta.url).pathname, ['--serve', '--db', dbPath, '--apps', String(APPS)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const server = new Server(child);
  try {
    const ready = await server.next();
    if (ready.kind !== 'ready') throw new Error('the server did not start');
    const { url } = ready;
    const first = await openTab(url, undefined);
    const tabs = await Promise.all(Array.from({ length: CLIENTS }, () => openTab(url, first.cookie)));

    const getList = async (tab: Tab) => {
      const res = await fetch(`${url}/`, { headers: { cookie: tab.cookie } });
      await res.arrayBuffer();
      return res.status;
    };
    const getLive = async (tab: Tab) => {
      const res = await fetch(`${url}${tab.liveUrl}`, {
        headers: { cookie: tab.cookie, ...(tab.etag ? { 'if-none-match': tab.etag } : {}) },
      });
      await res.arrayBuffer();
      tab.etag = res.headers.get('etag') ?? tab.etag;
      return res.status;
    };

    const results: PhaseResult[] = [];
    // A first round warms the JIT and SQLite's cache for both; only the second is reported.
    await phase(server, 'warm-up', tabs, getList);
    results.push(await phase(server, 'list page (GET /)', tabs, getList));
    await phase(server, 'warm-up', tabs, getLive);
    results.push(await phase(server, 'live, nothing new', tabs, getLive));
    server.churn(true);
    results.push(await phase(server, 'live, a review a second', tabs, getLive));
    // Tabs drawn at different marks: each opened after a review of its own was stored.
    const staggered: Tab[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      await server.insert();
      staggered.push(await openTab(url, first.cookie));
    }
    results.push(await phase(server, 'live, each tab its own mark', staggered, getLive));
    results.push(
      await phase(server, `${CLIENTS} tabs polling every 1 s`, staggered, getLive, { paceMs: 1000 }),
    );
    server.churn(false);

    console.log(
      `\n${CLIENTS} clients, ${SECONDS} s per phase, ${REVIEWS.toLocaleString('en')} reviews over ${APPS} apps, Node ${process.version}\n`,
    );
    console.log(
      '| phase | requests | requests/s | answers | p50 ms | p95 ms | p99 ms | server CPU ms/request | server CPU (share of a core) |',
    );
    console.log('|---|--:|--:|---|--:|--:|--:|--:|--:|');
    for (const r of results) {
      const answers = Object.entries(r.statuses)
        .map(([status, n]) => `${n} × ${status}`)
        .join(', ');
      console.log(
        `| ${r.phase} | ${r.requests} | ${r.perSecond.toFixed(0)} | ${answers} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.cpuMsPerRequest.toFixed(3)} | ${(r.cpuShare * 100).toFixed(1)}% |`,
      );
    }
    const list = results[0] as PhaseResult;
    const idle = results[1] as PhaseResult;
    const paced = results.at(-1) as PhaseResult;
    console.log(
      `\nA poll with nothing new costs ${((idle.cpuMsPerRequest / list.cpuMsPerRequest) * 100).toFixed(1)}% of a list page's server CPU.` +
        ` ${CLIENTS} tabs at the pages' pace (every 15 s) would take about ${((paced.cpuShare / 15) * 100).toFixed(2)}% of a core.`,
    );
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(`bench/results/live-${Date.now()}.json`, JSON.stringify({ values, results }, null, 2));
  } finally {
    child.disconnect();
    if (!values.db) rmSync(work, { recursive: true, force: true });
  }
}

if (values.serve) {
  if (!values.db) throw new Error('--serve needs --db');
  await serve(values.db);
} else {
  await main();
}
