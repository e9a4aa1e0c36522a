import type { StoreDb } from './db.js';
import type { PollRunRow } from './schema.js';
import { statements } from './statements.js';

/** A run: a regular poll's unless `kind` says otherwise (reconciliations record theirs with store/reconcile.ts). */
export type NewPollRun = Omit<PollRunRow, 'id' | 'capped' | 'error' | 'kind'> &
  Partial<Pick<PollRunRow, 'capped' | 'error' | 'kind'>>;

export function insertPollRun(db: StoreDb, run: NewPollRun): number {
  const row = statements(db).insertPollRun.get({
    ...run,
    capped: run.capped ?? false,
    error: run.error ?? null,
    kind: run.kind ?? 'poll',
  });
  if (!row) throw new Error('inserting a poll run returned nothing');
  return row.id;
}

export function setPollRunCounts(db: StoreDb, id: number, newReviews: number, editedReviews: number): void {
  statements(db).setPollRunCounts.run({ id, newReviews, editedReviews });
}
