/** An app's listing changes as the pages, the JSON API and the CLI show them: one line each, by version. */
import { type ChangeTone, changeTone, describeChange } from '../../market/change-text.js';
import type { ListingChange } from '../../market/listing.js';
import type { Db } from '../../store/db.js';
import { listingChangesOf, listingKnown } from '../../store/market/listings.js';
import type { ListingChangeRow } from '../../store/schema.js';
import type { MarketViewInput } from './input.js';

export interface ChangeSummary {
  id: number;
  at: Date;
  field: string;
  kind: string;
  /** One line of plain text (market/change-text.ts); untrusted parts are quoted, not escaped. */
  text: string;
  tone: ChangeTone;
  alerted: boolean;
}

export function changeSummary(row: ListingChangeRow): ChangeSummary {
  const change = row.change as ListingChange;
  return {
    id: row.id,
    at: row.at,
    field: row.field,
    kind: String(change.kind ?? row.field),
    text: describeChange(change),
    tone: changeTone(change),
    alerted: row.alerted,
  };
}

/** Whether an app is watched or its listing was ever read: the changes of anything else are a 404. */
export function listingAppKnown(db: Db, input: MarketViewInput, handle: string): boolean {
  return input.apps.some((a) => a.handle === handle) || listingKnown(db, handle);
}

export interface ListingVersionChanges {
  /** The listing version the changes made (listing_versions.id). */
  versionId: number;
  at: Date;
  /** In the order the diff gave them. */
  changes: ChangeSummary[];
  /** The stored changes themselves (ListingChange as JSON), for the field diffs. */
  rows: ListingChangeRow[];
}

export interface ListingTimeline {
  /** Newest first, at most the number of versions asked for. */
  versions: ListingVersionChanges[];
  /** The cursor of the next (older) page, when there is one: a version id. */
  next: number | undefined;
}

/** An app's listing changes, `versions` versions at a time, newest first, older than `beforeVersion`. */
export function listingTimeline(
  db: Db,
  handle: string,
  options: { versions: number; beforeVersion?: number },
): ListingTimeline {
  const byVersion = new Map<number, ListingVersionChanges>();
  for (const row of listingChangesOf(db, handle, options)) {
    let version = byVersion.get(row.versionId);
    if (!version) {
      version = { versionId: row.versionId, at: row.at, changes: [], rows: [] };
      byVersion.set(row.versionId, version);
    }
    version.changes.push(changeSummary(row));
    version.rows.push(row);
  }
  const all = [...byVersion.values()];
  const page = all.slice(0, options.versions);
  return {
    versions: page,
    next: all.length > options.versions ? page[page.length - 1]?.versionId : undefined,
  };
}
