/**
 * Which part of a period reviewwatch watched. It starts watching an app with the app's first successful
 * (baseline) poll: before that it recorded no rating, and no digest of a week before installation is
 * worth sending.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { DateTime } from 'luxon';
import type { Db } from '../store/db.js';
import { apps, pollRuns } from '../store/schema.js';
import type { DigestPeriod } from './period.js';
import type { Coverage } from './types.js';

/**
 * The first successful poll of any of these apps; null when none has had one. `apps.baseline_at` is
 * the record (poll runs are pruned); a successful poll run stands in for an app without one.
 */
export function watchedSince(db: Db, handles: readonly string[]): Date | null {
  if (handles.length === 0) return null;
  // The subquery runs only for an app with no baseline time, and reads that app's runs by the index.
  const firstRun = db
    .select({ at: sql`min(${pollRuns.finishedAt})` })
    .from(pollRuns)
    .where(and(eq(pollRuns.appHandle, apps.handle), inArray(pollRuns.status, ['ok', 'baseline'])));
  const row = db
    .select({ at: sql<number | null>`min(coalesce(${apps.baselineAt}, (${firstRun})))` })
    .from(apps)
    .where(inArray(apps.handle, [...handles]))
    .get();
  return row?.at == null ? null : new Date(row.at);
}

/** How much of `period` was watched by someone who started at `since` (null: has not started). */
export function coverageOf(period: DigestPeriod, since: Date | null): Coverage {
  if (since === null || since.getTime() >= period.end.getTime()) return { kind: 'none', watchedSince: since };
  if (since.getTime() <= period.start.getTime()) return { kind: 'full' };
  // Calendar days, so a week across a DST change still counts 7; the first day counts whole.
  const firstDay = DateTime.fromJSDate(since, { zone: period.timezone }).startOf('day');
  const end = DateTime.fromJSDate(period.end, { zone: period.timezone });
  const days = Math.max(1, Math.ceil(end.diff(firstDay, 'days').days - 1e-9));
  return { kind: 'partial', watchedSince: since, days };
}
