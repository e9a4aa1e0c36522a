/**
 * The review's fields, written down once: what a new row holds and how a listed review fills it, what an
 * edit brings up to date, the insert's bindings, the column sets reads select, and the fields the inbox
 * reads (with how its raw SQL rows become values). The table itself is drizzle's, in schema.ts; everything
 * here is derived from it where it can be, so a new column of `reviews` is added there, in `reviewRowOf`
 * (where its value comes from) and, if the inbox shows it, in `INBOX_FIELDS` (docs/architecture.md,
 * "Where to make a change").
 */
import { getTableColumns, type SQL } from 'drizzle-orm';
import { type FetchedReview, parseReviewDate } from '../catalog/index.js';
import { type Taxonomy, topicsOf } from '../topics/index.js';
import { rowBindings } from './prepared.js';
import { type ReviewRow, reviews } from './schema.js';

/** A column of the review's row, by its name in TypeScript. */
export type ReviewField = keyof ReviewRow;

/** The row a poll or a reconciliation writes for a review it stores: every column but the id and the removal. */
export type NewReview = Omit<ReviewRow, 'id' | 'removedAt'>;

const COLUMNS = getTableColumns(reviews);

/**
 * The insert's values: every column of NewReview bound to the placeholder of its own name, so a row binds
 * as it is (statements.ts prepares the insert once). Derived from the table: a new column binds with no
 * edit here. The store writes the row's id and the removal a reconciliation marks later on its own.
 */
export function reviewInsertBindings(): Record<keyof NewReview, SQL> {
  return rowBindings(reviews, ['id', 'removedAt']);
}

/** Drizzle's columns for these fields, keyed by their names: a read's select list. */
export function reviewColumns<const K extends ReviewField>(
  fields: readonly K[],
): { [F in K]: (typeof COLUMNS)[F] } {
  return Object.fromEntries(fields.map((field) => [field, COLUMNS[field]])) as {
    [F in K]: (typeof COLUMNS)[F];
  };
}

/**
 * What a listed review says of itself that an edit can change: the columns a poll writes on a new row and
 * brings up to date when the review is edited or refreshed (`changedColumns`). A column computed from the
 * review's text (its topics, say) belongs here, so an edit recomputes it.
 */
export type ReviewChange = Pick<
  NewReview,
  | 'appHandle'
  | 'identity'
  | 'reviewId'
  | 'fingerprint'
  | 'rating'
  | 'content'
  | 'createdDate'
  | 'createdAt'
  | 'topics'
  | 'topicsVersion'
>;

/**
 * What the review says now, its topics computed under `taxonomy` (the config's: built-in topics and the
 * `topics:` key), with the taxonomy's version so a later config change is noticed (store/topic-backfill.ts).
 */
export function reviewChangeOf(handle: string, review: FetchedReview, taxonomy: Taxonomy): ReviewChange {
  return {
    appHandle: handle,
    identity: review.identity,
    reviewId: review.reviewId,
    fingerprint: review.fingerprint,
    rating: review.rating,
    content: review.content,
    createdDate: review.createdDate,
    createdAt: parseReviewDate(review.createdDate),
    topics: topicsOf(review.content, taxonomy),
    topicsVersion: taxonomy.version,
  };
}

/** Where and when a review is stored, and whether as history (alerting on nothing). */
export interface StoredAs {
  /** The topics its text is read for. */
  taxonomy: Taxonomy;
  pollRunId: number;
  at: Date;
  /** History: a baseline's, or dated too long ago to alert on; given the review's parsed date. */
  fromBaseline: boolean | ((createdAt: Date | null) => boolean);
}

/** The new row of a review a poll or a reconciliation found listed and not stored. */
export function reviewRowOf(handle: string, review: FetchedReview, stored: StoredAs): NewReview {
  const change = reviewChangeOf(handle, review, stored.taxonomy);
  const { fromBaseline } = stored;
  return {
    ...change,
    reviewer: review.reviewer,
    location: review.location,
    timeUsingApp: review.timeUsingApp,
    appName: review.appName,
    appUrl: review.appUrl,
    fromBaseline: typeof fromBaseline === 'boolean' ? fromBaseline : fromBaseline(change.createdAt),
    firstSeenAt: stored.at,
    updatedAt: stored.at,
    pollRunId: stored.pollRunId,
  };
}

/**
 * The columns an edit or a refresh sets: the change, and when. Never trades a real review_id for a
 * fingerprint identity: an id that went missing once stays known.
 */
export function changedColumns(change: ReviewChange, at: Date): Partial<NewReview> {
  const { appHandle: _app, identity, reviewId, ...rest } = change;
  return { ...(reviewId === '' ? {} : { identity, reviewId }), ...rest, updatedAt: at };
}

/**
 * What the reviewer wrote, as the listing shows it: who and from where, the stars, the text and its date.
 * The reads that show a review (the inbox, the API, an alert) or compare it with the listing take these
 * together, so a field the listing adds goes here once.
 */
export const WRITTEN_FIELDS = [
  'reviewer',
  'location',
  'rating',
  'content',
  'createdDate',
] as const satisfies readonly ReviewField[];

/**
 * The review's fields the inbox reads into every list row (store/inbox/rows.ts): each is read as
 * `r.<column>` and decoded as drizzle decodes the column (a timestamp to a Date). The CSV export and the
 * JSON API show those web/review-output.ts places as it says, and the rest as they are, in this order.
 */
export const INBOX_FIELDS = [
  'id',
  'appHandle',
  'appName',
  ...WRITTEN_FIELDS,
  'createdAt',
  'firstSeenAt',
  'timeUsingApp',
  'removedAt',
  'topics',
] as const satisfies readonly ReviewField[];

export type InboxField = (typeof INBOX_FIELDS)[number];

/** The review's part of an inbox row. */
export type InboxReviewFields = Pick<ReviewRow, InboxField>;

/** `r.<column> as <field>, …`: the inbox's select list of the review's fields. */
export const INBOX_FIELDS_SQL = INBOX_FIELDS.map((field) => `r.${COLUMNS[field].name} as ${field}`).join(
  ', ',
);

/** Column types whose raw SQLite value is the value: the others (a timestamp's integer) are decoded. */
const RAW_TYPES: ReadonlySet<string> = new Set(['SQLiteText', 'SQLiteInteger', 'SQLiteReal']);

/** Each field with the column that decodes it, or undefined when its raw value is the value. */
const DECODERS = INBOX_FIELDS.map((field) => {
  const column = COLUMNS[field];
  return [field, RAW_TYPES.has(column.columnType) ? undefined : column] as const;
});

/**
 * The review's fields of a raw row (straight from better-sqlite3), decoded, in a new object the caller
 * may add its own fields to. One loop writing each key once, in order: a list page maps its rows in about
 * a microsecond each (a spread of the result would cost thirty).
 */
export function inboxFieldsOf(raw: Readonly<Record<InboxField, unknown>>): InboxReviewFields {
  const fields: Record<string, unknown> = {};
  for (const [field, column] of DECODERS) {
    const value = raw[field];
    fields[field] = column === undefined || value === null ? value : column.mapFromDriverValue(value);
  }
  return fields as InboxReviewFields;
}

/** A field's column in SQL (`time_using_app`): also its name where the review goes out as a table (CSV). */
export function reviewColumnName(field: ReviewField): string {
  return COLUMNS[field].name;
}
