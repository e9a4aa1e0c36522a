/**
 * What a listed review says outside the pages, in one list of fields: the CSV export's columns
 * (web/csv.ts) and the JSON API's keys (web/api-json.ts), in order. A review field the inbox reads
 * (INBOX_FIELDS, store/review-fields.ts) and this list does not place goes out as it is, before the text:
 * under its column's name in the CSV, its own in JSON, a date as ISO. So a new column reaches both with
 * no edit here.
 */

import type { Severity } from '../scoring/index.js';
import type { InboxRow } from '../store/inbox.js';
import { INBOX_FIELDS, type InboxField, reviewColumnName } from '../store/review-fields.js';
import type { AppInfo, Presenter } from './present.js';

/** A listed review with what the web adds to it, worked out once per review. */
export interface Listed {
  row: InboxRow;
  url: string;
  app: AppInfo;
  severity: Severity;
  keywordGroups: string[];
}

export type Cell = string | number | null | undefined;

/** One field: its CSV column, its JSON key, or both, each with its value. */
export interface OutputField {
  csv?: { name: string; value: (review: Listed) => Cell };
  json?: { key: string; value: (review: Listed) => unknown };
}

const joined = (values: readonly string[]) => values.join('; ');

/**
 * A review field as it is, under its column's name in the CSV and its own in JSON: a date as ISO, and in a
 * CSV cell a structured value (a JSON column's) as JSON text.
 */
function plain(field: InboxField, only?: 'json'): OutputField {
  const value = (review: Listed): unknown => {
    const v: unknown = review.row[field];
    return v instanceof Date ? v.toISOString() : v;
  };
  const cell = (review: Listed): Cell => {
    const v = value(review);
    return v === null || v === undefined || typeof v === 'string' || typeof v === 'number'
      ? v
      : JSON.stringify(v);
  };
  const json = { key: field, value };
  return only === 'json' ? { json } : { csv: { name: reviewColumnName(field), value: cell }, json };
}

/** Review fields shown through another field of the list (the app, the date) rather than as they are. */
const SHOWN_OTHERWISE: readonly InboxField[] = ['appHandle', 'appName', 'createdAt'];

/** A field both carry, under a CSV column and a JSON key, with one value (null is an empty cell). */
function both(name: string, key: string, value: (review: Listed) => Cell): OutputField {
  return { csv: { name, value }, json: { key, value } };
}

const PLACED: readonly OutputField[] = [
  plain('id'),
  both('url', 'url', (r) => r.url),
  { csv: { name: 'app', value: (r) => r.app.name }, json: { key: 'app', value: (r) => r.app } },
  { csv: { name: 'app_handle', value: (r) => r.app.handle } },
  { csv: { name: 'role', value: (r) => r.app.role ?? '' } },
  plain('rating'),
  both('date', 'date', (r) => r.row.at.toISOString()),
  plain('createdDate', 'json'),
  plain('firstSeenAt'),
  plain('reviewer'),
  plain('location'),
  plain('timeUsingApp'),
  both('priority', 'priority', (r) => r.row.priority),
  {
    csv: { name: 'severity', value: (r) => r.severity.score },
    json: { key: 'severity', value: (r) => ({ score: r.severity.score, reasons: r.severity.reasons }) },
  },
  { csv: { name: 'reasons', value: (r) => joined(r.severity.reasons) } },
  {
    csv: { name: 'keyword_groups', value: (r) => joined(r.keywordGroups) },
    json: { key: 'keywordGroups', value: (r) => r.keywordGroups },
  },
  both('status', 'status', (r) => r.row.status),
  both('assignee', 'assignee', (r) => r.row.assignee),
  {
    // "billing: charged twice, refund; support: never replied": each topic with the words that put it there.
    csv: {
      name: 'topics',
      value: (r) => joined(r.row.topics.map((t) => `${t.name}: ${[...new Set(t.words)].join(', ')}`)),
    },
    json: { key: 'topics', value: (r) => r.row.topics.map((t) => ({ name: t.name, words: t.words })) },
  },
  {
    csv: { name: 'tags', value: (r) => joined(r.row.tags) },
    json: { key: 'tags', value: (r) => r.row.tags },
  },
  plain('removedAt'),
];

/** The fields, in order: those placed above, then any other review field as it is, then the text. */
export const REVIEW_OUTPUT: readonly OutputField[] = (() => {
  const placed = new Set<string>([
    ...SHOWN_OTHERWISE,
    'content',
    ...PLACED.flatMap((f) => f.json?.key ?? []),
  ]);
  const rest = INBOX_FIELDS.filter((field) => !placed.has(field)).map((field) => plain(field));
  return [...PLACED, ...rest, plain('content')];
})();

export function reviewUrl(id: number, publicUrl: string | undefined): string {
  return publicUrl ? new URL(`/reviews/${id}`, publicUrl).href : `/reviews/${id}`;
}

/** A row with what the web adds to it, for the fields to read. */
export function listedOf(row: InboxRow, presenter: Presenter, publicUrl: string | undefined): Listed {
  return {
    row,
    url: reviewUrl(row.id, publicUrl),
    app: presenter.app(row.appHandle, row.appName),
    severity: presenter.severity(row),
    keywordGroups: presenter.keywordGroups(row.content),
  };
}
