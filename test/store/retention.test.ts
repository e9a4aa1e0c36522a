import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, describe, expect, it } from 'vitest';
import { alertPolicyOf } from '../../src/alerts/policy.js';
import { raiseAlerts } from '../../src/alerts/raise.js';
import { type Config, parseConfig } from '../../src/config/index.js';
import { collectDigest, digestInputOf, previousWeek } from '../../src/digest/index.js';
import { openStore, type Store } from '../../src/store/db.js';
import { Downsampler, snapshotTiers } from '../../src/store/downsample.js';
import { insertAlert } from '../../src/store/outbox.js';
import {
  type PruneCounts,
  type PruneProgress,
  pruneDatabase,
  retentionPolicyOf,
} from '../../src/store/retention.js';
import { tempDir } from '../helpers/index.js';
import { storeReview } from '../helpers/reviews.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// Monday 2026-11-23 10:00 in Berlin.
const NOW = new Date('2026-11-23T09:00:00Z');

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
});

function tempPath(name = 'reviewwatch.db'): string {
  const temp = tempDir();
  cleanups.push(temp.cleanup);
  return join(temp.dir, name);
}

function open(path: string): Store {
  const store = openStore(path);
  cleanups.push(() => store.close());
  return store;
}

function config(retention: Record<string, unknown> = {}): Config {
  return parseConfig(
    {
      apps: [
        { handle: 'my-app', notify: ['team'] },
        { handle: 'rival', role: 'competitor' },
      ],
      channels: { team: { type: 'console' } },
      digest: { schedule: '0 9 * * 1', timezone: 'Europe/Berlin', channels: ['team'] },
      retention,
    },
    {},
  );
}

const BERLIN_CLOCK = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Berlin',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** Berlin wall-clock hour and minute. */
function berlin(t: number): { hour: number; minute: number } {
  const [hour, minute] = BERLIN_CLOCK.format(t).split(':').map(Number);
  return { hour: hour ?? 0, minute: minute ?? 0 };
}

/**
 * A poll every `everyMs` from `from` to `to`: a poll run and a snapshot each. The rating wanders, and the
 * summary has no average in the last ten minutes of every Berlin day, so the last snapshot before each
 * week boundary has none: the digest skips those, and so must what the prune keeps.
 */
function simulatePolls(store: Store, handle: string, from: number, to: number, everyMs = 5 * MINUTE): void {
  const client = store.db.$client;
  client.prepare('insert into apps (handle) values (?) on conflict do nothing').run(handle);
  const run = client.prepare<[string, number, number]>(
    `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
     values (?, ?, ?, 'ok', 1, 1, 0, 0)`,
  );
  const snapshot = client.prepare<[string, number, number | null, number, number | bigint]>(
    `insert into rating_snapshots (app_handle, taken_at, average, count, stars_1, stars_2, stars_3, stars_4, stars_5, poll_run_id)
     values (?, ?, ?, ?, 1, 2, 3, 4, 5, ?)`,
  );
  client.transaction(() => {
    for (let t = from; t < to; t += everyMs) {
      const { lastInsertRowid } = run.run(handle, t, t + 1_000);
      const { hour, minute } = berlin(t + 1_000);
      const average = hour === 23 && minute >= 50 ? null : 4 + Math.sin(t / (7 * HOUR)) / 2 + t / 1e14;
      snapshot.run(handle, t + 1_000, average, 100 + Math.floor((t - from) / DAY), lastInsertRowid);
    }
  })();
}

/** A stored review (first seen at `at`, by the poll run of that moment); returns its row id. */
function storeAt(store: Store, handle: string, rating: number, at: number, fromBaseline = false): number {
  const client = store.db.$client;
  const run = client
    .prepare<[string, number], { id: number }>(
      'select id from poll_runs where app_handle = ? and started_at <= ? order by started_at desc limit 1',
    )
    .get(handle, at);
  if (!run) throw new Error(`no poll run of ${handle} before ${new Date(at).toISOString()}`);
  const id = `r${at}-${rating}`;
  return storeReview(store.db, {
    appHandle: handle,
    identity: id,
    reviewer: 'Shop',
    location: 'Germany',
    rating,
    content: 'text',
    createdAt: new Date(at),
    appName: handle,
    fromBaseline,
    firstSeenAt: new Date(at),
    pollRunId: run.id,
  });
}

function storeEdit(store: Store, handle: string, reviewRowId: number, from: number, to: number, at: number) {
  const run = store.db.$client
    .prepare<[number], { pollRunId: number }>('select poll_run_id as pollRunId from reviews where id = ?')
    .get(reviewRowId);
  store.db.$client
    .prepare(
      `insert into review_edits (review_row_id, app_handle, old_rating, new_rating, old_content, new_content,
       old_created_date, new_created_date, detected_at, poll_run_id) values (?, ?, ?, ?, '', '', '', '', ?, ?)`,
    )
    .run(reviewRowId, handle, from, to, at, run?.pollRunId);
}

function rows(store: Store, table: string): number {
  return (store.db.$client.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
}

function tableCounts(store: Store) {
  return {
    pollRuns: rows(store, 'poll_runs'),
    ratingSnapshots: rows(store, 'rating_snapshots'),
    deliveries: rows(store, 'deliveries'),
    alerts: rows(store, 'alerts'),
    digestRuns: rows(store, 'digest_runs'),
    reviews: rows(store, 'reviews'),
    reviewEdits: rows(store, 'review_edits'),
  };
}

/** A copy of the database as it is now, opened as a store of its own. */
function twin(store: Store): Store {
  store.db.$client.pragma('wal_checkpoint(TRUNCATE)');
  const path = tempPath('twin.db');
  copyFileSync(store.path, path);
  return open(path);
}

describe('downsampling rating snapshots', () => {
  it('keeps every snapshot of the recent past, then one per local hour, then one per local day', () => {
    const tiers = snapshotTiers(NOW, { fullDetailMs: 2 * DAY, hourlyMs: 60 * DAY }, 'Europe/Berlin');
    // Two days before 10:00 Berlin is 10:00 Berlin: an hour boundary.
    expect(new Date(tiers.fullFrom).toISOString()).toBe('2026-11-21T09:00:00.000Z');
    // Sixty days before is 24 September, in summer time: its local midnight is 22:00 UTC the day before.
    expect(new Date(tiers.hourlyFrom).toISOString()).toBe('2026-09-23T22:00:00.000Z');
    const hour = Date.parse('2026-11-20T10:00:00Z');
    expect(tiers.bucketOf(hour)).toBe(tiers.bucketOf(hour + 59 * MINUTE));
    expect(tiers.bucketOf(hour)).not.toBe(tiers.bucketOf(hour + HOUR));
    // A Berlin day in winter runs from 23:00 UTC to 23:00 UTC.
    const day = Date.parse('2026-09-10T22:00:00Z');
    expect(tiers.bucketOf(day)).toBe(tiers.bucketOf(day + DAY - 1));
    expect(tiers.bucketOf(day)).not.toBe(tiers.bucketOf(day - 1));
  });

  it('keeps the two hours a change back from summer time repeats apart, and hours of a :45 zone', () => {
    const tiers = snapshotTiers(
      new Date('2026-11-01T00:00:00Z'),
      { fullDetailMs: DAY, hourlyMs: 30 * DAY },
      'Europe/Berlin',
    );
    // 25 October: 02:00–03:00 happens twice, at 00:00 and 01:00 UTC.
    expect(tiers.bucketOf(Date.parse('2026-10-25T00:30:00Z'))).not.toBe(
      tiers.bucketOf(Date.parse('2026-10-25T01:30:00Z')),
    );
    const kathmandu = snapshotTiers(NOW, { fullDetailMs: DAY, hourlyMs: 30 * DAY }, 'Asia/Kathmandu');
    // UTC+05:45: local hours start at :15 UTC.
    const at = Date.parse('2026-11-20T10:15:00Z');
    expect(kathmandu.bucketOf(at)).toBe(at);
    expect(kathmandu.bucketOf(at - 1)).toBe(at - HOUR);
  });

  it('keeps the last snapshot with an average, else the last one, in whatever order they come', () => {
    const dropped: number[] = [];
    const sampler = new Downsampler(
      (t) => Math.floor(t / 10),
      (row) => dropped.push(row[0]),
    );
    for (const row of [
      [1, 0, 1],
      [3, 9, 0],
      [2, 5, 1],
      [4, 10, 0],
      [5, 19, 0],
      [6, 20, 1],
      // Late: its bucket is decided again, and it cannot make the first decision's kept one go.
      [7, 1, 1],
    ] as const) {
      sampler.add([row[0], row[1], row[2], 100 + row[0]]);
    }
    sampler.end();
    expect(dropped.sort()).toEqual([1, 3, 4]);
  });
});

describe('pruneDatabase', () => {
  it('gives the digest the same rating history, and rating-drop detection the same alert, as before', async () => {
    const cfg = config();
    const store = open(tempPath());
    const from = NOW.getTime() - 100 * DAY;
    simulatePolls(store, 'my-app', from, NOW.getTime());
    simulatePolls(store, 'rival', from, NOW.getTime(), 15 * MINUTE);
    // The rating level the next drop is measured from, and what happened since: the drop's evidence.
    const levelAt = NOW.getTime() - 20 * DAY;
    store.db.$client
      .prepare(
        'update apps set rating_level_average = 4.6, rating_level_count = 100, rating_level_at = ? where handle = ?',
      )
      .run(levelAt, 'my-app');
    storeAt(store, 'my-app', 1, levelAt - 5 * DAY);
    storeAt(store, 'my-app', 2, levelAt + 3 * DAY);
    storeAt(store, 'my-app', 1, levelAt + 9 * DAY);
    storeAt(store, 'my-app', 5, levelAt + 10 * DAY);
    storeAt(store, 'my-app', 1, levelAt + 11 * DAY, true);
    const edited = storeAt(store, 'my-app', 4, levelAt - 40 * DAY);
    storeEdit(store, 'my-app', edited, 4, 2, levelAt + 2 * DAY);
    const before = twin(store);

    const result = await pruneDatabase(store.db, retentionPolicyOf(cfg), NOW);
    expect(result.counts.ratingSnapshots).toBeGreaterThan(20_000);
    expect(result.counts.pollRuns).toBeGreaterThan(20_000);
    expect(tableCounts(store).reviews).toBe(tableCounts(before).reviews);

    // The last week's digest (trend back 8 weeks: hourly snapshots) and one of 5 weeks ago (back 13 weeks:
    // daily snapshots, before the 60 days).
    for (const weeksAgo of [0, 5]) {
      const period = previousWeek(new Date(NOW.getTime() - weeksAgo * 7 * DAY), 'Europe/Berlin');
      const history = (s: Store) =>
        collectDigest(s.db, digestInputOf(cfg, period, NOW)).apps.map((a) => ({
          handle: a.handle,
          trend: a.trend,
          rating: a.rating,
        }));
      const expected = history(before);
      expect(expected[0]?.trend.filter((w) => w.rating !== null)).toHaveLength(8);
      expect(history(store)).toEqual(expected);
    }

    const dropOf = (s: Store) => {
      const pollRunId = Number(
        s.db.$client
          .prepare(
            `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
             values ('my-app', ?, ?, 'ok', 1, 1, 0, 0)`,
          )
          .run(NOW.getTime(), NOW.getTime()).lastInsertRowid,
      );
      const raised = raiseAlerts(s.db, alertPolicyOf(cfg), {
        handle: 'my-app',
        pollRunId,
        baseline: false,
        newReviews: [],
        edits: [],
        summary: {
          distribution: { 1: 10, 2: 5, 3: 5, 4: 20, 5: 70 },
          count: 110,
          average: 4.3,
          complete: true,
        },
        at: NOW,
      });
      const alert = s.db.$client
        .prepare<[], { dedupeKey: string; priority: string; payload: string }>(
          `select dedupe_key as dedupeKey, priority, payload from alerts where kind = 'rating-drop'`,
        )
        .get();
      return { kinds: raised.kinds, alert: alert && { ...alert, payload: JSON.parse(alert.payload) } };
    };
    const expectedDrop = dropOf(before);
    expect(expectedDrop.kinds).toEqual(['rating-drop']);
    expect(expectedDrop.alert?.payload.explanation).toMatchObject({ newLowReviews: 2, rerated: 1 });
    expect(dropOf(store)).toEqual(expectedDrop);
  });

  it('counts in a dry run exactly what it then deletes, and changes nothing', async () => {
    const store = open(tempPath());
    simulatePolls(store, 'my-app', NOW.getTime() - 70 * DAY, NOW.getTime(), 10 * MINUTE);
    const policy = retentionPolicyOf(config());
    const untouched = tableCounts(store);

    const dry = await pruneDatabase(store.db, policy, NOW, { dryRun: true });
    expect(dry.dryRun).toBe(true);
    expect(dry.counts.ratingSnapshots).toBeGreaterThan(0);
    expect(dry.counts.pollRuns).toBeGreaterThan(0);
    expect(dry.bytesReclaimed).toBe(0);
    expect(tableCounts(store)).toEqual(untouched);

    const real = await pruneDatabase(store.db, policy, NOW);
    expect(real.counts).toEqual(dry.counts);
    expect(tableCounts(store)).toMatchObject({
      pollRuns: untouched.pollRuns - dry.counts.pollRuns,
      ratingSnapshots: untouched.ratingSnapshots - dry.counts.ratingSnapshots,
    });
    // Nothing is left to delete.
    const again = await pruneDatabase(store.db, policy, NOW, { dryRun: true });
    expect(again.counts).toEqual({
      pollRuns: 0,
      ratingSnapshots: 0,
      deliveries: 0,
      alertPayloads: 0,
      digestRuns: 0,
      categorySnapshots: 0,
      listingVersions: 0,
      marketRuns: 0,
    });
  });

  it('keeps one snapshot per hour, then per day, and every poll run something still points to', async () => {
    const store = open(tempPath());
    store.db.$client.prepare("insert into apps (handle) values ('my-app')").run();
    // Two reconciliations, written first (the prune reads in id order: one written far out of time
    // order would wait for a later prune).
    for (const daysAgo of [40, 20]) {
      store.db.$client
        .prepare(
          `insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews, kind)
           values ('my-app', ?, ?, 'ok', 5, 5, 0, 0, 'reconcile')`,
        )
        .run(NOW.getTime() - daysAgo * DAY, NOW.getTime() - daysAgo * DAY);
    }
    simulatePolls(store, 'my-app', NOW.getTime() - 70 * DAY, NOW.getTime());
    const reviewed = storeAt(store, 'my-app', 1, NOW.getTime() - 30 * DAY);
    const policy = retentionPolicyOf(config());
    await pruneDatabase(store.db, policy, NOW);

    const client = store.db.$client;
    const tiers = snapshotTiers(NOW, policy.snapshots, policy.timezone);
    const perBucket = client
      .prepare<[number], { taken: number }>(
        'select taken_at as taken from rating_snapshots where taken_at < ?',
      )
      .all(tiers.fullFrom)
      .map((r) => tiers.bucketOf(r.taken));
    expect(new Set(perBucket).size).toBe(perBucket.length);
    // 2 days of every snapshot, 58 of hourly ones, 10 of daily ones (give or take the edges).
    const kept = rows(store, 'rating_snapshots');
    expect(kept).toBeGreaterThan(2 * 288 + 58 * 24 + 9);
    expect(kept).toBeLessThan(2 * 288 + 58 * 24 + 12 + 12);
    // Poll runs: the last 7 days, plus those of kept snapshots and of the review.
    const oldRuns = client
      .prepare<[number], { id: number }>('select id from poll_runs where started_at < ?')
      .all(NOW.getTime() - 7 * DAY)
      .map((r) => r.id);
    const pinned = new Set(
      client
        .prepare<[], { id: number }>(
          `select poll_run_id as id from rating_snapshots union select poll_run_id from reviews
           union select id from poll_runs where kind = 'reconcile'`,
        )
        .all()
        .map((r) => r.id),
    );
    expect(oldRuns.every((id) => pinned.has(id))).toBe(true);
    expect(oldRuns).toContain(
      client
        .prepare<[number], { id: number }>('select poll_run_id as id from reviews where id = ?')
        .get(reviewed)?.id,
    );
    expect(client.pragma('foreign_key_check')).toEqual([]);
    // Each app's latest reconciliation stays, whatever its age: it says when the next one is due.
    expect(
      client
        .prepare<[], { at: number }>("select started_at as at from poll_runs where kind = 'reconcile'")
        .all()
        .map((r) => r.at),
    ).toEqual([NOW.getTime() - 20 * DAY]);
    expect(rows(store, 'poll_runs')).toBeLessThan(7 * 288 + 58 * 24 + 12 + 12);
  });

  it('empties fully sent alerts and deletes their deliveries, keeping the alert rows and everything owed', async () => {
    const store = open(tempPath());
    simulatePolls(store, 'my-app', NOW.getTime() - 2 * DAY, NOW.getTime(), HOUR);
    const client = store.db.$client;
    const old = NOW.getTime() - 40 * DAY;
    const alert = (key: string, at: number, deliveries: Array<[string, number | null]>) => {
      const id = Number(
        client
          .prepare(
            `insert into alerts (app_handle, kind, dedupe_key, priority, payload, created_at)
             values ('my-app', 'review', ?, 'high', '{"kind":"review","review":{"rating":1,"reviewer":"Shop"}}', ?)`,
          )
          .run(key, at).lastInsertRowid,
      );
      for (const [i, [status, sentAt]] of deliveries.entries()) {
        client
          .prepare(
            `insert into deliveries (alert_id, channel, app_handle, status, last_error, created_at, sent_at)
             values (?, ?, 'my-app', ?, ?, ?, ?)`,
          )
          .run(id, `c${i}`, status, status === 'failed' ? 'webhook 404' : null, at, sentAt);
      }
      return id;
    };
    const sent = alert('review-1', old, [
      ['sent', old + MINUTE],
      ['sent', old + HOUR],
    ]);
    const unrouted = alert('review-2', old, []);
    const partlyFailed = alert('review-3', old, [
      ['sent', old + MINUTE],
      ['failed', null],
    ]);
    const pending = alert('review-4', old, [['pending', null]]);
    const sentLate = alert('review-5', old, [['sent', NOW.getTime() - HOUR]]);
    const recent = alert('review-6', NOW.getTime() - DAY, [['sent', NOW.getTime() - DAY + MINUTE]]);

    const result = await pruneDatabase(store.db, retentionPolicyOf(config()), NOW);
    expect(result.counts).toMatchObject({ alertPayloads: 2, deliveries: 2 });
    const payload = (id: number) =>
      client.prepare<[number], { payload: string }>('select payload from alerts where id = ?').get(id)
        ?.payload;
    const deliveriesOf = (id: number) =>
      client
        .prepare<[number], { n: number }>('select count(*) as n from deliveries where alert_id = ?')
        .get(id)?.n;
    expect([payload(sent), payload(unrouted)]).toEqual(['{}', '{}']);
    expect(deliveriesOf(sent)).toBe(0);
    for (const id of [partlyFailed, pending, sentLate, recent]) {
      expect(payload(id)).toContain('"reviewer":"Shop"');
    }
    expect([deliveriesOf(partlyFailed), deliveriesOf(pending), deliveriesOf(sentLate)]).toEqual([2, 1, 1]);
    expect(rows(store, 'alerts')).toBe(6);
    // The dedupe key still stops the same alert from being raised again.
    expect(
      insertAlert(store.db, {
        appHandle: 'my-app',
        kind: 'review',
        dedupeKey: 'review-1',
        priority: 'high',
        payload: { kind: 'review' } as never,
        createdAt: NOW,
      }),
    ).toBeUndefined();
  });

  it('deletes sent digest runs past their age but the latest of each channel, and never an unsent one', async () => {
    const store = open(tempPath());
    const client = store.db.$client;
    const run = (period: string, channel: string, status: string, at: number) =>
      client
        .prepare(
          `insert into digest_runs (period_start, period_end, channel, status, claimed_at, sent_at)
           values (?, ?, ?, ?, ?, ?)`,
        )
        .run(period, period, channel, status, at, status === 'sent' ? at : null);
    const yearAndMore = NOW.getTime() - 400 * DAY;
    run('2025-10-13', 'mail', 'sent', yearAndMore);
    run('2025-10-20', 'mail', 'sent', yearAndMore + 7 * DAY);
    run('2025-10-20', 'team', 'failed', yearAndMore + 7 * DAY);
    run('2025-10-13', 'old-channel', 'sent', yearAndMore);
    run('2026-11-16', 'mail', 'sent', NOW.getTime());

    const result = await pruneDatabase(store.db, retentionPolicyOf(config()), NOW);
    expect(result.counts.digestRuns).toBe(2);
    expect(
      client
        .prepare<[], { key: string }>(
          "select period_start || ' ' || channel as key from digest_runs order by id",
        )
        .all()
        .map((r) => r.key),
    ).toEqual(['2025-10-20 team', '2025-10-13 old-channel', '2026-11-16 mail']);
  });

  it('gives the space back to the file system, in short steps', async () => {
    const path = tempPath();
    const store = open(path);
    expect(store.db.$client.pragma('auto_vacuum', { simple: true })).toBe(2);
    simulatePolls(store, 'my-app', NOW.getTime() - 90 * DAY, NOW.getTime());
    store.db.$client.pragma('wal_checkpoint(TRUNCATE)');
    const size = statSync(path).size;
    const phases = new Set<string>();

    const result = await pruneDatabase(store.db, retentionPolicyOf(config()), NOW, {
      onProgress: (p) => phases.add(p.phase),
    });
    expect(result.reclaim).toBe('incremental');
    expect(result.checkpointed).toBe(true);
    expect(result.bytesBefore).toBe(size);
    expect(result.bytesAfter).toBe(statSync(path).size);
    expect(result.bytesAfter).toBeLessThan(size / 4);
    expect(result.bytesReclaimed).toBe(size - result.bytesAfter);
    expect(result.freeBytes).toBe(0);
    expect([...phases]).toEqual(['alerts', 'digest runs', 'snapshots', 'market', 'poll runs', 'reclaim']);
  });

  it('keeps free pages for reuse in a database created before auto_vacuum, until --vacuum converts it', async () => {
    const path = tempPath();
    const legacy = new Database(path);
    legacy.pragma('journal_mode = WAL');
    migrate(drizzle({ client: legacy }), { migrationsFolder: 'drizzle' });
    legacy.close();
    const store = open(path);
    expect(store.db.$client.pragma('auto_vacuum', { simple: true })).toBe(0);
    simulatePolls(store, 'my-app', NOW.getTime() - 90 * DAY, NOW.getTime());
    const policy = retentionPolicyOf(config());

    const reused = await pruneDatabase(store.db, policy, NOW);
    expect(reused.reclaim).toBe('reuse');
    expect(reused.freeBytes).toBeGreaterThan(reused.bytesAfter / 2);

    const vacuumed = await pruneDatabase(store.db, policy, NOW, { vacuum: true });
    expect(vacuumed.reclaim).toBe('vacuum');
    expect(vacuumed.freeBytes).toBe(0);
    expect(vacuumed.bytesAfter).toBeLessThan(reused.bytesAfter / 2);
    expect(store.db.$client.pragma('auto_vacuum', { simple: true })).toBe(2);
  });

  it('lets other writes through between its batches', async () => {
    const store = open(tempPath());
    simulatePolls(store, 'my-app', NOW.getTime() - 30 * DAY, NOW.getTime());
    const initial = rows(store, 'rating_snapshots');
    let progressed: PruneProgress | undefined;
    let pruning = true;
    const prune = pruneDatabase(store.db, retentionPolicyOf(config()), NOW, {
      batchRows: 200,
      maxLockMs: 0,
      onProgress: (p) => {
        progressed = p;
      },
    }).finally(() => {
      pruning = false;
    });
    // A poll's writes, one after the other while the prune runs: each sees how far it got.
    const seen: number[] = [];
    while (pruning) {
      await store.writes.run(() => {
        seen.push(rows(store, 'rating_snapshots'));
        store.db.$client.prepare("update apps set last_poll_at = 1 where handle = 'my-app'").run();
      });
    }
    const result = await prune;
    const final = rows(store, 'rating_snapshots');
    expect(result.counts.ratingSnapshots).toBe(initial - final);
    expect(seen.filter((n) => n < initial && n > final).length).toBeGreaterThan(10);
    expect(progressed?.done).toBe(progressed?.total);
    const counts: PruneCounts | undefined = progressed?.counts;
    expect(counts).toEqual(result.counts);
  });

  it('takes its ages from the config, never shorter than the throttle window', () => {
    const policy = retentionPolicyOf(
      parseConfig(
        {
          apps: [{ handle: 'a' }],
          alerts: { throttle: { max: 5, window: '3d' } },
          retention: {
            pollRuns: '2d',
            sentAlerts: '1d',
            ratingSnapshots: { fullDetail: '1d', hourly: '7d' },
          },
        },
        {},
      ),
    );
    expect(policy).toMatchObject({
      pollRunsMs: 2 * DAY,
      sentAlertsMs: 3 * DAY,
      digestRunsMs: 365 * DAY,
      snapshots: { fullDetailMs: DAY, hourlyMs: 7 * DAY },
      timezone: 'UTC',
    });
  });
});
