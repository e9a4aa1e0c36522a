import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertSession, liveSession } from '../../src/store/users.js';
import { hashPassword, verifyPassword } from '../../src/web/passwords.js';
import { addUser, checkLogin, removeUser, UserError, usersOf } from '../../src/web/users.js';
import { tempStore } from '../helpers/index.js';

let store: ReturnType<typeof tempStore>;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

const PASSWORD = 'correct horse battery';

describe('passwords', () => {
  it('are stored as salted scrypt hashes that verify only the same password', async () => {
    const a = await hashPassword(PASSWORD);
    const b = await hashPassword(PASSWORD);
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain(PASSWORD);
    expect(await verifyPassword(PASSWORD, a)).toBe(true);
    expect(await verifyPassword(`${PASSWORD} `, a)).toBe(false);
    expect(await verifyPassword(PASSWORD, 'plain')).toBe(false);
    expect(await verifyPassword(PASSWORD, 'scrypt$1048577$8$1$AAAA$AAAA')).toBe(false);
  });
});

describe('users', () => {
  it('are added with a hash, listed without it, and log in with their password only', async () => {
    await addUser(store, { name: 'ana', email: 'ana@example.com', password: PASSWORD });
    await addUser(store, { name: 'ben', password: 'another long one' });
    expect(usersOf(store).map((u) => [u.name, u.email])).toEqual([
      ['ana', 'ana@example.com'],
      ['ben', null],
    ]);
    expect(JSON.stringify(usersOf(store))).not.toContain('scrypt');
    const stored = store.db.$client
      .prepare("select password_hash as h from users where name = 'ana'")
      .get() as {
      h: string;
    };
    expect(stored.h).toMatch(/^scrypt\$/);
    expect(await checkLogin(store, 'ana', PASSWORD)).toMatchObject({ name: 'ana' });
    expect(await checkLogin(store, 'ana', 'another long one')).toBeUndefined();
    expect(await checkLogin(store, 'nobody', PASSWORD)).toBeUndefined();
    expect(await checkLogin(store, 'Bad Name', PASSWORD)).toBeUndefined();
  });

  it('refuses bad names, emails, short passwords and a taken name', async () => {
    await addUser(store, { name: 'ana', password: PASSWORD });
    for (const input of [
      { name: 'Ana', password: PASSWORD },
      { name: '@token', password: PASSWORD },
      { name: '<script>', password: PASSWORD },
      { name: 'x'.repeat(65), password: PASSWORD },
      { name: 'cy', email: 'not-an-email', password: PASSWORD },
      { name: 'cy', password: 'short' },
      { name: 'ana', password: PASSWORD },
    ]) {
      await expect(addUser(store, input)).rejects.toThrow(UserError);
    }
    expect(usersOf(store).map((u) => u.name)).toEqual(['ana']);
  });

  it('removed, lose their sessions and their login', async () => {
    const ana = await addUser(store, { name: 'ana', password: PASSWORD });
    const now = new Date();
    insertSession(store.db, {
      tokenHash: 'h',
      userId: ana.id,
      csrfToken: 'c',
      createdAt: now,
      expiresAt: new Date(now.getTime() + 60_000),
    });
    expect(liveSession(store.db, 'h', now)?.user.name).toBe('ana');
    expect(liveSession(store.db, 'h', new Date(now.getTime() + 60_000))).toBeUndefined();
    removeUser(store, 'ana');
    expect(liveSession(store.db, 'h', now)).toBeUndefined();
    expect(await checkLogin(store, 'ana', PASSWORD)).toBeUndefined();
    expect(() => removeUser(store, 'ana')).toThrow(UserError);
  });
});
