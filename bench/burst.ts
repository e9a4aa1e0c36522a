/**
 * Bursts past the page cap: n reviews arrive between two polls of one app (an outage, a launch, a worker
 * stopped over a weekend) while poll.maxPages is 10. The polls that follow read the burst to its end
 * (docs/architecture.md, "Bursts past the page cap"). For each n this reports:
 *
 * - reviews lost (listed, never stored) and low reviews not alerted exactly once: both must be 0;
 * - requests in all, against ⌈n/10⌉ + 2 (the burst's pages, the page that meets what was stored before,
 *   and page 1 of the poll that follows the capped one), and the polls it took;
 * - how long until the gap closed: `start` polls an app again GAP_FOLLOW_UP_MS after a poll that left a
 *   gap open, so the read-on polls' own time plus that wait between them; and how many alert messages
 *   the burst raised (grouped above alerts.groupAbove).
 *
 * The baseline, measured in the same run, is a quiet poll of the same app: what each of those polls
 * costs beside its gap pages.
 *
 * Real parts: the simulator over HTTP, a SQLite file, the poll and its alerts as `start` runs them (the
 * outbox); no Redis is needed as no queue is involved. Run: npx tsx bench/burst.ts [--sizes 10,100]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { eq } from 'drizzle-orm';
import { alertPolicyOf } from '../src/alerts/policy.js';
import { CatalogClient } from '../src/catalog/index.js';
import { parseConfig } from '../src/config/index.js';
import { silentLogger } from '../src/log.js';
import { GAP_FOLLOW_UP_MS } from '../src/queue/poll-worker.js';
import { isLowRated } from '../src/scoring/index.js';
import { startSimulator } from '../src/simulator/index.js';
import { openStore } from '../src/store/db.js';
import { alerts, reviews } from '../src/store/schema.js';
import { pollApp } from '../src/watch/poll.js';
import { round, writeResult } from './support.js';

const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10,100,1000,5000' } } });
const SIZES = values.sizes.split(',').map(Number);
const HANDLE = 'burst-app';

const config = parseConfig({
  catalog: { simulator: true },
  poll: { maxPages: 10 },
  apps: [{ handle: HANDLE, notify: ['support'] }],
  channels: { support: { type: 'slack', webhookUrl: 'https://hooks.slack.com/services/T0/B0/bench' } },
});
const policy = alertPolicyOf(config);
const options = { maxPages: config.poll.maxPages, baselinePages: config.poll.baselinePages };

interface Row {
  burst: number;
  lost: number;
  lowReviews: number;
  lowNotAlertedOnce: number;
  requests: number;
  ideal: number;
  polls: number;
  closedAfterSeconds: number;
  messages: number;
  msPerPoll: number;
  quietMsPerPoll: number;
}

async function measure(burst: number): Promise<Row> {
  const sim = await startSimulator({ appCount: 0, handles: [] });
  const dir = mkdtempSync(join(tmpdir(), 'reviewwatch-burst-'));
  const store = openStore(join(dir, 'burst.db'));
  try {
    sim.controls.addApp(HANDLE, { reviewCount: 20 });
    const client = new CatalogClient({ baseUrl: sim.url, apiKey: 'bench' });
    const deps = { client, store, logger: silentLogger, alerts: policy };
    await pollApp(deps, HANDLE, options);

    // The baseline of this run: quiet polls of the same app, one request each.
    const quietRuns = 20;
    let started = performance.now();
    for (let i = 0; i < quietRuns; i++) await pollApp(deps, HANDLE, options);
    const quietMsPerPoll = (performance.now() - started) / quietRuns;

    for (let added = 0; added < burst; added += 1000)
      sim.controls.addReviews(HANDLE, Math.min(1000, burst - added));
    sim.controls.resetStats();
    let polls = 0;
    let messages = 0;
    started = performance.now();
    // Polls until the gap closes, then one more that finds nothing: the steady state is back.
    for (;;) {
      const outcome = await pollApp(deps, HANDLE, options);
      polls++;
      messages += outcome.messages.length;
      process.stderr.write(`\rburst of ${burst}: poll ${polls}, ${outcome.gap?.unread ?? 0} unread   `);
      if (!outcome.gap || outcome.gap.state === 'closed') break;
      if (polls > burst) throw new Error(`the gap of a ${burst}-review burst never closed`);
    }
    const msPerPoll = (performance.now() - started) / polls;
    const requests = sim.controls.stats().byEndpoint.reviews ?? 0;
    process.stderr.write('\n');

    const stored = new Set(
      store.db
        .select({ id: reviews.reviewId })
        .from(reviews)
        .where(eq(reviews.appHandle, HANDLE))
        .all()
        .map((r) => r.id),
    );
    const listed = sim.controls.reviews(HANDLE);
    const lost = listed.filter((r) => !stored.has(r.review_id)).length;
    const alertsPerReview = new Map<number, number>();
    for (const alert of store.db.select().from(alerts).where(eq(alerts.kind, 'review')).all()) {
      if (alert.reviewRowId !== null)
        alertsPerReview.set(alert.reviewRowId, (alertsPerReview.get(alert.reviewRowId) ?? 0) + 1);
    }
    const low = store.db
      .select({ id: reviews.id, rating: reviews.rating, fromBaseline: reviews.fromBaseline })
      .from(reviews)
      .where(eq(reviews.appHandle, HANDLE))
      .all()
      .filter((r) => !r.fromBaseline && isLowRated(r.rating, config.alerts.lowRating.maxRating));
    return {
      burst,
      lost,
      lowReviews: low.length,
      lowNotAlertedOnce: low.filter((r) => alertsPerReview.get(r.id) !== 1).length,
      requests,
      ideal: Math.ceil(burst / 10) + 2,
      polls,
      closedAfterSeconds: round(((polls - 1) * GAP_FOLLOW_UP_MS + polls * msPerPoll) / 1000, 1),
      messages,
      msPerPoll: round(msPerPoll, 1),
      quietMsPerPoll: round(quietMsPerPoll, 2),
    };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
    await sim.close();
  }
}

const rows: Row[] = [];
for (const size of SIZES) rows.push(await measure(size));
const header =
  '| burst | lost | low reviews | low not alerted once | requests | ⌈n/10⌉+2 | polls | gap closed after | messages | ms a poll | quiet poll (baseline) |';
const lines = [
  header,
  `|${header
    .split('|')
    .slice(1, -1)
    .map(() => '---')
    .join('|')}|`,
  ...rows.map(
    (r) =>
      `| ${r.burst} | ${r.lost} | ${r.lowReviews} | ${r.lowNotAlertedOnce} | ${r.requests} | ${r.ideal} | ${r.polls} | ${r.closedAfterSeconds} s | ${r.messages} | ${r.msPerPoll} | ${r.quietMsPerPoll} |`,
  ),
];
process.stdout.write(`${lines.join('\n')}\n`);
process.stderr.write(`results: ${writeResult('burst', Date.now(), JSON.stringify(rows, null, 2))}\n`);
