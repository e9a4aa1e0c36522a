/**
 * A row of the inbox's list: the review's fields the inbox reads (store/review-fields.ts), its topics'
 * version, its place in the order, its triage and its priority; and the statements that read them,
 * prepared once per shape.
 */
import type Database from 'better-sqlite3';
import { PRIORITIES, type Priority } from '../../scoring/priority.js';
import type { StoreDb } from '../db.js';
import {
  INBOX_FIELDS_SQL,
  type InboxField,
  type InboxReviewFields,
  inboxFieldsOf,
} from '../review-fields.js';
import type { TriageStatus } from '../schema.js';

/** A review as the inbox lists it. */
export type InboxRow = InboxReviewFields & {
  /**
   * The taxonomy version that computed `topics` (null until computed): the severity reads the stored topics
   * when it is the config's. Read beside the fields, not among them: the export does not show it.
   */
  topicsVersion: string | null;
  /** The date the list is ordered by: the review's own, or when it was first seen when that did not parse. */
  at: Date;
  status: TriageStatus;
  assignee: string | null;
  tags: string[];
  /** Of its review alerts; null for a review that raised none (history, or above the low-rating bar). */
  priority: Priority | null;
};

/** A row as SQLite gives it: the review's fields raw (store/review-fields.ts), and the list's own. */
export type RawRow = Record<InboxField, unknown> & {
  id: number;
  topicsVersion: string | null;
  at: number;
  /** The sort's own value, for the next page's cursor. */
  sortKey: number | string;
  status: TriageStatus;
  assignee: string | null;
  /** A JSON array. */
  tags: string;
  priorityRank: number | null;
};

/**
 * The page's select list over the review `r`, its place `p` (`at`, the sort's key `k`) and its triage
 * `t`: the review's fields, then the list's own.
 */
export function inboxRowSql(priorityRank: string): string {
  return `select ${INBOX_FIELDS_SQL}, r.topics_version as topicsVersion, p.at as at, p.k as sortKey,
      coalesce(t.status, 'new') as status, t.assignee as assignee,
      (select json_group_array(tag) from (select tag from review_tags where review_row_id = r.id order by tag))
        as tags,
      ${priorityRank} as priorityRank`;
}

const prepared = new WeakMap<Database.Database, Map<string, Database.Statement<unknown[], RawRow>>>();

/** Statements by their SQL: a handful of shapes, each prepared once per connection. */
export function statement(db: StoreDb, sql: string): Database.Statement<unknown[], RawRow> {
  const client = db.$client;
  let cache = prepared.get(client);
  if (!cache) {
    cache = new Map();
    prepared.set(client, cache);
  }
  let st = cache.get(sql);
  if (!st) {
    st = client.prepare<unknown[], RawRow>(sql);
    cache.set(sql, st);
  }
  return st;
}

export function rowOf(r: RawRow): InboxRow {
  // Added to the fields' object rather than spread into a new one: see inboxFieldsOf.
  const row = inboxFieldsOf(r) as InboxRow;
  row.topicsVersion = r.topicsVersion;
  row.at = new Date(r.at);
  row.status = r.status;
  row.assignee = r.assignee;
  row.tags = JSON.parse(r.tags) as string[];
  row.priority = r.priorityRank === null ? null : (PRIORITIES[r.priorityRank] ?? null);
  return row;
}
