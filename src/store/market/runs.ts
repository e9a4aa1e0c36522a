/**
 * The market reads' runs: one row per category snapshot, listing read or developer read, whatever came of
 * it. When each subject was last read comes from here, never from Redis, so a flushed Redis loses no
 * schedule; `status` and the credit plan count the requests they spent.
 */
import { and, eq, gte, max, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import { marketRuns } from '../schema.js';

export type MarketRunKind = 'category' | 'listing' | 'developer';

export type MarketRunStatus = 'ok' | 'failed' | 'unavailable';

/**
 * When each subject of a kind was last read (a run started, whatever came of it), from SQLite: the
 * market schedule's "last done", so a flushed Redis loses nothing and repeats nothing.
 */
export function lastMarketRuns(db: Db, kind: MarketRunKind): Map<string, number> {
  return new Map(
    db
      .select({ subject: marketRuns.subject, at: max(marketRuns.startedAt) })
      .from(marketRuns)
      .where(eq(marketRuns.kind, kind))
      .groupBy(marketRuns.subject)
      .all()
      .flatMap((row) => (row.at ? [[row.subject, row.at.getTime()] as const] : [])),
  );
}

/** When a subject's last successful read of a kind started, if it ever had one. */
export function lastOkMarketRun(db: Db, kind: MarketRunKind, subject: string): Date | undefined {
  const row = db
    .select({ at: max(marketRuns.startedAt) })
    .from(marketRuns)
    .where(and(eq(marketRuns.kind, kind), eq(marketRuns.subject, subject), eq(marketRuns.status, 'ok')))
    .get();
  return row?.at ?? undefined;
}

export function insertMarketRun(
  db: Db,
  run: {
    kind: MarketRunKind;
    subject: string;
    startedAt: Date;
    finishedAt: Date;
    status: MarketRunStatus;
    requests: number;
    error?: string;
  },
): void {
  db.insert(marketRuns)
    .values({ ...run, error: run.error ?? null })
    .run();
}

/** Catalog requests the market reads spent since `since`, by kind: for `status` and the credit plan. */
export function marketRequestsSince(db: Db, since: Date): Record<MarketRunKind, number> {
  const totals: Record<MarketRunKind, number> = { category: 0, listing: 0, developer: 0 };
  const rows = db
    .select({ kind: marketRuns.kind, n: sql<number>`sum(${marketRuns.requests})` })
    .from(marketRuns)
    .where(gte(marketRuns.startedAt, since))
    .groupBy(marketRuns.kind)
    .all();
  for (const row of rows) totals[row.kind] = row.n ?? 0;
  return totals;
}
