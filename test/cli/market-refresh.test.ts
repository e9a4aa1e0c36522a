/**
 * `reviewwatch market --refresh` end to end, as a cron job runs it: the real CLI in a child process, the
 * simulator's market script over HTTP, real Redis and SQLite, and a Slack webhook that counts what reaches
 * it. Each run is one snapshot: the rank rules count snapshots, so runs seconds apart judge as the
 * scheduled ones do hours apart.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, removePrefixedKeys } from '../../src/queue/connection.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import type { MarketEvent } from '../../src/simulator/market.js';
import { openStore } from '../../src/store/db.js';
import { latestSnapshots } from '../../src/store/market/snapshots.js';
import { type CliResult, runCli } from '../helpers/cli.js';
import { REDIS_URL, tempDir, uniquePrefix } from '../helpers/index.js';
import { type FakeSlack, startFakeSlack } from '../helpers/slack.js';

const KEY = 'market-refresh-key';
const CATEGORY = 'store-design';
const RUN_MS = 60_000;
/** A wobble of about a place a day, no spikes and no reshuffle by chance: every move that alerts is scripted. */
const WOBBLE = { dailySd: 1, tickSd: 0.25, spikeChance: 0, reshufflePerDay: 0 };

let sim: Simulator;
let slack: FakeSlack;
let redis: Redis;
let dir: ReturnType<typeof tempDir>;
let env: Record<string, string>;
let prefix: string;

beforeAll(async () => {
  sim = await startSimulator({
    apiKey: KEY,
    appCount: 300,
    maxReviewsPerApp: 3,
    handles: ['my-app', 'rival-app'],
    market: {
      noise: WOBBLE,
      events: [
        { kind: 'place', handle: 'my-app', category: CATEGORY, rank: 5 },
        { kind: 'place', handle: 'rival-app', category: CATEGORY, rank: 15 },
        { kind: 'price', at: 0, handle: 'rival-app', plan: 'Pro', price: '$50/month' },
      ],
    },
  });
  slack = await startFakeSlack();
  redis = await connectRedis(REDIS_URL);
  dir = tempDir();
  prefix = uniquePrefix();
  const config = join(dir.dir, 'reviewwatch.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      catalog: { baseUrl: '${CATALOG_API_BASE_URL}', apiKey: '${CATALOG_API_KEY}', maxRequestsPerSecond: 50 },
      apps: [
        { handle: 'my-app', name: 'My App', notify: ['slack'] },
        { handle: 'rival-app', role: 'competitor', notify: ['slack'] },
      ],
      channels: { slack: { type: 'slack', webhookUrl: '${SLACK_WEBHOOK_URL}' } },
      categories: [{ handle: CATEGORY, pages: 2, notify: ['slack'] }],
    }),
  );
  env = {
    REVIEWWATCH_CONFIG: config,
    CATALOG_API_BASE_URL: sim.url,
    CATALOG_API_KEY: KEY,
    DATABASE_PATH: join(dir.dir, 'reviewwatch.db'),
    REDIS_URL,
    REVIEWWATCH_QUEUE_PREFIX: prefix,
    SLACK_WEBHOOK_URL: slack.url,
  };
}, RUN_MS);

afterAll(async () => {
  await removePrefixedKeys(redis, prefix);
  await redis.quit();
  await sim.close();
  await slack.close();
  dir.cleanup();
});

/** The market six hours on (plus `events` from then), then one `market --refresh`. */
async function refresh(events: MarketEvent[] = [], args: string[] = []): Promise<CliResult> {
  const tick = sim.controls.advanceMarket(1);
  if (events.length > 0) sim.controls.addMarketEvents(events.map((e) => ({ ...e, at: tick })));
  const run = await runCli(['market', '--refresh', ...args], env, RUN_MS);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  return run;
}

/** The Slack messages a run delivered: it waits for its deliveries, so they are all in when it exits. */
function messagesSince(count: number): string[] {
  return slack
    .accepted()
    .slice(count)
    .map((c) => JSON.stringify(c.body));
}

describe('market --refresh', () => {
  it('is quiet on the baseline and on a wobble, then alerts a sustained fall once, saying why', {
    timeout: 12 * RUN_MS,
  }, async () => {
    const baseline = await refresh();
    expect(baseline.stdout).toMatch(/snapshot store-design: ok \(2 requests\)/);
    expect(baseline.stdout).toMatch(/listing rival-app: ok/);
    expect(baseline.stdout).toMatch(/its first: the baseline/);
    // Five snapshots of wobble: the app's level and band, and nothing to say.
    for (let i = 0; i < 5; i++) {
      const quiet = await refresh();
      expect(quiet.stdout).toMatch(/My App \(own\): #\d+/);
      expect(quiet.stdout).not.toMatch(/Delivering/);
    }
    expect(slack.accepted()).toHaveLength(0);

    const first = await refresh([{ kind: 'rank', at: 0, handle: 'my-app', places: 8 } as MarketEvent]);
    expect(first.stdout).toMatch(/My App \(own\): #1[2-4] ▼\d+, was #[4-6]/);
    expect(slack.accepted(), 'the fall has not persisted yet').toHaveLength(0);
    const second = await refresh();
    expect(second.stdout).toMatch(/Delivering 1 notification/);
    expect(second.stdout).toMatch(/slack: 1 delivered/);
    const [fell, ...more] = messagesSince(0);
    expect(more).toEqual([]);
    expect(fell).toMatch(/fell from #5 to #1[2-4]/);
    expect(fell).toContain('Passed by');
    expect(second.stdout).toMatch(/WHAT MOVED[\s\S]*fell from #5 to #1[2-4]/);
    const after = await refresh();
    expect(after.stdout).not.toMatch(/Delivering/);
    expect(slack.accepted()).toHaveLength(1);
  });

  it('says a reshuffle in one message, however many apps moved', { timeout: 4 * RUN_MS }, async () => {
    const before = slack.accepted().length;
    const store = openStore(env.DATABASE_PATH as string);
    const latest = latestSnapshots(store.db, [CATEGORY]).get(CATEGORY);
    store.close();
    const movers = (latest?.apps ?? [])
      .filter((a) => a.rank !== null && a.handle !== 'my-app' && a.handle !== 'rival-app')
      .map((a) => a.handle)
      .slice(0, 40);
    expect(movers.length).toBeGreaterThan(20);
    await refresh(movers.map((handle, i) => ({ kind: 'rank', at: 0, handle, places: i % 2 === 0 ? 6 : -6 })));
    await refresh();
    const texts = messagesSince(before);
    expect(texts.filter((t) => t.includes('reshuffled'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('fell from') || t.includes('rose from'))).toEqual([]);
  });

  it("says a competitor's price cut and an entrant once each", { timeout: 4 * RUN_MS }, async () => {
    const before = slack.accepted().length;
    const run = await refresh([
      { kind: 'price', at: 0, handle: 'rival-app', plan: 'Pro', price: '$25/month' },
      {
        kind: 'enter',
        at: 0,
        handle: 'fresh-kid',
        category: CATEGORY,
        fromRank: 8,
        toRank: 8,
        overTicks: 0,
        title: 'Fresh Kid',
      },
    ]);
    expect(run.stdout).toMatch(/WHAT CHANGED[\s\S]*\$50\/month → \$25\/month/);
    expect(run.stdout).toMatch(/WHO ENTERED\n {2}store-design: Fresh Kid came in at #\d+/);
    const again = await refresh();
    expect(again.stdout).toMatch(/WHO ENTERED\n {2}nobody/);
    const texts = messagesSince(before);
    expect(texts.filter((t) => t.includes('$25/month'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('Fresh Kid'))).toHaveLength(1);
  });

  it('retries a failing snapshot, then records the gap and exits 1', { timeout: 2 * RUN_MS }, async () => {
    sim.controls.failNext(3, { status: 503, pathIncludes: `/category/${CATEGORY}?page=1` });
    sim.controls.advanceMarket(1);
    const run = await runCli(['market', '--refresh', '--category', CATEGORY], env, RUN_MS);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/snapshot store-design: failed: .*503.* \(1 request\)/);
    expect(run.stdout).toMatch(/store-design: no new snapshot: .*503/);
    // A transient failure is tried again within the run: the next answer counts.
    sim.controls.failNext(1, { status: 503, pathIncludes: `/category/${CATEGORY}?page=1` });
    const mended = await refresh([], ['--category', CATEGORY]);
    expect(mended.stdout).toMatch(/snapshot store-design: ok/);
  });

  it('reports the reads it could not finish within --timeout and exits 1', {
    timeout: 2 * RUN_MS,
  }, async () => {
    sim.controls.setLatency(5_000);
    try {
      const run = await runCli(['market', '--refresh', '--timeout', '1'], env, RUN_MS);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toMatch(/snapshot store-design: not read: did not finish in time/);
      expect(run.stdout).toMatch(/listing my-app: not read: /);
      // It stops waiting at the deadline rather than after the slow answers: every read it reports is
      // one it did not finish, none an answer that came after the deadline.
      const reads = run.stdout.split('\n').filter((line) => /^\[\d+\] /.test(line));
      expect(reads.length).toBeGreaterThan(1);
      for (const line of reads) expect(line).toMatch(/: not read: /);
    } finally {
      sim.controls.setLatency(0);
    }
  });

  it('refuses a category it does not track, naming the tracked ones (exit 2)', async () => {
    const run = await runCli(['market', '--refresh', '--category', 'nope'], env, RUN_MS);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/"nope" is not a tracked category .*\(tracked: store-design\)/);
  });
});
