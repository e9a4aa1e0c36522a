/**
 * Stored topics at scale (bench/README.md, Topics): a store of 1,000,000 reviews written without topics, as
 * a store from before topics is; the start's backfill of them all, with its progress; then the per-topic
 * queries a page or a digest makes, each 40 times: the inbox's topic filter (built-in topics, a rare custom
 * one and one no review has), /topics over 20 apps, one app's topics with trends, one app's topics per week. /topics and the app page read the per-day counts
 * (drizzle/0020_day_counts.sql); a store built before them gets them when this opens it.
 *
 *   npx tsx bench/topics-store.ts [--reviews 1000000] [--apps 10000] [--runs 40] [--db bench/results/topics.db]
 *
 * The store is built once and reused while `--db` names it; `--rebackfill` computes every review again
 * (as after a change of the topic config).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseConfig } from '../src/config/index.js';
import { Rng } from '../src/simulator/random.js';
import { openStore, type Store } from '../src/store/db.js';
import { listInbox } from '../src/store/inbox.js';
import { backfillTopics, configTaxonomy } from '../src/store/topic-backfill.js';
import { appTopics, appTopicWeeks } from '../src/store/topic-summary.js';
import { topicsOverview } from '../src/store/topics-overview.js';
import { writeApps, writeReviews } from './synthetic-store.js';

const { values } = parseArgs({
  options: {
    reviews: { type: 'string', default: '1000000' },
    apps: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '40' },
    db: { type: 'string', default: 'bench/results/topics.db' },
    rebackfill: { type: 'boolean', default: false },
  },
});
const REVIEWS = Number(values.reviews);
const APPS = Number(values.apps);
const RUNS = Number(values.runs);
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 23, 12);

/** Merchant phrases, a few per review: most say nothing a topic names, some several topics at once. */
const PLAIN = [
  'Great app, does what it says.',
  'Love it.',
  'Works well for our store.',
  'Decent app overall.',
  'Five stars from us.',
  'It is fine I guess.',
  'Our customers like the new look.',
  'Would recommend to other merchants.',
];
const TOPICAL = [
  'They charged me twice this month.',
  'I want a refund for the unused time.',
  'The app crashes every time I open orders.',
  'Keeps throwing an error on checkout.',
  'It slows down my store a lot.',
  'Support never replied to my emails.',
  'Their support team answered in ten minutes.',
  'Setup took hours and the install failed.',
  'The Klaviyo integration stopped syncing.',
  'Wish it had bulk editing.',
  'It deleted all my products!',
  'Uninstalled after a day.',
  'The interface is confusing.',
];

/** What a custom topic of the bench's config names: in about one review in 2,000, a rare topic. */
const RARE = 'We moved our newsletters over from Mailchimp.';

function content(rng: Rng, rating: number): string {
  const parts: string[] = rng.next() < 0.0005 ? [RARE] : [];
  const n = 1 + Math.floor(rng.next() * 3);
  for (let i = 0; i < n; i++) {
    const topical = rng.next() < (rating <= 3 ? 0.6 : 0.15);
    const list = topical ? TOPICAL : PLAIN;
    parts.push(list[Math.floor(rng.next() * list.length)] as string);
  }
  return parts.join(' ');
}

function build(store: Store): void {
  const client = store.db.$client;
  const rng = new Rng(7);
  const started = performance.now();
  // The full-text index is not what this bench reads: its trigger is left out while writing.
  const fts = client
    .prepare<[], { sql: string }>("select sql from sqlite_master where name = 'reviews_fts_insert'")
    .get()?.sql;
  client.exec('drop trigger if exists reviews_fts_insert');
  writeApps(store, APPS, NOW);
  // topics '[]' and no version: a store from before topics.
  writeReviews(store, REVIEWS, (i) => {
    const app = Math.floor(rng.next() * rng.next() * APPS);
    const r = rng.next();
    const rating = r < 0.62 ? 5 : r < 0.74 ? 4 : r < 0.81 ? 3 : r < 0.87 ? 2 : 1;
    const at = Math.round(NOW - ((REVIEWS - i) / REVIEWS) * 730 * DAY * (0.9 + rng.next() * 0.2));
    return { app, rating, content: content(rng, rating), at };
  });
  if (fts) client.exec(fts);
  process.stderr.write(`\n  built in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

function measure(name: string, run: () => number): string {
  run();
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    rows = run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return `| ${name} | ${rows} | ${percentile(times, 0.5).toFixed(1)} | ${percentile(times, 0.95).toFixed(1)} |`;
}

async function backfill(store: Store, config: ReturnType<typeof parseConfig>): Promise<string> {
  const taxonomy = configTaxonomy(config);
  if (values.rebackfill) store.db.$client.exec('update reviews set topics_version = null');
  const started = performance.now();
  const cpu = process.cpuUsage();
  let last = started;
  const done = await backfillTopics(store, taxonomy, {
    onProgress: (p) => {
      if (performance.now() - last < 5_000) return;
      last = performance.now();
      const seconds = ((last - started) / 1000).toFixed(0);
      process.stderr.write(`  topics: ${p.done} of ${p.total} stored reviews computed (${seconds} s)\n`);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  return `backfill: ${done.done.toLocaleString('en')} of ${done.total.toLocaleString('en')} reviews in ${seconds.toFixed(0)} s (${Math.round(done.done / seconds).toLocaleString('en')} a second; ${cpuSeconds.toFixed(0)} s of CPU, ${Math.round(done.done / cpuSeconds).toLocaleString('en')} a CPU second)`;
}

async function main(): Promise<void> {
  mkdirSync('bench/results', { recursive: true });
  const fresh = !existsSync(values.db);
  const store = openStore(values.db);
  try {
    if (fresh) build(store);
    // 20 apps on /topics: the biggest few and some of the middle, one in four a competitor.
    const watched = Array.from({ length: 20 }, (_, i) => `app-${i * 50}`);
    const config = parseConfig(
      {
        catalog: { simulator: true },
        apps: watched.map((handle, i) => ({ handle, ...(i % 4 === 3 ? { role: 'competitor' } : {}) })),
        // A custom topic in few reviews, and one in none: the inbox's filter on each walks further.
        topics: { mailchimp: { words: ['mailchimp'] }, 'dark-mode': { words: ['dark mode'] } },
      },
      {},
    );
    const backfilled = await backfill(store, config);
    const client = store.db.$client;
    const reviews = (client.prepare('select count(*) as n from reviews').get() as { n: number }).n;
    const topicRows = (
      client.prepare('select coalesce(sum(reviews), 0) as n from topic_day_counts').get() as { n: number }
    ).n;
    const count = (table: string) =>
      (client.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    const at = new Date(NOW);
    const week = { from: new Date(NOW - 7 * DAY), to: at };
    const month = new Date(NOW - 30 * DAY);
    const low = [1, 2, 3];
    const list = (filter: Parameters<typeof listInbox>[1]) => listInbox(store.db, filter, {}).rows.length;
    const lines = [
      `${reviews.toLocaleString('en')} reviews over ${APPS.toLocaleString('en')} apps, ${topicRows.toLocaleString('en')} topics on them; ${RUNS} runs each, ${new Date().toISOString()}`,
      `day counts (drizzle/0020_day_counts.sql): ${count('review_day_counts').toLocaleString('en')} review_day_counts rows, ${count('topic_day_counts').toLocaleString('en')} topic_day_counts rows`,
      backfilled,
      '',
      '| query | rows | p50 ms | p95 ms |',
      '| --- | ---: | ---: | ---: |',
      measure('inbox: topic=billing, low-rated, last 30 days, page 1', () =>
        list({ topic: 'billing', stars: low, from: month }),
      ),
      measure('inbox: topic=data-loss, all stars, all time, page 1', () => list({ topic: 'data-loss' })),
      measure('inbox: topic=support, one app (app-3), all time, page 1', () =>
        list({ topic: 'support', apps: ['app-3'] }),
      ),
      measure('inbox: topic=usability, 5 stars, last 30 days, page 1', () =>
        list({ topic: 'usability', stars: [5], from: month }),
      ),
      measure('inbox: topic=mailchimp (custom, about 500 reviews), all time, page 1', () =>
        list({ topic: 'mailchimp' }),
      ),
      measure('inbox: topic=dark-mode (custom, no review), all time', () => list({ topic: 'dark-mode' })),
      measure(
        '/topics: 20 apps, 7 days, trends and comparison',
        () => topicsOverview(store.db, config, week).apps.length,
      ),
      measure(
        '/topics: 20 apps, 90 days',
        () => topicsOverview(store.db, config, { from: new Date(NOW - 90 * DAY), to: at }).apps.length,
      ),
      measure(
        "app page: the biggest app's topics, 7 days, with trends",
        () => appTopics(store.db, 'app-0', week).topics.length,
      ),
      measure(
        "app page: the biggest app's topics per week, 12 weeks",
        () => appTopicWeeks(store.db, 'app-0', new Date(NOW - 84 * DAY), at).length,
      ),
      measure(
        "app page: a middle app's topics per week, 12 weeks",
        () => appTopicWeeks(store.db, 'app-500', new Date(NOW - 84 * DAY), at).length,
      ),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    store.close();
  }
}

await main();
