/**
 * Deleting many rows beside a running worker: by id, a batch of ids per statement, as many statements per
 * write transaction as fit in `maxLockMs`, yielding to the event loop between transactions. better-sqlite3
 * is synchronous and `start`'s polls share the database (and, in `start`, the connection), so no prune
 * may hold the write lock for long. The daily prune's passes (retention.ts) and the market's
 * (market/retention.ts) delete through it; what each keeps is their business.
 */
import type Database from 'better-sqlite3';
import type { RunResult } from 'better-sqlite3';

/** Where and how a prune deletes; every pass of one prune shares it. */
export interface BatchedDelete {
  client: Database.Database;
  /** Read the same rows, delete nothing. */
  dryRun: boolean;
  /** Ids per delete statement (and rows per page read). */
  batchRows: number;
  /** A write transaction takes more statements while it has held the lock for less than this. */
  maxLockMs: number;
}

/** Deletes decided rows once this many have gathered: fewer, longer runs of neighbouring ids. */
export const DELETE_RUN = 20_000;

export const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs `work` as one write transaction; in a dry run, as plain reads. */
export function write(batch: BatchedDelete, work: () => void): void {
  if (batch.dryRun) work();
  else batch.client.transaction(work).immediate();
}

/**
 * Runs `each` over `ids`, `batchRows` at a time, as many chunks per transaction as fit in `maxLockMs` (at
 * least one), yielding between transactions. Returns the sum of what `each` returned (rows it changed).
 */
export async function inBatches(
  batch: BatchedDelete,
  ids: readonly number[],
  each: (chunk: number[]) => number,
): Promise<number> {
  let changed = 0;
  let at = 0;
  while (at < ids.length) {
    const lockedAt = performance.now();
    batch.client
      .transaction(() => {
        do {
          const chunk = ids.slice(at, at + batch.batchRows);
          at += chunk.length;
          changed += each(chunk);
        } while (at < ids.length && performance.now() - lockedAt < batch.maxLockMs);
      })
      .immediate();
    await yieldNow();
  }
  return changed;
}

/** A statement that deletes the rows whose ids the JSON array `ids` holds. */
export interface DeleteByIds {
  run(values: { ids: string }): RunResult;
}

/** Deletes rows by id in batches (inBatches). Returns the rows deleted. */
export function deleteByIds(batch: BatchedDelete, statement: DeleteByIds, ids: readonly number[]) {
  return inBatches(batch, ids, (chunk) => statement.run({ ids: JSON.stringify(chunk) }).changes);
}

/**
 * Ids decided on while a pass reads, deleted (in id order) once `least` of them have gathered: `add`
 * while reading, `flush(DELETE_RUN)` between pages, `flush(0)` at the end. `deleted` hears each count.
 */
export function pendingDeletes(
  batch: BatchedDelete,
  statement: DeleteByIds,
  deleted: (rows: number) => void,
): { add(id: number): void; flush(least: number): Promise<void> } {
  let doomed: number[] = [];
  return {
    add: (id) => {
      doomed.push(id);
    },
    flush: async (least) => {
      if (doomed.length === 0 || doomed.length < least) return;
      const ids = doomed.sort((a, b) => a - b);
      doomed = [];
      deleted(await deleteByIds(batch, statement, ids));
    },
  };
}

/**
 * The id range to read for rows older than `before`: from the first id to the first one written at or
 * after `before` plus `marginMs`, found by bisection (ids follow time closely, not exactly; a row written
 * far out of order is only left for a later prune).
 */
export function idRange(
  reads: {
    bounds: { get(): { first: number | null; last: number | null } | undefined };
    timeAt: { get(values: { id: number }): { id: number; at: Date } | undefined };
  },
  before: number,
  marginMs: number,
): { first: number; last: number } | undefined {
  const { bounds, timeAt } = reads;
  const { first, last } = bounds.get() ?? { first: null, last: null };
  if (first === null || last === null) return undefined;
  const stop = before + marginMs;
  let lo = first;
  let hi = last + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const row = timeAt.get({ id: mid });
    if (row === undefined || row.at.getTime() >= stop) hi = mid;
    else lo = row.id + 1;
  }
  return { first, last: lo - 1 };
}

/**
 * Reads `[id, ...]` rows of an id range in pages of `batchRows`, in id order, reporting progress by id
 * and calling `afterPage` (which may write) between pages.
 */
export async function readRange<R extends [number, ...unknown[]]>(
  batch: BatchedDelete,
  range: { first: number; last: number },
  steps: {
    read: (after: number) => R[];
    each: (row: R) => void;
    afterPage: () => Promise<void>;
    progress: (done: number, total: number) => void;
  },
): Promise<void> {
  let after = range.first - 1;
  for (;;) {
    const rows = steps.read(after);
    for (const row of rows) steps.each(row);
    const last = rows.at(-1);
    const done = !last || rows.length < batch.batchRows;
    steps.progress((done ? range.last : last[0]) - range.first + 1, range.last - range.first + 1);
    if (done) return;
    after = last[0];
    await steps.afterPage();
    await yieldNow();
  }
}

/** A set of positive integers up to a known bound, in one bit each. */
export class IdSet {
  readonly #bits: Uint8Array;
  constructor(max: number) {
    this.#bits = new Uint8Array((max >> 3) + 1);
  }
  add(id: number): void {
    this.#bits[id >> 3] = (this.#bits[id >> 3] ?? 0) | (1 << (id & 7));
  }
  has(id: number): boolean {
    return ((this.#bits[id >> 3] ?? 0) & (1 << (id & 7))) !== 0;
  }
}
