import type Database from 'better-sqlite3';
import { readMigrationFiles } from 'drizzle-orm/migrator';

/** drizzle's own bookkeeping table, as its migrator creates it: databases migrated by either agree. */
const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (
  id SERIAL PRIMARY KEY,
  hash text NOT NULL,
  created_at numeric
)`;

/**
 * How long a process waits for another one's migration before giving up: longer than the usual busy
 * timeout, since a migration that builds an index on a large store takes seconds (docs/deployment.md).
 */
const MIGRATION_WAIT_MS = 5 * 60_000;

/**
 * Applies the pending migrations in `folder` in one transaction, as drizzle's migrator does (same table,
 * same rule: a migration is pending when its journal timestamp is after the last one applied), with one
 * difference: which migrations are applied is read inside the write transaction, not before it.
 * drizzle's migrator reads it first and then opens a deferred transaction, so two processes started
 * together on one file (two `reviewwatch start` services at boot) both read "nothing applied", and the
 * second, once the first commits, runs `CREATE TABLE apps` again and fails. Here the second waits for
 * the first's write lock, then finds nothing left to do.
 */
export function migrateSerialized(client: Database.Database, folder: string): void {
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  const busyTimeout = client.pragma('busy_timeout', { simple: true }) as number;
  client.pragma(`busy_timeout = ${MIGRATION_WAIT_MS}`);
  try {
    client
      .transaction(() => {
        client.prepare(CREATE_TABLE).run();
        const last = client
          .prepare('SELECT created_at FROM "__drizzle_migrations" ORDER BY created_at DESC LIMIT 1')
          .get() as { created_at: number | string } | undefined;
        const record = client.prepare(
          'INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (?, ?)',
        );
        for (const migration of migrations) {
          if (last !== undefined && Number(last.created_at) >= migration.folderMillis) continue;
          for (const statement of migration.sql) client.prepare(statement).run();
          record.run(migration.hash, migration.folderMillis);
        }
      })
      // BEGIN IMMEDIATE: the write lock first, then the read of what is applied.
      .immediate();
  } finally {
    client.pragma(`busy_timeout = ${busyTimeout}`);
  }
}
