import type Database from 'better-sqlite3';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/**
 * Group commit: write transactions asked for in the same turn of the event loop run together, in one
 * SQLite transaction, each in its own savepoint. A commit (the WAL append) costs a quiet poll more than
 * all its statements together, so sixteen concurrent polls pay for one instead of sixteen.
 *
 * Each piece of work stays atomic on its own: one that throws is rolled back to its savepoint and only its
 * caller sees the error. Some errors (a full disk, I/O, SQLITE_BUSY) make SQLite roll back the whole
 * transaction instead: then, as when the commit itself fails, every caller of the batch gets that error
 * and nothing of the batch is written. Work is synchronous: a caller's promise settles after the commit.
 */
export class WriteBatch {
  readonly #client: Database.Database;
  #pending: Pending[] = [];

  constructor(client: Database.Database) {
    this.#client = client;
  }

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.#pending.length === 1) setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    const batch = this.#pending;
    this.#pending = [];
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.#client
        .transaction(() => {
          for (const { work } of batch) {
            try {
              // Inside a transaction, better-sqlite3 runs a nested one as a savepoint.
              outcomes.push({ ok: true, value: this.#client.transaction(work)() });
            } catch (error) {
              // SQLite rolled back everything: the work before is gone and the work after must not run
              // outside the batch, so the whole batch fails with this error.
              if (!this.#client.inTransaction) throw error;
              outcomes.push({ ok: false, error });
            }
          }
        })
        .immediate();
    } catch (error) {
      for (const { reject } of batch) reject(error);
      return;
    }
    batch.forEach(({ resolve, reject }, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) resolve(outcome.value);
      else reject(outcome?.error);
    });
  }
}
