import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterEach, expect, it } from 'vitest';
import { getApp } from '../../src/store/apps.js';
import { openStore } from '../../src/store/db.js';
import { firstHeldAt } from '../../src/store/outbox.js';
import { deliveries } from '../../src/store/schema.js';
import { tempDir } from '../helpers/index.js';
import { databaseBefore } from '../helpers/migrations.js';

let cleanup: () => void = () => {};
afterEach(() => cleanup());

it('0003 fills in when each app was last polled successfully, from its poll runs', () => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  const { path, old } = databaseBefore(temp.dir, '0003_poll_shortcuts');
  old.exec(`
    insert into apps (handle) values ('polled'), ('failing'), ('new');
    insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
    values ('polled', 1000, 1100, 'baseline', 1, 1, 0, 0), ('polled', 2000, 2100, 'ok', 1, 1, 0, 0),
           ('polled', 3000, 3100, 'failed', 1, 0, 0, 0), ('failing', 5000, 5100, 'failed', 1, 0, 0, 0);
  `);
  old.close();

  const store = openStore(path);
  try {
    expect(getApp(store.db, 'polled')?.lastSuccessAt).toEqual(new Date(2000));
    expect(getApp(store.db, 'failing')?.lastSuccessAt).toBeNull();
    expect(getApp(store.db, 'new')?.lastSuccessAt).toBeNull();
  } finally {
    store.close();
  }
});

it('0005 starts the maxHold clock of alerts already held at their creation', () => {
  const temp = tempDir();
  cleanup = temp.cleanup;
  const { path, old } = databaseBefore(temp.dir, '0005_held_at');
  old.exec(`
    insert into apps (handle) values ('shop');
    insert into alerts (app_handle, kind, dedupe_key, priority, payload, created_at)
    values ('shop', 'review', 'a', 'high', '{}', 1000), ('shop', 'review', 'b', 'high', '{}', 2000);
    insert into deliveries (alert_id, channel, app_handle, status, created_at, sent_at)
    values (1, 'support', 'shop', 'held', 1000, null), (2, 'support', 'shop', 'sent', 2000, 2500);
  `);
  old.close();

  const store = openStore(path);
  try {
    expect(firstHeldAt(store.db, 'support', 'shop')).toEqual(new Date(1000));
    const sent = store.db.select().from(deliveries).where(eq(deliveries.status, 'sent')).get();
    expect(sent?.heldAt).toBeNull();
  } finally {
    store.close();
  }
});

it('two processes opening a new file at once migrate it once, the second after the first', () => {
  const temp = tempDir();
  const path = join(temp.dir, 'new.db');
  // The other process: a second connection to the file that migrates it the moment this one has read
  // which migrations are applied (its next statement after that read), unless this one then holds the
  // write lock. Connections in one process lock the file as two processes do.
  const other = new Database(path);
  other.pragma('busy_timeout = 0');
  const prepare = Database.prototype.prepare;
  let readApplied = false;
  let otherMigrated: boolean | undefined;
  Database.prototype.prepare = function (this: Database.Database, source: string) {
    if (this !== other && readApplied && otherMigrated === undefined) {
      try {
        migrate(drizzle({ client: other }), { migrationsFolder: 'drizzle' });
        otherMigrated = true;
      } catch (err) {
        // drizzle wraps the driver's error: SQLITE_BUSY is its cause.
        if ((err as { cause?: { code?: string } }).cause?.code !== 'SQLITE_BUSY') throw err;
        otherMigrated = false;
      }
    }
    if (this !== other && /^SELECT .* FROM "__drizzle_migrations"/is.test(source)) readApplied = true;
    return prepare.call(this, source) as Database.Statement;
  } as typeof prepare;
  cleanup = () => {
    Database.prototype.prepare = prepare;
    other.close();
    temp.cleanup();
  };

  const store = openStore(path);
  Database.prototype.prepare = prepare;
  try {
    // The other came in while this one held the write lock, and left it the work.
    expect(otherMigrated).toBe(false);
    const journal = JSON.parse(readFileSync('drizzle/meta/_journal.json', 'utf8')) as { entries: unknown[] };
    const applied = store.db.$client.prepare('select count(*) as n from __drizzle_migrations').get() as {
      n: number;
    };
    expect(applied.n).toBe(journal.entries.length);
    // The other, run again now, finds nothing left to do.
    migrate(drizzle({ client: other }), { migrationsFolder: 'drizzle' });
    expect(store.db.$client.prepare('select count(*) as n from __drizzle_migrations').get()).toEqual(applied);
  } finally {
    store.close();
  }
});
