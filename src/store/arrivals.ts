/**
 * What the poll scheduler (schedule/) reads of each app's history: the dates of its newest reviews, when
 * its history starts, and when a poll last found an incident on it. One query for every watched app.
 *
 * Cheap at 10,000 apps: every part is an index range per app. The review dates come from the covering
 * index on (app_handle, created_at), newest first, at most `limit` per app, so a busy app costs no more
 * than a quiet one.
 * Poll runs are not read: the prune keeps them a week, while review dates go back as far as the baseline
 * read, and a review's date says when it arrived even when a poll found it late.
 */
import type Database from 'better-sqlite3';
import type { StoreDb } from './db.js';

export interface AppArrivals {
  handle: string;
  /** When the app's first poll completed; null if it never did. */
  baselineAt: number | null;
  /** The oldest review date stored for the app: its history starts there at the latest. */
  oldestCreatedAt: number | null;
  /** Review dates (epoch ms, as the API dates them: by the day) with how many reviews carry each, newest first. */
  days: Array<[number, number]>;
  /** `days` holds `limit` reviews: older ones exist, and its oldest date may be only partly counted. */
  truncated: boolean;
  /** No review dated before this was read. */
  since: number;
  /** When a poll last found an incident on the app (apps.last_incident_at); null if none ever did. */
  lastIncidentAt: number | null;
}

export interface ArrivalsQuery {
  /** Read no review dated before this. */
  since: number;
  /** Read at most this many of an app's newest reviews. */
  limit: number;
}

interface Row {
  handle: string;
  baselineAt: number | null;
  oldest: number | null;
  recent: string | null;
  lastIncident: number | null;
}

function build(client: Database.Database) {
  return client.prepare<{ handles: string; since: number; limit: number }, Row>(
    `select w.value as handle, a.baseline_at as baselineAt, a.last_incident_at as lastIncident,
       (select min(o.created_at) from reviews o where o.app_handle = w.value) as oldest,
       (select group_concat(d.created_at) from (
          select r.created_at from reviews r
          where r.app_handle = w.value and r.created_at >= @since
          order by r.created_at desc limit @limit) d) as recent
     from json_each(@handles) w left join apps a on a.handle = w.value`,
  );
}

const cache = new WeakMap<Database.Database, ReturnType<typeof build>>();

/** One entry per handle, in the order given, whether or not the app was ever polled. */
export function appArrivals(db: StoreDb, handles: readonly string[], query: ArrivalsQuery): AppArrivals[] {
  const client = db.$client;
  let statement = cache.get(client);
  if (!statement) {
    statement = build(client);
    cache.set(client, statement);
  }
  const rows = statement.all({
    handles: JSON.stringify(handles),
    since: query.since,
    limit: query.limit,
  });
  return rows.map((row) => {
    const dates = row.recent ? row.recent.split(',').map(Number) : [];
    return {
      handle: row.handle,
      baselineAt: row.baselineAt,
      oldestCreatedAt: row.oldest,
      days: countByDate(dates),
      truncated: dates.length >= query.limit,
      since: query.since,
      lastIncidentAt: row.lastIncident,
    };
  });
}

/** [date, count] newest first. */
function countByDate(dates: number[]): Array<[number, number]> {
  dates.sort((a, b) => b - a);
  const out: Array<[number, number]> = [];
  for (const date of dates) {
    const last = out[out.length - 1];
    if (last && last[0] === date) last[1]++;
    else out.push([date, 1]);
  }
  return out;
}
