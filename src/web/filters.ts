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
import {
  countInbox,
  INBOX_SORTS,
  type InboxBucket,
  type InboxCounts,
  type InboxFilter,
  type InboxPage,
  type InboxSort,
  listInbox,
  MAX_PAGE_SIZE,
  parseCursor,
} from '../store/inbox.js';
import { MAX_TAG_LENGTH, normalizeTag, TRIAGE_STATUSES, type TriageStatus } from '../store/triage.js';
import { TOPIC_NAME } from '../topics/index.js';
import { defineQuery, listParam, type Problem, param, type QueryOf } from './input.js';
import { USER_NAME_PATTERN } from './users.js';

export const PERIODS = { '7d': 7, '30d': 30, '90d': 90, '365d': 365, all: undefined } as const;
export type Period = keyof typeof PERIODS;
export const DEFAULT_PERIOD: Period = '30d';
const PERIOD_NAMES = Object.keys(PERIODS) as [Period, ...Period[]];
/** Longer than any search worth running; the form's field stops there too. */
export const MAX_SEARCH_LENGTH = 200;

/**
 * The inbox's views, its tabs: Open (new and acknowledged reviews of own apps, the triage queue), New,
 * Mine (open and assigned to whoever is logged in), Resolved, Ignored, Competitors (their reviews, never
 * in the triage queue) and All. "Own" is every app not marked `role: competitor`, so an app dropped from
 * the config keeps its open reviews in the queue.
 */
export const VIEWS = ['open', 'new', 'mine', 'resolved', 'ignored', 'competitors', 'all'] as const;
export type View = (typeof VIEWS)[number];
export const VIEW_LABELS: Record<View, string> = {
  open: 'Open',
  new: 'New',
  mine: 'Mine',
  resolved: 'Resolved',
  ignored: 'Ignored',
  competitors: 'Competitors',
  all: 'All',
};
/** The list page opens on the queue. The API and the CSV default to `all`: what they listed before views. */
export const PAGE_VIEW: View = 'open';
export const DATA_VIEW: View = 'all';

export const SORT_LABELS: Record<InboxSort, string> = {
  newest: 'newest first',
  seen: 'first seen by reviewwatch',
  severity: 'most severe first',
  app: 'by app',
};

/**
 * The inbox's query parameters, shared by the list (`/`), `/api/reviews` and `/export.csv`. Reviews the
 * marketplace removed are shown by default (`removed` absent or `show`, what the filter form's select
 * says), because a removal answers no complaint: the customer may have deleted it once support helped (the
 * team then wants to close it) or the marketplace may have taken it down while the problem stands. A team
 * that only wants what customers can still read asks for `hide`.
 */
const INBOX_PARAMS = {
  app: param('an app handle such as my-app', z.string().max(200).regex(HANDLE_PATTERN)),
  role: param('own or competitor', z.enum(['own', 'competitor'])),
  stars: listParam(
    'whole numbers from 1 to 5 (stars=1,2)',
    z.enum(['1', '2', '3', '4', '5']).transform(Number),
    [1, 2, 3, 4, 5],
  ),
  priority: listParam(`one or more of ${PRIORITIES.join(', ')}`, z.enum(PRIORITIES), PRIORITIES),
  status: listParam(`one or more of ${TRIAGE_STATUSES.join(', ')}`, z.enum(TRIAGE_STATUSES), TRIAGE_STATUSES),
  assignee: param('a user name', z.string().regex(USER_NAME_PATTERN)),
  tag: param(
    `a tag: letters and digits, then also ".", "_" or "-", at most ${MAX_TAG_LENGTH} characters`,
    z.string().refine(isTag).transform(normalizeTag),
  ),
  topic: param(
    'a topic name such as billing or data-loss: lowercase letters, digits and hyphens',
    z.string().max(60).regex(TOPIC_NAME),
  ),
  from: param('a date like 2026-11-23', z.string().refine(isDate)),
  to: param('a date like 2026-11-23', z.string().refine(isDate)),
  period: param(`one of ${Object.keys(PERIODS).join(', ')}`, z.enum(PERIOD_NAMES)),
  q: param(`words to search for, at most ${MAX_SEARCH_LENGTH} characters`, z.string().max(MAX_SEARCH_LENGTH)),
  removed: param(
    'show, hide or only',
    z.enum(['show', 'hide', 'only']).transform((v) => (v === 'show' ? undefined : v)),
  ),
  view: param(`one of ${VIEWS.join(', ')}`, z.enum(VIEWS)),
  sort: param(`one of ${INBOX_SORTS.join(', ')}`, z.enum(INBOX_SORTS)),
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
};

/** Problems between parameters: dates out of order, a cursor of another order. */
/** The check across the list's parameters, for a route that takes them with others (`/api/live`). */
export function datesInOrder(query: { from?: string; to?: string }): Problem[] {
  return query.from && query.to && query.from > query.to
    ? [{ name: 'from', message: `from (${query.from}) is after to (${query.to})` }]
    : [];
}

function inboxCheck(query: QueryOf<typeof INBOX_PARAMS>): Problem[] {
  return [
    ...datesInOrder(query),
    ...(query.cursor && parseCursor(query.cursor)?.sort !== (query.sort ?? 'newest')
      ? [
          {
            name: 'cursor',
            message: 'cursor is the `next` of a page in another order: drop it, or the sort',
          },
        ]
      : []),
  ];
}

export const INBOX_QUERY = defineQuery(INBOX_PARAMS, { check: inboxCheck });

export type InboxQuery = QueryOf<typeof INBOX_QUERY.params>;

/** The query text of a list (`view=open&q=refund`) as a review's page carries it; undefined if it is not one. */
export function parseListRef(text: string): InboxQuery | undefined {
  const raw: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const had = raw[key];
    raw[key] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), value];
  }
  const { query, problems } = INBOX_QUERY.read(raw);
  return problems.length === 0 ? query : undefined;
}

/** Audit rows of a change just made (`undo=12,13`): what the page offers to take back. */
const undoParam = param(
  'the audit row numbers of a change, as the inbox gives them (undo=12,13)',
  z
    .string()
    .regex(/^\d{1,15}(,\d{1,15}){0,499}$/)
    .transform((v) => v.split(',').map(Number)),
);

/** The list page's parameters: the list's, and the change it may offer to undo. */
export const LIST_PAGE_QUERY = defineQuery({ ...INBOX_PARAMS, undo: undoParam }, { check: inboxCheck });

/**
 * A review's page: the list it was opened from (`list`, that list's query, for the way back and for the
 * previous and next reviews) and a change it may offer to undo (after "resolve & next").
 */
export const REVIEW_QUERY = defineQuery({
  list: param(
    'the query of the inbox list the review was opened from, as the list links it',
    z
      .string()
      .max(4000)
      .refine((v) => parseListRef(v) !== undefined),
  ),
  undo: undoParam,
});

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

/** Who is asking, for the Mine view, and which view a query without `view` shows. */
export interface ViewContext {
  /** The user logged in; undefined for the admin token, whose Mine view is empty. */
  me: string | undefined;
  defaultView: View;
}

const OPEN_STATUSES: readonly TriageStatus[] = ['new', 'acknowledged'];

function competitorsOf(config: Config): string[] {
  return config.apps.filter((a) => a.role === 'competitor').map((a) => a.handle);
}

/** What a view adds to the filters. */
export function viewBucket(view: View, config: Config, me: string | undefined): InboxBucket {
  const competitors = competitorsOf(config);
  const own = { excludeApps: competitors };
  switch (view) {
    case 'open':
      return { ...own, statuses: OPEN_STATUSES };
    case 'new':
      return { ...own, statuses: ['new'] };
    case 'mine':
      return me === undefined ? { none: true } : { ...own, statuses: OPEN_STATUSES, assignee: me };
    case 'resolved':
      return { ...own, statuses: ['resolved'] };
    case 'ignored':
      return { ...own, statuses: ['ignored'] };
    case 'competitors':
      return { apps: competitors };
    case 'all':
      return {};
  }
}

/** Both a filter and a view: each narrows what the other lets through. */
function narrowed(filter: InboxFilter, bucket: InboxBucket): InboxFilter {
  const out: InboxFilter = { ...filter };
  const intersect = <T>(a: readonly T[] | undefined, b: readonly T[] | undefined) =>
    a && b ? a.filter((v) => b.includes(v)) : (a ?? b);
  const statuses = intersect(filter.statuses, bucket.statuses);
  if (statuses) out.statuses = statuses;
  const apps = intersect(filter.apps, bucket.apps);
  if (apps) out.apps = apps;
  if (bucket.excludeApps && bucket.excludeApps.length > 0) {
    out.excludeApps = [...(filter.excludeApps ?? []), ...bucket.excludeApps];
  }
  if (bucket.assignee !== undefined) {
    if (filter.assignee !== undefined && filter.assignee !== bucket.assignee) out.apps = [];
    out.assignee = bucket.assignee;
  }
  if (bucket.none) out.apps = [];
  return out;
}

/** The statuses each view lists; a view not named here lists every status. */
const VIEW_STATUS_SETS: Partial<Record<View, readonly TriageStatus[]>> = {
  open: OPEN_STATUSES,
  new: ['new'],
  mine: OPEN_STATUSES,
  resolved: ['resolved'],
  ignored: ['ignored'],
};

/** The statuses among `statuses` that `view` never lists: a status filter there finds none of them. */
export function statusesOutside(view: View, statuses: readonly TriageStatus[]): TriageStatus[] {
  const listed = VIEW_STATUS_SETS[view];
  return listed ? statuses.filter((s) => !listed.includes(s)) : [];
}

/**
 * The view a status filter lands in when the query names none: the default when it lists them all, else
 * the view that does (Resolved, Ignored), else All. A bookmark from before views (`/?status=resolved`)
 * so lists resolved reviews, not the Open view narrowed to nothing.
 */
export function viewHolding(statuses: readonly TriageStatus[], fallback: View): View {
  const holds = (v: View) => statusesOutside(v, statuses).length === 0;
  if (holds(fallback)) return fallback;
  return (['open', 'resolved', 'ignored'] as const).find(holds) ?? 'all';
}

/** The view a query shows: the one it names, else the one its status filter lands in, else the default. */
export function viewOf(query: InboxQuery, context: ViewContext): View {
  if (query.view) return query.view;
  return query.status ? viewHolding(query.status, context.defaultView) : context.defaultView;
}

/**
 * The store's filter for a query: its view (Open by default on the page), the role's apps from the config
 * (intersected with `app`), the stars at or below `alerts.lowRating.maxRating` unless stars are given,
 * and the last 30 days unless a period or dates are given.
 */
export function inboxFilterOf(
  query: InboxQuery,
  config: Config,
  now: Date,
  context: ViewContext = { me: undefined, defaultView: DATA_VIEW },
): InboxFilter {
  return narrowed(filtersOf(query, config, now), viewBucket(viewOf(query, context), config, context.me));
}

/** The filters of a query without its view. */
function filtersOf(query: InboxQuery, config: Config, now: Date): InboxFilter {
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
  if (query.topic) filter.topic = query.topic;
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

/** The page of the list a query asks for: its filters, and its order, page size and cursor when it gives them. */
export function inboxPageOf(
  db: StoreDb,
  query: InboxQuery,
  config: Config,
  now: Date,
  context?: ViewContext,
): InboxPage {
  return listInbox(db, inboxFilterOf(query, config, now, context), {
    ...(query.limit ? { limit: query.limit } : {}),
    ...(query.cursor ? { cursor: query.cursor } : {}),
    ...(query.sort ? { sort: query.sort } : {}),
  });
}

/** The query a view's tab links to from this one: the same filters, in that view, from its first page. */
export function tabQuery(query: InboxQuery, view: View): InboxQuery {
  // Status and role are what views are made of: kept, they would empty most tabs.
  const { status: _status, role: _role, cursor: _cursor, ...rest } = query;
  return { ...rest, view };
}

export interface ViewCounts extends InboxCounts {
  counts: Record<View, number>;
  /** The reviews of the list shown (its view and all its filters, over every page). */
  total: number;
}

/**
 * How many reviews each tab would list, and the list shown: one walk over the query's filters (counted up
 * to `COUNT_CAP` reviews, past which the counts are lower bounds), and a second only when the query adds a
 * status or a role, which the tabs drop.
 */
export function viewCounts(
  db: StoreDb,
  query: InboxQuery,
  config: Config,
  now: Date,
  context: ViewContext,
): ViewCounts {
  const base = filtersOf(tabQuery(query, 'all'), config, now);
  const buckets = Object.fromEntries(VIEWS.map((v) => [v, viewBucket(v, config, context.me)]));
  const sort = query.sort ? { sort: query.sort } : {};
  const { counts, capped } = countInbox(db, base, buckets, sort);
  const view = viewOf(query, context);
  if (!query.status && !query.role)
    return { counts: counts as Record<View, number>, capped, total: counts[view] ?? 0 };
  const shown = countInbox(db, inboxFilterOf(query, config, now, context), { total: {} }, sort);
  return {
    counts: counts as Record<View, number>,
    capped: capped || shown.capped,
    total: shown.counts.total ?? 0,
  };
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
