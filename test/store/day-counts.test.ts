/**
 * The per-day counts a trend reads (drizzle/0020_day_counts.sql) stay what counting the reviews gives,
 * through every write of a review: a poll's insert, an edit of its stars or text (and so its topics), a
 * refresh of its date, a reconciliation folding a duplicate away, the topics backfill, the migration's
 * fill of an older store and a prune. And periodCounts, which reads them, counts exactly as the reviews
 * do wherever a period's edges fall.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { Rng } from '../../src/simulator/random.js';
import { ensureApp } from '../../src/store/apps.js';
import { DAY_ROW_TOPICS } from '../../src/store/day-row-topics.js';
import { openStore } from '../../src/store/db.js';
import { type PeriodCounts, periodCounts } from '../../src/store/period-counts.js';
import { foldDuplicate } from '../../src/store/reconcile.js';
import { pruneDatabase, retentionPolicyOf } from '../../src/store/retention.js';
import { indexNewReviews } from '../../src/store/review-index.js';
import {
  findKnown,
  insertNewReviews,
  type NewReview,
  type ReviewChange,
  recordEdit,
  refreshReview,
} from '../../src/store/reviews.js';
import { backfillTopics } from '../../src/store/topic-backfill.js';
import { appTopics } from '../../src/store/topic-summary.js';
import { BUILT_IN_TAXONOMY, BUILT_IN_TOPIC_NAMES, taxonomyWith, topicsOf } from '../../src/topics/index.js';
import { countedDayCounts, storedDayCounts } from '../helpers/day-counts.js';
import { tempDir, tempStore } from '../helpers/index.js';
import { databaseBefore } from '../helpers/migrations.js';
import { storeReview } from '../helpers/reviews.js';

const DAY = 86_400_000;
const NOW = new Date('2026-11-23T10:30:00Z');
const day = (iso: string) => Math.floor(Date.parse(iso) / DAY);

let store: ReturnType<typeof tempStore>;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

function expectInStep(): void {
  expect(storedDayCounts(store.db)).toEqual(countedDayCounts(store.db));
}

/** A review's row as it stands, to edit it as a poll would. */
function stored(handle: string, identity: string) {
  const known = findKnown(store.db, handle, [{ identity, fingerprint: `fp-${identity}` }]).byIdentity.get(
    identity,
  );
  if (!known) throw new Error(`no review ${identity}`);
  return known;
}

function changeOf(handle: string, identity: string, to: Partial<ReviewChange>): ReviewChange {
  const known = stored(handle, identity);
  const content = to.content ?? known.content;
  return {
    appHandle: handle,
    identity,
    reviewId: identity,
    fingerprint: known.fingerprint,
    rating: known.rating,
    content,
    createdDate: known.createdDate,
    createdAt: new Date(known.createdDate),
    topics: topicsOf(content, BUILT_IN_TAXONOMY),
    topicsVersion: BUILT_IN_TAXONOMY.version,
    ...to,
  };
}

describe('the per-day counts', () => {
  it("follow a poll's inserts, edits of stars and text, a refreshed date and a folded duplicate", () => {
    const seed = (identity: string, rating: number, content: string, createdAt: Date | null) =>
      storeReview(store.db, {
        appHandle: 'shop',
        identity,
        rating,
        content,
        createdAt,
        firstSeenAt: new Date('2026-11-20T09:00:00Z'),
      });
    seed('a', 1, 'They charged me twice.', new Date('2026-11-18T08:00:00Z'));
    seed('b', 2, 'Charged twice and support never replied.', new Date('2026-11-18T23:59:59Z'));
    seed('c', 5, 'Lovely app.', new Date('2026-11-19T00:00:00Z'));
    // No date of its own: counted on the day it was first seen, as the inbox dates it.
    const undated = seed('d', 4, 'Support was quick.', null);
    // Before 1970: the day is floored, not truncated towards zero.
    seed('e', 3, 'Old one.', new Date('1969-12-31T23:00:00Z'));
    expectInStep();
    const counts = storedDayCounts(store.db);
    expect(counts.days).toContain(`shop ${day('2026-11-18')} 2 3`);
    expect(counts.days).toContain(`shop ${day('2026-11-20')} 1 4`);
    expect(counts.days).toContain('shop -1 1 3');
    expect(counts.topicDays).toContain(`shop ${day('2026-11-18')} billing 2 3`);
    expect(counts.topicDays).toContain(`shop ${day('2026-11-18')} support 1 2`);

    // An edit of the stars and the text: billing leaves the day, bugs comes in, with the new stars.
    recordEdit(
      store.db,
      stored('shop', 'a'),
      changeOf('shop', 'a', { rating: 4, content: 'The app crashes on every order.' }),
      NOW,
      1,
    );
    expectInStep();
    expect(storedDayCounts(store.db).topicDays).toContain(`shop ${day('2026-11-18')} billing 1 2`);
    expect(storedDayCounts(store.db).topicDays).toContain(`shop ${day('2026-11-18')} bugs 1 4`);
    expect(storedDayCounts(store.db).days).toContain(`shop ${day('2026-11-18')} 2 6`);

    // A refresh moves the review to another day: the day it leaves has nothing left, and no row.
    refreshReview(
      store.db,
      stored('shop', 'c'),
      changeOf('shop', 'c', {
        createdDate: '2026-11-21T12:00:00Z',
        createdAt: new Date('2026-11-21T12:00:00Z'),
      }),
      NOW,
    );
    expectInStep();
    expect(storedDayCounts(store.db).days.filter((d) => d.startsWith(`shop ${day('2026-11-19')} `))).toEqual(
      [],
    );

    // A reconciliation folds the undated review into "b" as a duplicate: it is deleted.
    foldDuplicate(store.db, stored('shop', 'b').rowId, undated);
    expectInStep();
    expect(storedDayCounts(store.db).days.filter((d) => d.startsWith(`shop ${day('2026-11-20')} `))).toEqual(
      [],
    );
  });

  it("count a poll's batch once: several reviews and apps, a duplicate skipped mid-batch, nothing twice", () => {
    const old = storeReview(store.db, {
      appHandle: 'shop',
      identity: 'old',
      rating: 1,
      content: 'Charged twice.',
    });
    ensureApp(store.db, 'rival');
    const { pollRunId } = store.db.$client
      .prepare('select poll_run_id as pollRunId from reviews where id = ?')
      .get(old) as { pollRunId: number };
    const row = (appHandle: string, identity: string, rating: number, content: string): NewReview => ({
      appHandle,
      identity,
      fingerprint: `fp-${identity}`,
      reviewId: identity,
      reviewer: 'R',
      location: '',
      rating,
      content,
      createdDate: '2026-11-18T08:00:00Z',
      createdAt: new Date('2026-11-18T08:00:00Z'),
      timeUsingApp: '',
      appName: appHandle,
      appUrl: '',
      fromBaseline: false,
      firstSeenAt: NOW,
      updatedAt: NOW,
      pollRunId,
      topics: topicsOf(content, BUILT_IN_TAXONOMY),
      topicsVersion: BUILT_IN_TAXONOMY.version,
    });
    const inserted = insertNewReviews(store.db, [
      row('shop', 'n1', 1, 'They charged me twice and support never replied.'),
      // Stored already: skipped, and not counted again.
      row('shop', 'old', 1, 'Charged twice.'),
      row('shop', 'n2', 2, 'The app crashes on every order.'),
      row('rival', 'n3', 5, 'Support answered in ten minutes.'),
      // Twice in the same batch: stored and counted once.
      row('rival', 'n3', 5, 'Support answered in ten minutes.'),
    ]);
    expect(inserted.map((r) => r.identity)).toEqual(['n1', 'n2', 'n3']);
    expectInStep();
    const counts = storedDayCounts(store.db);
    expect(counts.days).toContain(`shop ${day('2026-11-18')} 2 3`);
    expect(counts.days).toContain(`rival ${day('2026-11-18')} 1 5`);
    expect(counts.topicDays).toContain(`shop ${day('2026-11-18')} billing 1 1`);
    expect(counts.topicDays).toContain(`shop ${day('2026-11-18')} bugs 1 2`);
    expect(counts.topicDays).toContain(`rival ${day('2026-11-18')} support 1 5`);
  });

  it("keep a built-in topic in its day's row and a custom one in topic_day_counts, through an insert and an edit", () => {
    const taxonomy = taxonomyWith({ klaviyo: { words: ['klaviyo'] } });
    const at = new Date('2026-11-18T08:00:00Z');
    const seed = (identity: string, rating: number, content: string) =>
      storeReview(store.db, {
        appHandle: 'shop',
        identity,
        rating,
        content,
        createdAt: at,
        topics: topicsOf(content, taxonomy),
        topicsVersion: taxonomy.version,
      });
    seed('k1', 1, 'The Klaviyo sync lost my data and I want a refund.');
    seed('k2', 2, 'Klaviyo sync broke again.');
    seed('plain', 5, 'Lovely.');
    const client = store.db.$client;
    const dayRow = () =>
      client
        .prepare(
          'select reviews, stars, billing_reviews, billing_stars, data_loss_reviews from review_day_counts',
        )
        .all();
    expect(dayRow()).toEqual([
      { reviews: 3, stars: 8, billing_reviews: 1, billing_stars: 1, data_loss_reviews: 1 },
    ]);
    const topicRows = () => client.prepare('select topic, reviews, stars from topic_day_counts').all();
    expect(topicRows()).toEqual([{ topic: 'klaviyo', reviews: 2, stars: 3 }]);
    expectInStep();
    // An edit moves both kinds: the trigger takes the refund out of the row and klaviyo out of its own.
    client.exec(`update reviews set topics = '[]' where identity = 'k1'`);
    expect(dayRow()).toEqual([
      { reviews: 3, stars: 8, billing_reviews: 0, billing_stars: 0, data_loss_reviews: 0 },
    ]);
    expect(topicRows()).toEqual([{ topic: 'klaviyo', reviews: 1, stars: 2 }]);
    expectInStep();
  });

  it('follow the topics backfill, under the built-in topics and after a config change', async () => {
    for (let i = 0; i < 30; i++) {
      storeReview(store.db, {
        appHandle: i % 3 === 0 ? 'rival' : 'shop',
        rating: 1 + (i % 5),
        content: i % 2 === 0 ? 'I want a refund for this.' : 'Lovely app, five stars.',
        createdAt: new Date(NOW.getTime() - i * 7 * 3_600_000),
        topics: [],
        topicsVersion: null,
      });
    }
    expect(storedDayCounts(store.db).topicDays).toEqual([]);
    await backfillTopics(store, BUILT_IN_TAXONOMY, { batch: 7 });
    expectInStep();
    expect(storedDayCounts(store.db).topicDays.some((row) => row.includes(' billing '))).toBe(true);
    await backfillTopics(store, taxonomyWith({ praise: { words: ['lovely'] } }), { batch: 7 });
    expectInStep();
    expect(storedDayCounts(store.db).topicDays.some((row) => row.includes(' praise '))).toBe(true);
  });

  it('are left right by a prune, which deletes no review', async () => {
    for (let i = 0; i < 20; i++) {
      storeReview(store.db, {
        appHandle: 'shop',
        rating: 1 + (i % 5),
        content: 'Charged twice.',
        createdAt: new Date(NOW.getTime() - i * 40 * DAY),
      });
    }
    const before = storedDayCounts(store.db);
    const config = parseConfig({ catalog: { simulator: true }, apps: [{ handle: 'shop' }] }, {});
    await pruneDatabase(store.db, retentionPolicyOf(config), new Date(NOW.getTime() + 3 * 365 * DAY));
    expectInStep();
    expect(storedDayCounts(store.db)).toEqual(before);
  });
});

/** The columns the migration tests write a review with, through `reviewRow`'s placeholders. */
const REVIEW_INSERT = `insert into reviews (app_handle, identity, fingerprint, review_id, reviewer, location,
  rating, content, created_date, created_at, time_using_app, app_name, app_url, from_baseline, first_seen_at,
  updated_at, poll_run_id, topics) values ('shop', @id, @id, @id, 'R', '', @rating, 'x', '', @createdAt, '', 'Shop',
  '', 0, @firstSeenAt, 1, 1, @topics)`;

/** A review of app 'shop' as those tests store it: dated by `createdAt` (or else first seen at `firstSeenAt`). */
function reviewRow(id: string, rating: number, createdAt: number | null, topics: string, firstSeenAt = 1) {
  return { id, rating, createdAt, firstSeenAt, topics };
}

/** A database migrated up to just before `tag`, holding app 'shop' and one poll run for its reviews. */
function storeBefore(dir: string, tag: string) {
  const { path, old } = databaseBefore(dir, tag);
  old.exec(`
    insert into apps (handle) values ('shop');
    insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
    values ('shop', 1000, 1100, 'ok', 1, 1, 0, 0);
  `);
  return { path, old, insert: old.prepare(REVIEW_INSERT) };
}

it("counts every built-in topic in its day's row, where trends read it without a row per topic", () => {
  // A built-in topic added later needs a migration adding its two columns, as 0024 added these.
  expect([...DAY_ROW_TOPICS].sort()).toEqual([...BUILT_IN_TOPIC_NAMES].sort());
});

it('0020 fills the per-day counts from the reviews and topics a store already holds', () => {
  const temp = tempDir();
  try {
    const { path, old, insert } = storeBefore(temp.dir, '0020_day_counts');
    const billing = JSON.stringify([{ name: 'billing', words: ['refund'] }]);
    insert.run(reviewRow('a', 1, Date.parse('2026-11-18T08:00:00Z'), billing));
    insert.run(reviewRow('b', 2, Date.parse('2026-11-18T20:00:00Z'), billing));
    insert.run(reviewRow('c', 5, null, '[]', Date.parse('2026-11-19T20:00:00Z')));
    old.close();

    const migrated = openStore(path);
    try {
      expect(storedDayCounts(migrated.db)).toEqual({
        days: [`shop ${day('2026-11-18')} 2 3`, `shop ${day('2026-11-19')} 1 5`],
        topicDays: [`shop ${day('2026-11-18')} billing 2 3`],
      });
      expect(storedDayCounts(migrated.db)).toEqual(countedDayCounts(migrated.db));
    } finally {
      migrated.close();
    }
  } finally {
    temp.cleanup();
  }
});

it('0023 drops review_topics, keeping the topic counts and following the topics column from then on', () => {
  const temp = tempDir();
  try {
    // Before 0022 the insert triggers still wrote review_topics and both counts, row by row.
    const { path, old, insert } = storeBefore(temp.dir, '0022_ingest_topic_rows');
    const topics = JSON.stringify([
      { name: 'billing', words: ['refund'] },
      { name: 'bugs', words: ['crash'] },
    ]);
    insert.run(reviewRow('a', 1, Date.parse('2026-11-18T08:00:00Z'), topics));
    insert.run(reviewRow('b', 2, Date.parse('2026-11-19T08:00:00Z'), '[]'));
    old.close();

    const migrated = openStore(path);
    try {
      const client = migrated.db.$client;
      const named = (sql: string) => client.prepare(sql).all() as Array<{ name: string }>;
      expect(named("select name from sqlite_master where name = 'review_topics'")).toEqual([]);
      expect(
        named("select name from sqlite_master where type = 'trigger' and sql like '%review_topics%'"),
      ).toEqual([]);
      expect(storedDayCounts(migrated.db).topicDays).toEqual([
        `shop ${day('2026-11-18')} billing 1 1`,
        `shop ${day('2026-11-18')} bugs 1 1`,
      ]);
      // In step from here: a bulk load's insert (indexNewReviews), an edit of the topics, a delete.
      const billing = JSON.stringify([{ name: 'billing', words: ['refund'] }]);
      const { lastInsertRowid } = client
        .prepare(REVIEW_INSERT)
        .run(reviewRow('c', 3, Date.parse('2026-11-19T09:00:00Z'), billing));
      indexNewReviews(migrated.db, Number(lastInsertRowid), Number(lastInsertRowid));
      // A name twice and an entry without one, which topicsOf never writes: each name counts once.
      client.exec(`update reviews set topics = '[{"name":"support","words":["reply"]},{"name":"support",
        "words":["answer"]},{"words":["x"]}]' where id = 2`);
      client.exec('delete from reviews where id = 1');
      expect(storedDayCounts(migrated.db)).toEqual(countedDayCounts(migrated.db));
      expect(storedDayCounts(migrated.db).topicDays).toEqual([
        `shop ${day('2026-11-19')} billing 1 3`,
        `shop ${day('2026-11-19')} support 1 2`,
      ]);
    } finally {
      migrated.close();
    }
  } finally {
    temp.cleanup();
  }
});

it("0024 moves the built-in topics' counts into the day rows, leaving custom topics' rows as they are", () => {
  const temp = tempDir();
  try {
    const { path, old, insert } = storeBefore(temp.dir, '0024_topic_counts_in_day_row');
    const topics = (...names: string[]) => JSON.stringify(names.map((name) => ({ name, words: ['w'] })));
    insert.run(reviewRow('a', 1, Date.parse('2026-11-18T08:00:00Z'), topics('billing', 'klaviyo')));
    insert.run(reviewRow('b', 2, Date.parse('2026-11-18T09:00:00Z'), topics('billing', 'data-loss')));
    insert.run(reviewRow('c', 4, Date.parse('2026-11-19T09:00:00Z'), '[]'));
    // As a poll's insert counted them before 0024: every topic in topic_day_counts.
    old.exec(`
      insert into review_day_counts select app_handle, created_at / 86400000 as d, count(*), sum(rating)
        from reviews group by app_handle, d;
      insert into topic_day_counts select app_handle, created_at / 86400000 as d, t.value ->> '$.name', count(*),
        sum(rating) from reviews, json_each(topics) t group by app_handle, d, t.value ->> '$.name';
    `);
    old.close();

    const migrated = openStore(path);
    try {
      const client = migrated.db.$client;
      expect(client.prepare('select topic, reviews, stars from topic_day_counts').all()).toEqual([
        { topic: 'klaviyo', reviews: 1, stars: 1 },
      ]);
      expect(
        client
          .prepare(
            'select day, reviews, billing_reviews, billing_stars, data_loss_stars from review_day_counts',
          )
          .all(),
      ).toEqual([
        { day: day('2026-11-18'), reviews: 2, billing_reviews: 2, billing_stars: 3, data_loss_stars: 2 },
        { day: day('2026-11-19'), reviews: 1, billing_reviews: 0, billing_stars: 0, data_loss_stars: 0 },
      ]);
      expect(storedDayCounts(migrated.db)).toEqual(countedDayCounts(migrated.db));
      // In step from here: a review deleted takes its topics out of its day's row.
      client.exec("delete from reviews where identity = 'b'");
      expect(storedDayCounts(migrated.db)).toEqual(countedDayCounts(migrated.db));
      expect(storedDayCounts(migrated.db).topicDays).toEqual([
        `shop ${day('2026-11-18')} billing 1 1`,
        `shop ${day('2026-11-18')} klaviyo 1 1`,
      ]);
    } finally {
      migrated.close();
    }
  } finally {
    temp.cleanup();
  }
});

describe('periodCounts', () => {
  /** Counted from the reviews one by one: what the day counts must add up to. */
  function counted(app: string, bounds: readonly number[]): PeriodCounts[] {
    const periods = bounds.slice(1).map((): PeriodCounts => ({ reviews: 0, topics: new Map() }));
    const rows = store.db.$client
      .prepare<[string], { at: number; rating: number; topics: string }>(
        'select coalesce(created_at, first_seen_at) as at, rating, topics from reviews where app_handle = ?',
      )
      .all(app);
    for (const row of rows) {
      const i = bounds.findLastIndex((b) => b <= row.at);
      const period = periods[i];
      if (period === undefined || row.at >= (bounds.at(-1) as number)) continue;
      period.reviews += 1;
      for (const { name } of JSON.parse(row.topics) as Array<{ name: string }>) {
        const count = period.topics.get(name) ?? { reviews: 0, stars: 0 };
        count.reviews += 1;
        count.stars += row.rating;
        period.topics.set(name, count);
      }
    }
    return periods;
  }

  const sorted = (periods: PeriodCounts[]) =>
    periods.map((p) => ({
      reviews: p.reviews,
      topics: [...p.topics].sort(([a], [b]) => a.localeCompare(b)),
    }));

  function seedYear(): void {
    store.db.$client.transaction(seedReviews)();
  }

  function seedReviews(): void {
    const rng = new Rng(24);
    const phrases = [
      'They charged me twice.',
      'It crashes.',
      'Support never replied.',
      'Lovely app.',
      'Fine.',
    ];
    for (let i = 0; i < 1_500; i++) {
      // Some on a midnight exactly, where a day's count and a period's edge meet.
      const at =
        NOW.getTime() -
        Math.floor(rng.next() * 400) * DAY -
        (i % 7 === 0 ? 10.5 * 3_600_000 : Math.floor(rng.next() * DAY));
      storeReview(store.db, {
        appHandle: i % 4 === 0 ? 'rival' : 'shop',
        rating: 1 + Math.floor(rng.next() * 5),
        content: `${phrases[Math.floor(rng.next() * phrases.length)]} ${phrases[Math.floor(rng.next() * phrases.length)]}`,
        createdAt: i % 11 === 0 ? null : new Date(at),
        firstSeenAt: new Date(at),
      });
    }
  }

  it('counts exactly as the reviews do, wherever the edges of the periods fall', () => {
    seedYear();
    const to = NOW.getTime();
    const equal = (length: number, count: number, end = to) =>
      Array.from({ length: count + 1 }, (_, i) => end - (count - i) * length);
    const cases: Record<string, number[]> = {
      '7 days to now, 9 periods': equal(7 * DAY, 9),
      '30 days to now, 9 periods': equal(30 * DAY, 9),
      '90 days to now, 9 periods': equal(90 * DAY, 9),
      'to a midnight': equal(30 * DAY, 9, Date.parse('2026-11-23T00:00:00Z')),
      'two hours, shorter than a day': equal(2 * 3_600_000, 9),
      'since a moment, 41 hours': equal(41 * 3_600_000, 9),
      // Weeks from Monday midnights in Berlin, one across the end of summer time.
      'weeks in a time zone': [
        '2026-09-13T22:00:00Z',
        '2026-09-20T22:00:00Z',
        '2026-10-18T22:00:00Z',
        '2026-10-25T23:00:00Z',
        '2026-11-01T23:00:00Z',
        '2026-11-15T23:00:00Z',
      ].map(Date.parse),
    };
    for (const [name, bounds] of Object.entries(cases)) {
      for (const app of ['shop', 'rival', 'none']) {
        expect(sorted(periodCounts(store.db, app, bounds)), `${name}, ${app}`).toEqual(
          sorted(counted(app, bounds)),
        );
      }
    }
    // The cases count something: this is not equality of empty periods.
    expect(
      periodCounts(store.db, 'shop', cases['90 days to now, 9 periods'] ?? []).at(-1)?.reviews,
    ).toBeGreaterThan(100);
  });

  it("gives /topics the same figures after an edit moves a review's topics", () => {
    seedYear();
    const week = { from: new Date(NOW.getTime() - 7 * DAY), to: NOW };
    const before = appTopics(store.db, 'shop', week);
    storeReview(store.db, {
      appHandle: 'shop',
      identity: 'late',
      rating: 1,
      content: 'They charged me twice.',
      createdAt: new Date(NOW.getTime() - 3_600_000),
    });
    const billing = (figures: typeof before) =>
      figures.topics.find((t) => t.topic === 'billing')?.reviews ?? 0;
    expect(appTopics(store.db, 'shop', week).reviews).toBe(before.reviews + 1);
    expect(billing(appTopics(store.db, 'shop', week))).toBe(billing(before) + 1);
    recordEdit(
      store.db,
      stored('shop', 'late'),
      changeOf('shop', 'late', { content: 'Lovely app.' }),
      NOW,
      1,
    );
    expect(billing(appTopics(store.db, 'shop', week))).toBe(billing(before));
    expectInStep();
  });
});
