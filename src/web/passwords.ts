/**
 * Password hashing with scrypt from node:crypto: memory-hard, built in, no native dependency. The stored
 * form names its parameters (`scrypt$N$r$p$salt$hash`), so they can be raised later and old hashes still
 * verify.
 */
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/** 2^15 × 8 × 128 bytes = 32 MiB per hash, about 50-100 ms: slow for a guesser, fine for a login. */
const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

export const MIN_PASSWORD_LENGTH = 12;
/** scrypt takes any length; a megabyte "password" would only be a way to burn CPU. */
export const MAX_PASSWORD_LENGTH = 1_024;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, N, R, P);
  return ['scrypt', N, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

/** False for a wrong password and for a hash this code did not write. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  if (!n || !r || !p || n > 2 ** 20 || r > 32 || p > 16) return false;
  const salt = Buffer.from(parts[4] ?? '', 'base64');
  const expected = Buffer.from(parts[5] ?? '', 'base64');
  if (expected.length !== KEY_LENGTH || password.length > MAX_PASSWORD_LENGTH) return false;
  const key = await derive(password, salt, n, r, p);
  return timingSafeEqual(key, expected);
}

let dummy: Promise<string> | undefined;

/**
 * Spends the time a real check takes, for a login naming no user: the answer's timing must not tell a
 * wrong name from a wrong password.
 */
export async function verifyNothing(password: string): Promise<false> {
  dummy ??= hashPassword('not a password of anyone');
  await verifyPassword(password, await dummy);
  return false;
}
