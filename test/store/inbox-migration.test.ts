import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { listInbox } from '../../src/store/inbox.js';
import { fullTextDrift, ReviewSeeder } from '../helpers/inbox.js';
import { tempDir } from '../helpers/index.js';
import { databaseBefore } from '../helpers/migrations.js';
import { storeReview } from '../helpers/reviews.js';

let cleanup: () => void = () => {};
afterEach(() => cleanup());

it('0008 indexes the reviews stored before it for full-text search', () => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  const { path, old } = databaseBefore(temp.dir, '0008_inbox');
  // Plain SQL: the schema before the migration, not the one store/review-fields.ts describes.
  old.exec(`
    insert into apps (handle) values ('shop');
    insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
    values ('shop', 1000, 1100, 'ok', 1, 1, 1, 0);
    insert into reviews (app_handle, identity, fingerprint, review_id, reviewer, location, rating, content,
      created_date, created_at, time_using_app, app_name, app_url, from_baseline, first_seen_at, updated_at, poll_run_id)
    values ('shop', '1', 'f1', '1', 'Ana', 'Canada', 1, 'Refund never arrived', 'x', 5000, '', 'Shop', 'u', 0, 5000, 5000, 1),
           ('shop', '2', 'f2', '2', 'Ben', 'Canada', 2, 'Slow support', 'x', null, '', 'Shop', 'u', 0, 6000, 6000, 1);
  `);
  old.close();

  const store = openStore(path);
  try {
    expect(listInbox(store.db, { text: 'refund' }).rows.map((r) => r.reviewer)).toEqual(['Ana']);
    expect(listInbox(store.db, {}).rows.map((r) => [r.reviewer, r.at.getTime()])).toEqual([
      ['Ben', 6000],
      ['Ana', 5000],
    ]);
  } finally {
    store.close();
  }
});

it('0009 re-indexes the reviews with stemming: a word finds its other forms', () => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  const { path, old } = databaseBefore(temp.dir, '0009_fts_stemmed');
  // Plain SQL: the schema before the migration, not the one store/review-fields.ts describes.
  old.exec(`
    insert into apps (handle) values ('shop');
    insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
    values ('shop', 1000, 1100, 'ok', 1, 1, 1, 0);
    insert into reviews (app_handle, identity, fingerprint, review_id, reviewer, location, rating, content,
      created_date, created_at, time_using_app, app_name, app_url, from_baseline, first_seen_at, updated_at, poll_run_id)
    values ('shop', '1', 'f1', '1', 'Ana', 'Canada', 1, 'They refunded nothing', 'x', 5000, '', 'Shop', 'u', 0, 5000, 5000, 1);
  `);
  old.close();

  const store = openStore(path);
  try {
    expect(listInbox(store.db, { text: 'refunds' }).rows.map((r) => r.reviewer)).toEqual(['Ana']);
    storeReview(store.db, {
      appHandle: 'shop',
      identity: '2',
      fingerprint: 'f2',
      reviewer: 'Ben',
      location: 'Canada',
      rating: 1,
      content: 'Refunding takes weeks',
      createdDate: 'x',
      createdAt: new Date(6000),
      appName: 'Shop',
      appUrl: 'u',
      firstSeenAt: new Date(6000),
      pollRunId: 1,
    });
    expect(listInbox(store.db, { text: 'refund' }).rows.map((r) => r.reviewer)).toEqual(['Ben', 'Ana']);
  } finally {
    store.close();
  }
});

it('0010 re-keys the full-text index by date: the stored reviews are found newest first, and kept in step', () => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  const { path, old } = databaseBefore(temp.dir, '0010_fts_by_date');
  // Row ids out of date order, two in one hour (the later row the older), and a date that did not parse.
  // Plain SQL: the schema before the migration, not the one store/review-fields.ts describes.
  old.exec(`
    insert into apps (handle) values ('shop');
    insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
    values ('shop', 1000, 1100, 'ok', 1, 1, 1, 0);
    insert into reviews (app_handle, identity, fingerprint, review_id, reviewer, location, rating, content,
      created_date, created_at, time_using_app, app_name, app_url, from_baseline, first_seen_at, updated_at, poll_run_id)
    values ('shop', '1', 'f1', '1', 'Ana', 'Canada', 1, 'Refund please', 'x', 7300000, '', 'Shop', 'u', 0, 1, 1, 1),
           ('shop', '2', 'f2', '2', 'Ben', 'Canada', 2, 'No refund yet', 'x', 7200000, '', 'Shop', 'u', 0, 1, 1, 1),
           ('shop', '3', 'f3', '3', 'Cy', 'Canada', 2, 'Refunded at last', 'x', null, '', 'Shop', 'u', 0, 90000000, 1, 1),
           ('shop', '4', 'f4', '4', 'Di', 'Canada', 2, 'Refunds are slow', 'x', 100, '', 'Shop', 'u', 0, 1, 1, 1);
  `);
  old.close();

  const store = openStore(path);
  try {
    const reviewers = (options = {}) =>
      listInbox(store.db, { text: 'refund' }, { limit: 1, ...options }).rows.map((r) => r.reviewer);
    expect(listInbox(store.db, { text: 'refund' }).rows.map((r) => r.reviewer)).toEqual([
      'Cy',
      'Ana',
      'Ben',
      'Di',
    ]);
    let cursor = listInbox(store.db, { text: 'refund' }, { limit: 1 }).next;
    const pages = [reviewers()];
    while (cursor) {
      pages.push(reviewers({ cursor }));
      cursor = listInbox(store.db, { text: 'refund' }, { limit: 1, cursor }).next;
    }
    expect(pages).toEqual([['Cy'], ['Ana'], ['Ben'], ['Di']]);
    expect(fullTextDrift(store)).toBe(0);
    // The new triggers: an insert, new words, a new date, a delete.
    const seed = new ReviewSeeder(store);
    const added = seed.review({ content: 'refund me', reviewer: 'Eve', createdAt: 7250000 });
    const client = store.db.$client;
    client.prepare("update reviews set content = 'all good' where reviewer = 'Ben'").run();
    client.prepare("update reviews set created_at = 200000000 where reviewer = 'Di'").run();
    client.prepare("delete from reviews where reviewer = 'Ana'").run();
    expect(listInbox(store.db, { text: 'refund' }).rows.map((r) => r.reviewer)).toEqual(['Di', 'Cy', 'Eve']);
    expect(listInbox(store.db, { text: 'refund' }).rows.map((r) => r.id)).toContain(added);
    expect(fullTextDrift(store)).toBe(0);
  } finally {
    store.close();
  }
});

it('keeps the full-text triggers and the inbox indexes after every migration', () => {
  // A later migration in which drizzle-kit rebuilds `reviews` drops all of these silently: it must
  // recreate them (src/store/schema.ts says so beside the table).
  const temp = tempDir();
  cleanup = temp.cleanup;
  const store = openStore(join(temp.dir, 'new.db'));
  try {
    const names = store.db.$client
      .prepare<[], { name: string }>(
        "select name from sqlite_master where tbl_name = 'reviews' and type in ('trigger', 'index') order by name",
      )
      .all()
      .map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'reviews_app_inbox',
        'reviews_fts_delete',
        'reviews_fts_insert',
        'reviews_fts_update',
        'reviews_inbox',
        'reviews_day_counts_delete',
        'reviews_day_counts_update',
        'reviews_seen',
        'reviews_topic_counts_delete',
        'reviews_topic_counts_update',
      ]),
    );
  } finally {
    store.close();
  }
});
