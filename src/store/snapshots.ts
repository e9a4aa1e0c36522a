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
  statements(db).insertSnapshot.run({
    appHandle: handle,
    takenAt: at,
    average: summary.average,
    count: summary.count,
    stars1: d[1],
    stars2: d[2],
    stars3: d[3],
    stars4: d[4],
    stars5: d[5],
    pollRunId,
  });
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
