/**
 * Failed logins, counted per user name and per client address over a sliding window. Past the limit the
 * login form answers 429 without checking the password, so guessing costs the guesser time, not us CPU.
 * Kept in memory: a restart forgets the count, which is fine for slowing a guesser to a few tries a minute.
 */

export interface LoginLimits {
  /** Failures of one user name within the window before it is refused. */
  perName: number;
  /** Failures from one address within the window (several names from behind one proxy count together). */
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { perName: 5, perAddress: 20, windowMs: 15 * 60_000 };

/** Keys past this many are dropped oldest first: a flood of made-up names cannot fill the memory. */
const MAX_KEYS = 10_000;

export class LoginThrottle {
  readonly #limits: LoginLimits;
  readonly #failures = new Map<string, number[]>();

  constructor(limits: LoginLimits = DEFAULT_LOGIN_LIMITS) {
    this.#limits = limits;
  }

  /** 0 when a login may be tried now, else how many ms until it may. */
  retryAfterMs(name: string, address: string, now: number): number {
    return Math.max(
      this.#wait(`name:${name}`, this.#limits.perName, now),
      this.#wait(`address:${address}`, this.#limits.perAddress, now),
    );
  }

  failed(name: string, address: string, now: number): void {
    for (const key of [`name:${name}`, `address:${address}`]) {
      const times = this.#recent(key, now);
      times.push(now);
      this.#failures.delete(key);
      this.#failures.set(key, times);
    }
    while (this.#failures.size > MAX_KEYS) {
      const oldest = this.#failures.keys().next().value;
      if (oldest === undefined) break;
      this.#failures.delete(oldest);
    }
  }

  /** A successful login clears its name's failures (not its address's: others may share it). */
  succeeded(name: string): void {
    this.#failures.delete(`name:${name}`);
  }

  #recent(key: string, now: number): number[] {
    return (this.#failures.get(key) ?? []).filter((t) => now - t < this.#limits.windowMs);
  }

  #wait(key: string, limit: number, now: number): number {
    const times = this.#recent(key, now);
    if (times.length < limit) return 0;
    const oldestCounted = times[times.length - limit] ?? now;
    return Math.max(1, oldestCounted + this.#limits.windowMs - now);
  }
}
