/** Databases as an older release left them, for the tests of the migrations that upgrade them. */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';

/** The migrations folder as it was before `tag` (and everything after it), copied into `dir`. */
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

/** A database file in `dir` migrated up to just before `tag`, open: the schema the release before left. */
export function databaseBefore(dir: string, tag: string): { path: string; old: Database.Database } {
  const path = join(dir, 'old.db');
  const old = new Database(path);
  migrate(drizzle({ client: old }), { migrationsFolder: migrationsBefore(dir, tag) });
  return { path, old };
}
