/**
 * Named users of the inbox: what `reviewwatch user add|list|remove` and the login form do, with the
 * rules a name, an email and a password must follow.
 */
import { ExitCode, ReviewwatchError } from '../errors.js';
import type { Store } from '../store/db.js';
import { deleteUser, insertUser, listUsers, type UserInfo, userByName } from '../store/users.js';
import {
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  verifyNothing,
  verifyPassword,
} from './passwords.js';

/**
 * Lower-case letters, digits, `.`, `_` and `-`, starting with a letter or digit: safe in a URL, a log
 * line and the audit trail, and never confused with `@token` or `@system`.
 */
export const USER_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const EMAIL_PATTERN = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

export class UserError extends ReviewwatchError {
  constructor(message: string) {
    super(message, { exitCode: ExitCode.Usage });
  }
}

export function checkUserName(name: string): string {
  if (!USER_NAME_PATTERN.test(name)) {
    throw new UserError(
      `"${name.slice(0, 70)}" is not a user name: 1 to 64 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  return name;
}

export function checkPassword(password: string): string {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new UserError(`the password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw new UserError(`the password must be at most ${MAX_PASSWORD_LENGTH} characters`);
  }
  return password;
}

export async function addUser(
  store: Store,
  input: { name: string; email?: string | undefined; password: string },
  at: Date = new Date(),
): Promise<UserInfo> {
  const name = checkUserName(input.name);
  const email = input.email?.trim() || null;
  if (email !== null && (email.length > 254 || !EMAIL_PATTERN.test(email))) {
    throw new UserError(`"${email.slice(0, 70)}" is not an email address`);
  }
  checkPassword(input.password);
  if (userByName(store.db, name)) throw new UserError(`a user named "${name}" exists already`);
  const passwordHash = await hashPassword(input.password);
  const user = insertUser(store.db, { name, email, passwordHash, createdAt: at });
  // Taken while the hash was computed, by another `user add`.
  if (!user) throw new UserError(`a user named "${name}" exists already`);
  return user;
}

export function usersOf(store: Store): UserInfo[] {
  return listUsers(store.db);
}

export function removeUser(store: Store, name: string): void {
  if (!deleteUser(store.db, name)) throw new UserError(`no user named "${name}"`);
}

/** The user if the password is theirs; undefined otherwise, in about the same time either way. */
export async function checkLogin(
  store: Store,
  name: string,
  password: string,
): Promise<{ id: number; name: string } | undefined> {
  const user = USER_NAME_PATTERN.test(name) ? userByName(store.db, name) : undefined;
  if (!user) return verifyNothing(password).then(() => undefined);
  return (await verifyPassword(password, user.passwordHash)) ? { id: user.id, name: user.name } : undefined;
}
