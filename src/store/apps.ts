import { eq } from 'drizzle-orm';
import type { Db, StoreDb } from './db.js';
import { type AppRow, apps } from './schema.js';
import { statements } from './statements.js';

export function ensureApp(db: StoreDb, handle: string): AppRow {
  const { app, insertApp } = statements(db);
  const existing = app.get({ handle });
  if (existing) return existing;
  insertApp.run({ handle });
  return app.get({ handle }) as AppRow;
}

export function getApp(db: StoreDb, handle: string): AppRow | undefined {
  return statements(db).app.get({ handle });
}

export function listApps(db: Db): AppRow[] {
  return db.select().from(apps).orderBy(apps.handle).all();
}

export function updateApp(db: Db, handle: string, values: Partial<Omit<AppRow, 'handle'>>): void {
  db.update(apps).set(values).where(eq(apps.handle, handle)).run();
}

/** After a successful poll: clears a past error or unavailability; the baseline time is set only once. */
export function recordPollSuccess(
  db: StoreDb,
  handle: string,
  status: 'ok' | 'baseline',
  at: Date,
  title: string | undefined,
): void {
  statements(db).pollSucceeded.run({
    handle,
    status,
    atMs: at.getTime(),
    baselineAtMs: status === 'baseline' ? at.getTime() : null,
    title: title || null,
  });
}
