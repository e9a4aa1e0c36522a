/**
 * The triage inbox at scale: a store of N reviews over M apps (1,000,000 over 10,000 by default), then
 * the list, filtered lists, full-text searches, the page's default Open view with the counts of its tabs
 * (one app in a hundred a competitor), a review's previous and next, and a CSV export of 100,000 rows,
 * each timed over repeated runs (p50, p95) through the same functions the pages call, with the process's
 * memory during the export. One review in a hundred is marked removed from the marketplace.
 *
 *   npx tsx bench/inbox.ts [--reviews 1000000] [--apps 10000] [--runs 40] [--db path] [--only text]
 *     [--no-export]
 *
 * The store is written once and reused while --db names an existing file (a store written before a
 * migration is migrated when opened, and the time that took is printed). Rows are written with the
 * full-text insert trigger off and the index filled at the end as drizzle/0010_fts_by_date.sql fills it,
 * which gives the same index as writing with it on, faster; everything else is as the polls write it.
 * --only runs the queries whose name contains the text; --no-export skips the CSV export.
 *
 * Reviews are written without topics, as a store from before them; the bench then computes them as the
 * worker's start does (store/topic-backfill.ts), once per store, so the inbox reads them as it would in
 * production.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { parseConfig } from '../src/config/index.js';
import { Rng } from '../src/simulator/random.js';
import { openStore, type Store } from '../src/store/db.js';
import { type InboxFilter, listInbox, neighboursInList } from '../src/store/inbox.js';
import { backfillTopics, configTaxonomy, reviewsWithoutTopics } from '../src/store/topic-backfill.js';
import { writeInboxCsv } from '../src/web/csv.js';
import {
  type InboxQuery,
  inboxFilterOf,
  inboxPageOf,
  PAGE_VIEW,
  type ViewContext,
  viewCounts,
} from '../src/web/filters.js';
import { presenterOf } from '../src/web/present.js';
import { type SyntheticReview, writeApps, writeReviews } from './synthetic-store.js';

const { values } = parseArgs({
  options: {
    reviews: { type: 'string', default: '1000000' },
    apps: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '40' },
    db: { type: 'string', default: 'bench/results/inbox.db' },
    only: { type: 'string' },
    'no-export': { type: 'boolean', default: false },
  },
});
const REVIEWS = Number(values.reviews);
const APPS = Number(values.apps);
const RUNS = Number(values.runs);
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 23, 12);

/** A deterministic random number generator, so two runs build the same data. */
function random(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}

/**
 * Review words with a Zipf-like spread: a few words ("app", "great") in most reviews, most words in few, as
 * in real reviews. `refund` is in a fifth of them, `chargeback` in a third, `w4000` in about 500.
 */
const COMMON = ['app', 'great', 'works', 'support', 'easy', 'use', 'store', 'love', 'time', 'help'];
const COMPLAINTS = ['refund', 'crash', 'slow', 'billing', 'charged', 'broken', 'bug', 'sync', 'checkout'];
const RARE = ['chargeback', 'gdpr', 'webhook', 'liquid', 'metafield', 'variant', 'pos', 'wholesale'];

function sentence(rnd: () => number, rating: number): string {
  const words: string[] = [];
  const length = 8 + Math.floor(rnd() * 30);
  for (let i = 0; i < length; i++) {
    const r = rnd();
    if (r < 0.55) words.push(COMMON[Math.floor(rnd() * rnd() * COMMON.length)] as string);
    else if (r < 0.75 && rating <= 3)
      words.push(COMPLAINTS[Math.floor(rnd() * rnd() * COMPLAINTS.length)] as string);
    else if (r < 0.77) words.push(RARE[Math.floor(rnd() * RARE.length)] as string);
    else words.push(`w${Math.floor(rnd() * rnd() * 5000)}`);
  }
  return words.join(' ');
}

function build(store: Store): void {
  const client = store.db.$client;
  const rnd = random(42);
  const started = performance.now();
  const trigger = client
    .prepare<[], { sql: string }>("select sql from sqlite_master where name = 'reviews_fts_insert'")
    .get()?.sql;
  if (!trigger) throw new Error('no full-text insert trigger in the store');
  client.exec('drop trigger reviews_fts_insert');
  const insertAlert = client.prepare(
    `insert into alerts (app_handle, kind, dedupe_key, priority, score, review_row_id, payload, created_at)
     values (?, 'review', ?, ?, 50, ?, '{}', ?)`,
  );
  const insertTriage = client.prepare(
    `insert into review_triage (review_row_id, status, assignee, updated_at, updated_by)
     values (?, ?, ?, ?, 'bench')`,
  );
  client.prepare('insert into users (name, password_hash, created_at) values (?, ?, 0)').run('ana', 'x');
  writeApps(store, APPS, NOW);
  const review = (i: number): SyntheticReview => {
    // A few apps get most reviews, as on a marketplace.
    const app = Math.floor(rnd() * rnd() * APPS);
    const r = rnd();
    const rating = r < 0.62 ? 5 : r < 0.74 ? 4 : r < 0.81 ? 3 : r < 0.87 ? 2 : 1;
    // Newer reviews are stored later; a baseline's history is the exception, a tenth of the rows.
    const age = rnd() < 0.1 ? rnd() * 730 * DAY : ((REVIEWS - i) / REVIEWS) * 730 * DAY * (0.9 + rnd() * 0.2);
    return { app, rating, content: sentence(rnd, rating), at: Math.round(NOW - age) };
  };
  const stored = (id: number, { app, rating, at }: SyntheticReview) => {
    if (rating > 3) return;
    insertAlert.run(`app-${app}`, `review-${id}`, rating === 1 ? 'high' : 'medium', id, at);
    const t = rnd();
    if (t < 0.3)
      insertTriage.run(
        id,
        t < 0.1 ? 'acknowledged' : t < 0.25 ? 'resolved' : 'ignored',
        t < 0.05 ? 'ana' : null,
        at,
      );
  };
  writeReviews(store, REVIEWS, review, { timeUsingApp: '1 year using the app', appUrl: true, stored });
  process.stderr.write('\n  filling the full-text index…\n');
  // As drizzle/0010_fts_by_date.sql does for the reviews stored before it.
  client.exec(`insert into reviews_fts(rowid, content, reviewer)
    select (max(-4194304, min(4194303, cast(coalesce(created_at, first_seen_at) / 3600000 as integer))) << 40) + id,
      content, reviewer
    from reviews order by 1`);
  client.exec(`insert into reviews_fts(reviews_fts) values ('optimize')`);
  client.exec(trigger);
  process.stderr.write(`  built in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

interface Result {
  name: string;
  rows: number;
  p50: number;
  p95: number;
}

function measure(name: string, run: () => number): Result {
  run();
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    rows = run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { name, rows, p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

/** The export's config; its taxonomy (no `topics:`) is the one the bench stores topics under. */
const EXPORT_CONFIG = parseConfig({ catalog: { simulator: true }, apps: [{ handle: 'app-0' }] }, {});

/** Computes the topics of reviews without current ones, as the worker's start does. */
async function storeTopics(store: Store): Promise<void> {
  const taxonomy = configTaxonomy(EXPORT_CONFIG);
  if (reviewsWithoutTopics(store.db, taxonomy.version) === 0) return;
  const started = performance.now();
  const done = await backfillTopics(store, taxonomy, { batch: 2000 });
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  process.stderr.write(`  topics stored for ${done.done.toLocaleString('en')} reviews in ${seconds} s\n`);
}

async function exportRows(
  store: Store,
  filter: InboxFilter,
): Promise<{ rows: number; ms: number; cpuMs: number; peakMb: number; baseMb: number }> {
  const presenter = presenterOf(EXPORT_CONFIG);
  global.gc?.();
  const baseMb = process.memoryUsage().rss / 1e6;
  let peak = baseMb;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss / 1e6);
  }, 20);
  let bytes = 0;
  const sink = new Writable({
    highWaterMark: 64 * 1024,
    write(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      // A client reading at about 50 MB/s: the export must wait for it, not buffer ahead.
      setTimeout(done, Math.ceil(chunk.length / 50_000));
    },
  });
  const t = performance.now();
  const cpu = process.cpuUsage();
  const rows = await writeInboxCsv(sink, store.db, filter, { presenter, publicUrl: undefined });
  const used = process.cpuUsage(cpu);
  const ms = performance.now() - t;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss / 1e6);
  process.stderr.write(`  export: ${(bytes / 1e6).toFixed(0)} MB of CSV\n`);
  return { rows, ms, cpuMs: (used.user + used.system) / 1000, peakMb: peak, baseMb };
}

async function main(): Promise<void> {
  mkdirSync('bench/results', { recursive: true });
  const fresh = !existsSync(values.db);
  const opening = performance.now();
  const store = openStore(values.db);
  if (!fresh)
    process.stderr.write(
      `  opened (and migrated) in ${((performance.now() - opening) / 1000).toFixed(1)} s\n`,
    );
  try {
    if (fresh) build(store);
    await storeTopics(store);
    const count = (store.db.$client.prepare('select count(*) as n from reviews').get() as { n: number }).n;
    process.stderr.write(`  ${count.toLocaleString('en')} reviews over ${APPS.toLocaleString('en')} apps\n`);
    // One review in a hundred marked removed, as reconciliations mark them (a guess at the marketplace's
    // takedowns and customers' deletions); a store written before removals were listed gets them here.
    const removed = store.db.$client
      .prepare<[], { n: number }>('select count(*) as n from reviews where removed_at is not null')
      .get()?.n;
    if (removed === 0)
      store.db.$client.prepare('update reviews set removed_at = ? where id % 100 = 0').run(NOW - DAY);
    const month = new Date(NOW - 30 * DAY);
    const low = [1, 2, 3];
    const list = (filter: InboxFilter, cursor?: string) =>
      listInbox(store.db, filter, cursor ? { cursor } : {}).rows.length;
    let deep: string | undefined;
    for (let i = 0; i < 50; i++)
      deep = listInbox(store.db, { stars: low }, deep ? { cursor: deep } : {}).next;
    const own = Array.from({ length: 100 }, (_, i) => `app-${i * 100}`);
    let deepSearch: string | undefined;
    for (let i = 0; i < 50; i++)
      deepSearch = listInbox(store.db, { text: 'chargeback' }, deepSearch ? { cursor: deepSearch } : {}).next;
    // The page's Open view: the config watches every app, one in a hundred as a competitor.
    const config = parseConfig(
      {
        catalog: { simulator: true },
        apps: Array.from({ length: APPS }, (_, i) => ({
          handle: `app-${i}`,
          ...(i % 100 === 7 ? { role: 'competitor' } : {}),
        })),
      },
      {},
    );
    const viewer: ViewContext = { me: 'ana', defaultView: PAGE_VIEW };
    const at = new Date(NOW);
    const openPage = (query: InboxQuery = {}) => inboxPageOf(store.db, query, config, at, viewer).rows.length;
    const openCounts = (query: InboxQuery = {}) => viewCounts(store.db, query, config, at, viewer).total;
    const openFilter = inboxFilterOf({}, config, at, viewer);
    const aReview = listInbox(store.db, openFilter, { limit: 20 }).rows.at(-1)?.id ?? 1;
    const neighbours = (sort: 'newest' | 'severity') => {
      const around = neighboursInList(store.db, openFilter, aReview, { sort });
      return (around.previous ? 1 : 0) + (around.next ? 1 : 0);
    };
    /**
     * Measures with every open review of the last 30 days resolved (a team that kept up), then puts them
     * back: the Open view's walk then finds nothing, the longest it can take over the period.
     */
    const emptied = (name: string, run: () => number): Result => {
      const client = store.db.$client;
      client.exec('savepoint emptied');
      try {
        client
          .prepare(
            `insert into review_triage (review_row_id, status, assignee, updated_at, updated_by)
             select r.id, 'resolved', null, ?, 'bench' from reviews r
             where coalesce(r.created_at, r.first_seen_at) >= ? and r.rating <= 3
             on conflict (review_row_id) do update set status = 'resolved'`,
          )
          .run(NOW, month.getTime());
        return measure(name, run);
      } finally {
        client.exec('rollback to emptied; release emptied');
      }
    };
    const queries: Array<[string, () => number]> = [
      ['open view (the page by default), page 1', () => openPage()],
      ['open view: counts of the 7 tabs and the total', () => openCounts()],
      ['open view: page 1 and its counts, as the page', () => openPage() + openCounts()],
      ['open view, sorted by severity, page 1', () => openPage({ sort: 'severity' })],
      ['open view, sorted by first seen, page 1', () => openPage({ sort: 'seen' })],
      ['open view, all time: counts (capped at 10,000)', () => openCounts({ period: 'all' })],
      ['review page: previous and next in the open view', () => neighbours('newest')],
      ['review page: previous and next, by severity', () => neighbours('severity')],
      ['inbox: low-rated, last 30 days, page 1', () => list({ stars: low, from: month })],
      ['inbox: low-rated, all time, page 51 (by cursor)', () => list({ stars: low }, deep)],
      ['inbox: low-rated, 30 days, removed hidden', () => list({ stars: low, from: month, removed: 'hide' })],
      ['inbox: low-rated, 30 days, removed only', () => list({ stars: low, from: month, removed: 'only' })],
      ['inbox: low-rated, all time, removed only', () => list({ stars: low, removed: 'only' })],
      ['filtered: one app, status new', () => list({ apps: ['app-3'], statuses: ['new'], stars: low })],
      ['filtered: 100 apps (a role), 30 days', () => list({ apps: own, stars: low, from: month })],
      ['filtered: resolved, 30 days', () => list({ statuses: ['resolved'], from: month })],
      ['filtered: assignee, all time', () => list({ assignee: 'ana' })],
      ['search: rare word (a few hundred reviews), all time', () => list({ text: 'w4000' })],
      [
        'search: word in a fifth of reviews, low-rated, 30 days',
        () => list({ text: 'refund', stars: low, from: month }),
      ],
      ['search: word in nearly every review, 30 days', () => list({ text: 'app', from: month })],
      ['search: word in a third of reviews, all time', () => list({ text: 'chargeback' })],
      [
        'search: word in a third, all time, page 51 (by cursor)',
        () => list({ text: 'chargeback' }, deepSearch),
      ],
      ['search: two words, all time', () => list({ text: 'refund checkout' })],
      ['search: word in a third, one app', () => list({ text: 'chargeback', apps: ['app-3'] })],
      [
        'search: word in a third, all time, removed only',
        () => list({ text: 'chargeback', removed: 'only' }),
      ],
    ];
    const wanted = (name: string) => values.only === undefined || name.includes(values.only);
    const results = queries.filter(([name]) => wanted(name)).map(([name, run]) => measure(name, run));
    for (const [name, run] of [
      ['open view emptied (30 days resolved): page 1', () => openPage()],
      ['open view emptied (30 days resolved): page 1 and counts', () => openPage() + openCounts()],
    ] as Array<[string, () => number]>) {
      if (wanted(name)) results.push(emptied(name, run));
    }
    const exported = values['no-export']
      ? undefined
      : await exportRows(store, { stars: low, from: new Date(NOW - 380 * DAY) });
    const lines = [
      `| query | rows | p50 ms | p95 ms |`,
      `| --- | ---: | ---: | ---: |`,
      ...results.map((r) => `| ${r.name} | ${r.rows} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} |`),
      ...(exported
        ? [
            '',
            `CSV export: ${exported.rows.toLocaleString('en')} rows in ${(exported.ms / 1000).toFixed(1)} s (${(exported.cpuMs / 1000).toFixed(1)} s of CPU), RSS ${exported.baseMb.toFixed(0)} MB before, ${exported.peakMb.toFixed(0)} MB at most during it.`,
          ]
        : []),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    writeFileSync(
      `bench/results/inbox-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
      JSON.stringify({ reviews: count, apps: APPS, runs: RUNS, results, exported }, null, 2),
    );
  } finally {
    store.close();
  }
}

await main();
