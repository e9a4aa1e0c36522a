/**
 * What the topic-spike check adds to a poll, end to end on a real SQLite store: an app with 29 days of
 * low reviews at a given daily rate, then a poll that stored one more low review runs the check
 * (`topicSpikeAlerts`: the store's reads, topics of every review read, the rule). Reported: milliseconds
 * per check, median and p95, per rate. `npx tsx bench/topic-spike-alert.ts [--rates 5,50,200]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { topicSpikeAlerts } from '../src/alerts/topic-spike.js';
import { DEFAULT_SCORING_RULES } from '../src/scoring/index.js';
import { Rng } from '../src/simulator/random.js';
import { openStore } from '../src/store/db.js';
import { apps as appsTable } from '../src/store/schema.js';
import { storeReview } from '../test/helpers/reviews.js';
import { round, writeResult } from './support.js';
import { makeApps, noiseOf } from './topics-world.js';

const { values: args } = parseArgs({
  options: { rates: { type: 'string', default: '5,50,200' }, runs: { type: 'string', default: '30' } },
});
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 1, 1);

function measure(rate: number, runs: number) {
  const dir = mkdtempSync(join(tmpdir(), 'spike-bench-'));
  const store = openStore(join(dir, 'bench.db'));
  try {
    const [app] = makeApps(new Rng(7), 1, rate, rate);
    if (app === undefined) throw new Error('no app');
    store.db.insert(appsTable).values({ handle: app.handle }).run();
    const reviews = noiseOf(new Rng(11), app, NOW - 29 * DAY, 29);
    let last = 0;
    for (const r of reviews) {
      last = storeReview(store.db, {
        appHandle: app.handle,
        identity: r.id,
        reviewer: r.reviewer,
        location: '',
        rating: 1,
        content: r.content,
        createdDate: r.at.toISOString(),
        createdAt: r.at,
        timeUsingApp: '',
        appName: app.handle,
        appUrl: '',
        fromBaseline: false,
        firstSeenAt: r.at,
      });
    }
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      topicSpikeAlerts(store.db, {
        handle: app.handle,
        app: () => ({ handle: app.handle, name: app.handle, url: '' }),
        at: new Date(NOW),
        maxRating: 2,
        taxonomy: DEFAULT_SCORING_RULES.topics,
        fresh: new Set([last]),
        competitors: [],
        names: new Map(),
      });
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => round(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0, 2);
    return { lowPerDay: rate, reviewsRead: reviews.length, medianMs: at(0.5), p95Ms: at(0.95) };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows = (args.rates ?? '').split(',').map((r) => measure(Number(r), Number(args.runs)));
console.log(JSON.stringify(rows, null, 2));
console.log(`written to ${writeResult('topic-spike-alert', Date.now(), JSON.stringify(rows, null, 2))}`);
