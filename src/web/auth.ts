/**
 * Who is asking. Browsers carry a session cookie (a random 256-bit token; the store keeps only its
 * SHA-256, so a copy of the database opens no session); scripts send `Authorization: Bearer` with
 * REVIEWWATCH_ADMIN_TOKEN. A cookie is sent by the browser on its own, so every state-changing request
 * made with one must also carry the session's CSRF token; a bearer header is never sent on its own, so
 * it needs none.
 *
 * The cookie is an opaque token looked up server-side rather than a signed value: a server-side session
 * can be ended (logout, `user remove`), and no signing key has to be kept anywhere.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { parse } from 'cookie';
import type { Store } from '../store/db.js';
import { TOKEN_ACTOR } from '../store/triage.js';
import { deleteExpiredSessions, deleteSession, insertSession, liveSession } from '../store/users.js';

/**
 * Credentials that open the inbox, its API, the metrics and Bull Board to scripts (and basic auth to
 * browsers), read from the environment by settings.ts and checked by the ops server and the inbox.
 */
export interface AdminCredentials {
  /** REVIEWWATCH_ADMIN_TOKEN: `Authorization: Bearer <token>`, or basic auth with it as password. */
  token?: string;
  /** REVIEWWATCH_ADMIN_USER and REVIEWWATCH_ADMIN_PASSWORD together. */
  basic?: { user: string; password: string };
  /** A half-set pair, said once in the log rather than silently ignored. */
  problem?: string;
}

export type Principal =
  | { kind: 'user'; name: string; csrfToken: string; tokenHash: string }
  | { kind: 'token' };

/** The name the audit trail records for what this principal changes. */
export function actorOf(principal: Principal): string {
  return principal.kind === 'user' ? principal.name : TOKEN_ACTOR;
}

/** The user's name, for the Mine view; undefined for the admin token or nobody. */
export function userNameOf(principal: Principal | undefined): string | undefined {
  return principal?.kind === 'user' ? principal.name : undefined;
}

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** Constant-time comparison; hashing first makes the lengths equal without revealing them. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(
    createHash('sha256').update(given).digest(),
    createHash('sha256').update(expected).digest(),
  );
}

/** A cookie of the request (the first, if a name is sent twice), parsed by the `cookie` package. */
export function readCookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  return header ? parse(header)[name] : undefined;
}

export interface CookieOptions {
  maxAgeSeconds: number;
  path?: string;
  sameSite?: 'Lax' | 'Strict';
}

export interface SessionOptions {
  ttlMs: number;
  /** Set when the inbox is served over https (web.publicUrl): then the cookie is Secure, `__Host-` named. */
  secure: boolean;
  now: () => Date;
}

/** Deleting expired rows at most this often, on the way past: no timer to own. */
const SWEEP_EVERY_MS = 10 * 60_000;

export class Sessions {
  readonly #store: Store;
  readonly #options: SessionOptions;
  readonly cookieName: string;
  #lastSweep = 0;

  constructor(store: Store, options: SessionOptions) {
    this.#store = store;
    this.#options = options;
    // The prefix makes browsers refuse the cookie unless it is Secure, host-only and for the whole site.
    this.cookieName = options.secure ? '__Host-rw_session' : 'rw_session';
  }

  /**
   * A Set-Cookie value, written here rather than by `cookie.serialize`: the values are our own base64url
   * tokens and the attributes fixed, so there is nothing to check, and they keep the order the docs and
   * tests show (`…; HttpOnly; SameSite=Lax; Secure`; `serialize` puts `Secure` before `SameSite`).
   */
  cookie(name: string, value: string, options: CookieOptions): string {
    return [
      `${name}=${encodeURIComponent(value)}`,
      `Path=${options.path ?? '/'}`,
      `Max-Age=${options.maxAgeSeconds}`,
      'HttpOnly',
      `SameSite=${options.sameSite ?? 'Lax'}`,
      ...(this.#options.secure ? ['Secure'] : []),
    ].join('; ');
  }

  /** Starts a session; returns the Set-Cookie value. */
  start(userId: number): string {
    const token = randomToken();
    const now = this.#options.now();
    this.#sweep(now);
    insertSession(this.#store.db, {
      tokenHash: sha256(token),
      userId,
      csrfToken: randomToken(),
      createdAt: now,
      expiresAt: new Date(now.getTime() + this.#options.ttlMs),
    });
    return this.cookie(this.cookieName, token, { maxAgeSeconds: Math.floor(this.#options.ttlMs / 1000) });
  }

  /** The session user of a request, if its cookie names a live session. */
  principalOf(req: IncomingMessage): Principal | undefined {
    const token = readCookie(req, this.cookieName);
    if (!token) return undefined;
    const tokenHash = sha256(token);
    const session = liveSession(this.#store.db, tokenHash, this.#options.now());
    if (!session) return undefined;
    return { kind: 'user', name: session.user.name, csrfToken: session.csrfToken, tokenHash };
  }

  end(principal: Principal): string {
    if (principal.kind === 'user') deleteSession(this.#store.db, principal.tokenHash);
    return this.cookie(this.cookieName, '', { maxAgeSeconds: 0 });
  }

  #sweep(now: Date): void {
    if (now.getTime() - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = now.getTime();
    deleteExpiredSessions(this.#store.db, now);
  }
}

/** Whether the request carries `Authorization: Bearer <token>` with this token. */
export function bearerMatches(req: IncomingMessage, token: string | undefined): boolean {
  if (!token) return false;
  const header = req.headers.authorization;
  if (!header) return false;
  // Exactly "Bearer <token>": anything after the token is not part of a credential we issued.
  const match = /^bearer +(\S+) *$/i.exec(header);
  return match?.[1] !== undefined && sameSecret(match[1], token);
}

/**
 * A state-changing request from another site: `Sec-Fetch-Site` (every current browser sends it) or, when
 * absent, an `Origin` naming another host than the one asked or the public URL's. A request with neither
 * (curl, an old browser) passes this check: the CSRF token is what protects it.
 */
export function crossSite(req: IncomingMessage, publicUrl: string | undefined): boolean {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  if (!origin) return false;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return true;
  }
  const allowed = [req.headers.host, publicUrl ? new URL(publicUrl).host : undefined];
  return !allowed.includes(host);
}
