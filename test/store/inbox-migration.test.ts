import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { listInbox } from '../../src/store/inbox.js';
import { tempDir } from '../helpers/index.js';

let cleanup: () => void = () => {};
afterEach(() => cleanup());

/** The migrations folder as it was before `tag` (and everything after it). */
function migrationsBefore(dir: string, tag: string): string {
  const folder = join(dir, 'drizzle');
  cpSync('drizzle', folder, { recursive: true });
  const journalPath = join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
  const at = journal.entries.findIndex((entry) => entry.tag === tag);
  if (at < 0) throw new Error(`no migration ${tag}`);
  writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  return folder;
}

it('0008 indexes the reviews stored before it for full-text search', () => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  const path = join(temp.dir, 'old.db');
  const old = new Database(path);
  migrate(drizzle({ client: old }), { migrationsFolder: migrationsBefore(temp.dir, '0008_inbox') });
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
  const path = join(temp.dir, 'old.db');
  const old = new Database(path);
  migrate(drizzle({ client: old }), { migrationsFolder: migrationsBefore(temp.dir, '0009_fts_stemmed') });
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
    store.db.$client
      .prepare(
        `insert into reviews (app_handle, identity, fingerprint, review_id, reviewer, location, rating, content,
         created_date, created_at, time_using_app, app_name, app_url, from_baseline, first_seen_at, updated_at,
         poll_run_id) values ('shop', '2', 'f2', '2', 'Ben', 'Canada', 1, 'Refunding takes weeks', 'x', 6000, '',
         'Shop', 'u', 0, 6000, 6000, 1)`,
      )
      .run();
    expect(listInbox(store.db, { text: 'refund' }).rows.map((r) => r.reviewer)).toEqual(['Ben', 'Ana']);
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
      ]),
    );
  } finally {
    store.close();
  }
});
