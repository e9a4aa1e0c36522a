import { and, eq, lt, or } from 'drizzle-orm';
import type { Db } from './db.js';
import { type DigestRunRow, digestRuns } from './schema.js';

/** A claim older than this belongs to a worker that died mid-send: another may take it over. */
const STALE_CLAIM_MS = 10 * 60_000;

/**
 * Claims the right to send one period's digest to one channel. The unique (period, channel) key makes
 * exactly one claimant win, across workers and restarts; a failed or abandoned claim can be retaken.
 */
export function claimDigest(
  db: Db,
  run: { periodStart: string; periodEnd: string; channel: string },
  now: Date,
): 'claimed' | 'sent' | 'busy' {
  return db.transaction(
    (tx) => {
      const inserted = tx
        .insert(digestRuns)
        .values({ ...run, status: 'claimed', claimedAt: now })
        .onConflictDoNothing()
        .returning({ id: digestRuns.id })
        .get();
      if (inserted) return 'claimed';
      const retaken = tx
        .update(digestRuns)
        .set({ status: 'claimed', claimedAt: now, error: null })
        .where(
          and(
            eq(digestRuns.periodStart, run.periodStart),
            eq(digestRuns.channel, run.channel),
            or(
              eq(digestRuns.status, 'failed'),
              and(
                eq(digestRuns.status, 'claimed'),
                lt(digestRuns.claimedAt, new Date(now.getTime() - STALE_CLAIM_MS)),
              ),
            ),
          ),
        )
        .run();
      if (retaken.changes > 0) return 'claimed';
      const existing = tx
        .select({ status: digestRuns.status })
        .from(digestRuns)
        .where(and(eq(digestRuns.periodStart, run.periodStart), eq(digestRuns.channel, run.channel)))
        .get();
      return existing?.status === 'sent' ? 'sent' : 'busy';
    },
    { behavior: 'immediate' },
  );
}

export function finishDigest(
  db: Db,
  run: { periodStart: string; channel: string },
  outcome: { sentAt: Date; subject: string } | { error: string },
): void {
  db.update(digestRuns)
    .set('error' in outcome ? { status: 'failed', error: outcome.error } : { status: 'sent', ...outcome })
    .where(and(eq(digestRuns.periodStart, run.periodStart), eq(digestRuns.channel, run.channel)))
    .run();
}

export function digestRunsOf(db: Db, periodStart: string): DigestRunRow[] {
  return db.select().from(digestRuns).where(eq(digestRuns.periodStart, periodStart)).all();
}
