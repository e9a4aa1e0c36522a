import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResult } from 'better-sqlite3';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import { ExitCode, errorMessage, ReviewwatchError } from '../errors.js';
import { migrateSerialized } from './migrate.js';
import * as schema from './schema.js';
import { WriteBatch } from './write-batch.js';

export const DEFAULT_DATABASE_PATH = 'data/reviewwatch.db';

/** The database itself: prepared statements (statements.ts) run on it, inside a transaction or not. */
export type StoreDb = Store['db'];

/** The database or a transaction on it: store functions accept either. */
export type Db = BaseSQLiteDatabase<'sync', RunResult, typeof schema>;

export interface Store {
  db: BetterSQLite3Database<typeof schema> & { $client: Database.Database };
  path: string;
  /** Whether this open created the database file (never in memory, where there is none). */
  created: boolean;
  /** Write transactions of concurrent callers, committed together (see write-batch.ts). */
  writes: WriteBatch;
  close(): void;
}

/** Migrations ship beside `src/` and `dist/`: both are two levels below the package root. */
const MIGRATIONS = fileURLToPath(new URL('../../drizzle', import.meta.url));

/**
 * Opens (creating if needed) the SQLite file and applies pending migrations. WAL lets `status` read
 * while a worker writes; the busy timeout makes concurrent writers (two workers, `poll --once` beside
 * `start`) wait for each other instead of failing.
 */
export function openStore(path: string): Store {
  let client: Database.Database;
  const created = path !== ':memory:' && !existsSync(path);
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    client = new Database(path);
    // First: switching a new file to WAL takes an exclusive lock, which another process opening the same
    // file at the same moment must wait for rather than fail on.
    client.pragma('busy_timeout = 5000');
    // Lets the prune give deleted rows' space back in short steps (store/reclaim.ts). It takes effect
    // only on a database without tables, so before WAL mode writes the first page; an older database
    // keeps auto_vacuum=NONE until `reviewwatch prune --vacuum`.
    client.pragma('auto_vacuum = INCREMENTAL');
    client.pragma('journal_mode = WAL');
    client.pragma('synchronous = NORMAL');
    client.pragma('foreign_keys = ON');
  } catch (err) {
    throw new ReviewwatchError(
      `Cannot open the database at ${path}: ${errorMessage(err)} (set DATABASE_PATH).`,
      {
        cause: err,
        exitCode: ExitCode.Unavailable,
      },
    );
  }
  const db = drizzle({ client, schema });
  try {
    // Not drizzle's migrate(): two processes opening a new or older file at once must not both migrate it.
    migrateSerialized(client, MIGRATIONS);
  } catch (err) {
    client.close();
    throw new ReviewwatchError(`Cannot migrate the database at ${path}: ${errorMessage(err)}`, {
      cause: err,
      exitCode: ExitCode.Unavailable,
    });
  }
  return {
    db,
    path,
    created,
    writes: new WriteBatch(client),
    close: () => {
      if (client.open) client.close();
    },
  };
}
