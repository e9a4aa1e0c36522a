import { desc, eq } from 'drizzle-orm';
import type { RatingSummary } from '../catalog/index.js';
import type { Db, StoreDb } from './db.js';
import { type RatingSnapshotRow, ratingSnapshots } from './schema.js';
import { statements } from './statements.js';

export function insertSnapshot(
  db: StoreDb,
  handle: string,
  summary: RatingSummary,
  at: Date,
  pollRunId: number,
): void {
  const d = summary.distribution;
  statements(db).insertSnapshot.run(
    handle,
    at.getTime(),
    summary.average,
    summary.count,
    d[1],
    d[2],
    d[3],
    d[4],
    d[5],
    pollRunId,
  );
}

export function latestSnapshot(db: Db, handle: string): RatingSnapshotRow | undefined {
  return db
    .select()
    .from(ratingSnapshots)
    .where(eq(ratingSnapshots.appHandle, handle))
    .orderBy(desc(ratingSnapshots.takenAt), desc(ratingSnapshots.id))
    .limit(1)
    .get();
}
