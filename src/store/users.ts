/**
 * People who may open the inbox, and their browser sessions. Passwords arrive here already hashed
 * (web/passwords.ts) and session tokens as their SHA-256: the store never holds a secret that works.
 */
import { asc, eq, lte } from 'drizzle-orm';
import type { Db, StoreDb } from './db.js';
import { type UserRow, users, webSessions } from './schema.js';

export type { UserRow } from './schema.js';

/** A user as listed: everything but the hash. */
export type UserInfo = Omit<UserRow, 'passwordHash'>;

/** Inserts a user; returns undefined when the name is taken. */
export function insertUser(
  db: Db,
  user: { name: string; email: string | null; passwordHash: string; createdAt: Date },
): UserInfo | undefined {
  return db
    .insert(users)
    .values(user)
    .onConflictDoNothing()
    .returning({ id: users.id, name: users.name, email: users.email, createdAt: users.createdAt })
    .get();
}

export function userByName(db: Db, name: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.name, name)).get();
}

export function listUsers(db: Db): UserInfo[] {
  return db
    .select({ id: users.id, name: users.name, email: users.email, createdAt: users.createdAt })
    .from(users)
    .orderBy(asc(users.name))
    .all();
}

/**
 * Removes a user and ends their sessions; the reviews they triaged keep their name in the audit trail and
 * as assignee. Returns false when there is no such user.
 */
export function deleteUser(db: StoreDb, name: string): boolean {
  return db.$client
    .transaction(() => {
      const user = userByName(db, name);
      if (!user) return false;
      db.delete(webSessions).where(eq(webSessions.userId, user.id)).run();
      db.delete(users).where(eq(users.id, user.id)).run();
      return true;
    })
    .immediate();
}

export interface SessionRecord {
  tokenHash: string;
  userId: number;
  csrfToken: string;
  createdAt: Date;
  expiresAt: Date;
}

export function insertSession(db: Db, session: SessionRecord): void {
  db.insert(webSessions).values(session).run();
}

export interface LiveSession {
  id: number;
  csrfToken: string;
  expiresAt: Date;
  user: { id: number; name: string };
}

/** The session with this token hash if it has not expired by `now`. */
export function liveSession(db: Db, tokenHash: string, now: Date): LiveSession | undefined {
  const row = db
    .select({
      id: webSessions.id,
      csrfToken: webSessions.csrfToken,
      expiresAt: webSessions.expiresAt,
      userId: users.id,
      userName: users.name,
    })
    .from(webSessions)
    .innerJoin(users, eq(users.id, webSessions.userId))
    .where(eq(webSessions.tokenHash, tokenHash))
    .get();
  if (!row || row.expiresAt.getTime() <= now.getTime()) return undefined;
  return {
    id: row.id,
    csrfToken: row.csrfToken,
    expiresAt: row.expiresAt,
    user: { id: row.userId, name: row.userName },
  };
}

export function deleteSession(db: Db, tokenHash: string): void {
  db.delete(webSessions).where(eq(webSessions.tokenHash, tokenHash)).run();
}

/** Deletes the sessions expired by `now`; returns how many. */
export function deleteExpiredSessions(db: Db, now: Date): number {
  return db.delete(webSessions).where(lte(webSessions.expiresAt, now)).run().changes;
}
