/**
 * What an open page of the inbox asks every few seconds: has anything changed, how many reviews are open,
 * and what became of the reviews someone triaged. Each read is cut to what an index answers at once, since
 * every open tab asks (docs/inbox.md, "Live updates"; bench/live.ts measures it).
 */
import type { StoreDb } from './db.js';
import type { TriageStatus } from './schema.js';

/**
 * The store's progress as the inbox sees it: the newest review row, triage event and edit. Rows of all three
 * are only added (a reconciliation's merge deletes a duplicate, and changes the newest id with it), so any
 * change a page could show moves one of them. Three lookups of a primary key's last entry.
 */
export interface StoreMark {
  review: number;
  event: number;
  edit: number;
}

export function storeMark(db: StoreDb): StoreMark {
  const row = db.$client
    .prepare<[], StoreMark>(
      `select (select coalesce(max(id), 0) from reviews) as review,
        (select coalesce(max(id), 0) from triage_events) as event,
        (select coalesce(max(id), 0) from review_edits) as edit`,
    )
    .get();
  return row ?? { review: 0, event: 0, edit: 0 };
}

/** "12.40.3": a mark as one word, for an ETag. */
export function markText(mark: StoreMark): string {
  return `${mark.review}.${mark.event}.${mark.edit}`;
}

/** Which reviews count as open: low-rated (at most `maxRating` stars) reviews of these apps. */
export interface OpenScope {
  apps: readonly string[];
  maxRating: number;
}

/**
 * Low-rated reviews of the apps, whatever their status, among the rows with ids in (`after`, `upTo`]:
 * reads each of those rows, so the caller counts the whole store once and then only the rows added since
 * (`LiveState.open` in web/live.ts). The upper bound keeps two counts from both counting a row another
 * process commits in between.
 */
export function lowRatedCount(db: StoreDb, scope: OpenScope, range: { after: number; upTo: number }): number {
  if (scope.apps.length === 0 || range.upTo <= range.after) return 0;
  return (
    db.$client
      .prepare<[number, number, string, number], { n: number }>(
        `select count(*) as n from reviews
         where id > ? and id <= ? and app_handle in (select value from json_each(?)) and rating <= ?`,
      )
      .get(range.after, range.upTo, JSON.stringify(scope.apps), scope.maxRating)?.n ?? 0
  );
}

/** Of those, the ones resolved or ignored: from the triage rows, which people write, a few per review. */
export function closedCount(db: StoreDb, scope: OpenScope): number {
  if (scope.apps.length === 0) return 0;
  return (
    db.$client
      .prepare<[string, number], { n: number }>(
        `select count(*) as n from review_triage t cross join reviews r on r.id = t.review_row_id
         where t.status in ('resolved', 'ignored')
           and r.app_handle in (select value from json_each(?)) and r.rating <= ?`,
      )
      .get(JSON.stringify(scope.apps), scope.maxRating)?.n ?? 0
  );
}

export interface TriageNow {
  id: number;
  status: TriageStatus;
  assignee: string | null;
}

/**
 * The reviews triaged after the event `after` (their newest first, at most `limit`), as they stand now: what
 * an open list updates in place.
 */
export function triagedSince(db: StoreDb, after: number, limit: number): TriageNow[] {
  return db.$client
    .prepare<[number, number], TriageNow>(
      `select r.id as id, coalesce(t.status, 'new') as status, t.assignee as assignee
       from (select review_row_id as id, max(id) as last from triage_events where id > ?
             group by review_row_id order by last desc limit ?) e
       cross join reviews r on r.id = e.id
       left join review_triage t on t.review_row_id = r.id
       order by e.last desc`,
    )
    .all(after, limit);
}
