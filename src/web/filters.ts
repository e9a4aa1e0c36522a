/**
 * The inbox's filters as they live in the URL (`/?app=shop&stars=1,2&status=new&q=refund`), so a view can
 * be bookmarked and shared: checked (a value that makes no sense is refused with what is accepted, and the
 * page shows the rest in its form to correct it), turned into the store's `InboxFilter`, and written back
 * as a canonical query string.
 */
import { z } from 'zod';
import { HANDLE_PATTERN } from '../catalog/handle.js';
import type { Config } from '../config/index.js';
import { PRIORITIES } from '../scoring/priority.js';
import type { StoreDb } from '../store/db.js';
import { type InboxFilter, type InboxPage, listInbox, MAX_PAGE_SIZE, parseCursor } from '../store/inbox.js';
import { MAX_TAG_LENGTH, normalizeTag, TRIAGE_STATUSES } from '../store/triage.js';
import { defineQuery, listParam, type Problem, param, type QueryOf } from './input.js';
import { USER_NAME_PATTERN } from './users.js';

export const PERIODS = { '7d': 7, '30d': 30, '90d': 90, '365d': 365, all: undefined } as const;
export type Period = keyof typeof PERIODS;
export const DEFAULT_PERIOD: Period = '30d';
const PERIOD_NAMES = Object.keys(PERIODS) as [Period, ...Period[]];
/** Longer than any search worth running; the form's field stops there too. */
export const MAX_SEARCH_LENGTH = 200;

/**
 * The inbox's query parameters, shared by the list (`/`), `/api/reviews` and `/export.csv`. Reviews the
 * marketplace removed are shown by default (`removed` absent or `show`, what the filter form's select
 * says), because a removal answers no complaint: the customer may have deleted it once support helped (the
 * team then wants to close it) or the marketplace may have taken it down while the problem stands. A team
 * that only wants what customers can still read asks for `hide`.
 */
export const INBOX_QUERY = defineQuery(
  {
    app: param('an app handle such as my-app', z.string().max(200).regex(HANDLE_PATTERN)),
    role: param('own or competitor', z.enum(['own', 'competitor'])),
    stars: listParam(
      'whole numbers from 1 to 5 (stars=1,2)',
      z.enum(['1', '2', '3', '4', '5']).transform(Number),
      [1, 2, 3, 4, 5],
    ),
    priority: listParam(`one or more of ${PRIORITIES.join(', ')}`, z.enum(PRIORITIES), PRIORITIES),
    status: listParam(
      `one or more of ${TRIAGE_STATUSES.join(', ')}`,
      z.enum(TRIAGE_STATUSES),
      TRIAGE_STATUSES,
    ),
    assignee: param('a user name', z.string().regex(USER_NAME_PATTERN)),
    tag: param(
      `a tag: letters and digits, then also ".", "_" or "-", at most ${MAX_TAG_LENGTH} characters`,
      z.string().refine(isTag).transform(normalizeTag),
    ),
    from: param('a date like 2026-11-23', z.string().refine(isDate)),
    to: param('a date like 2026-11-23', z.string().refine(isDate)),
    period: param(`one of ${Object.keys(PERIODS).join(', ')}`, z.enum(PERIOD_NAMES)),
    q: param(
      `words to search for, at most ${MAX_SEARCH_LENGTH} characters`,
      z.string().max(MAX_SEARCH_LENGTH),
    ),
    removed: param(
      'show, hide or only',
      z.enum(['show', 'hide', 'only']).transform((v) => (v === 'show' ? undefined : v)),
    ),
    limit: param(
      `a whole number from 1 to ${MAX_PAGE_SIZE}`,
      z
        .string()
        .regex(/^\d{1,4}$/)
        .transform(Number)
        .refine((n) => n >= 1 && n <= MAX_PAGE_SIZE),
    ),
    cursor: param(
      'the `next` of the page before, as given',
      z.string().refine((c) => parseCursor(c) !== undefined),
    ),
  },
  { check: (query) => datesInOrder(query) },
);

export type InboxQuery = QueryOf<typeof INBOX_QUERY.params>;

/** The check across the list's parameters, for a route that takes them with others (`/api/live`). */
export function datesInOrder(query: { from?: string; to?: string }): Problem[] {
  return query.from && query.to && query.from > query.to
    ? [{ name: 'from', message: `from (${query.from}) is after to (${query.to})` }]
    : [];
}

/** The order of the keys in a canonical URL. */
const KEYS = Object.keys(INBOX_QUERY.params) as ReadonlyArray<keyof InboxQuery>;

function isTag(value: string): boolean {
  try {
    normalizeTag(value);
    return true;
  } catch {
    return false;
  }
}

/** A calendar day: `Date.parse` alone would take 2026-02-30 for March 2. */
function isDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const at = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(at) && new Date(at).toISOString().slice(0, 10) === value;
}

/** The query's valid parameters (for the filter form) and, when any is wrong, what. */
export function parseInboxQuery(raw: unknown): { query: InboxQuery; problems: Problem[] } {
  return INBOX_QUERY.read(raw);
}

const DAY_MS = 86_400_000;

/**
 * The store's filter for a query: the role's apps from the config (intersected with `app`), the stars at
 * or below `alerts.lowRating.maxRating` unless stars are given, and the last 30 days unless a period or
 * dates are given.
 */
export function inboxFilterOf(query: InboxQuery, config: Config, now: Date): InboxFilter {
  const filter: InboxFilter = {};
  let apps: string[] | undefined = query.app ? [query.app] : undefined;
  if (query.role) {
    const ofRole = config.apps.filter((a) => a.role === query.role).map((a) => a.handle);
    apps = apps ? apps.filter((a) => ofRole.includes(a)) : ofRole;
  }
  if (apps) filter.apps = apps;
  const maxRating = config.alerts.lowRating.maxRating;
  filter.stars = query.stars ?? Array.from({ length: maxRating }, (_, i) => i + 1);
  if (query.priority) filter.priorities = query.priority;
  if (query.status) filter.statuses = query.status;
  if (query.assignee) filter.assignee = query.assignee;
  if (query.tag) filter.tag = query.tag;
  if (query.from) filter.from = new Date(`${query.from}T00:00:00Z`);
  // `to` names the last day shown: the filter ends when it does.
  if (query.to) filter.to = new Date(Date.parse(`${query.to}T00:00:00Z`) + DAY_MS);
  if (!query.from && !query.to) {
    const days = PERIODS[query.period ?? DEFAULT_PERIOD];
    if (days !== undefined) filter.from = new Date(now.getTime() - days * DAY_MS);
  }
  if (query.q) filter.text = query.q;
  if (query.removed) filter.removed = query.removed;
  return filter;
}

/** The page of the list a query asks for: its filters, and its page size and cursor when it gives them. */
export function inboxPageOf(db: StoreDb, query: InboxQuery, config: Config, now: Date): InboxPage {
  return listInbox(db, inboxFilterOf(query, config, now), {
    ...(query.limit ? { limit: query.limit } : {}),
    ...(query.cursor ? { cursor: query.cursor } : {}),
  });
}

/** `?app=…&stars=1,2…` for this query with `changes` applied; '' when nothing is left. */
export function queryString(
  query: InboxQuery,
  changes: Partial<Record<keyof InboxQuery, unknown>> = {},
): string {
  const merged: Record<string, unknown> = { ...query, ...changes };
  const params = new URLSearchParams();
  for (const key of KEYS) {
    const value = merged[key];
    if (value === undefined || value === null || value === '') continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
