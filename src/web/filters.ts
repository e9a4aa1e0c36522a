/**
 * The inbox's filters as they live in the URL (`/?app=shop&stars=1,2&status=new&q=refund`), so a view can
 * be bookmarked and shared: parsed leniently (a value that makes no sense is dropped and said, never an
 * error page), turned into the store's `InboxFilter`, and written back as a canonical query string.
 */
import type { Config } from '../config/index.js';
import { PRIORITIES, type Priority } from '../scoring/priority.js';
import type { InboxFilter } from '../store/inbox.js';
import { TRIAGE_STATUSES, type TriageStatus } from '../store/triage.js';

export const PERIODS = { '7d': 7, '30d': 30, '90d': 90, '365d': 365, all: undefined } as const;
export type Period = keyof typeof PERIODS;
export const DEFAULT_PERIOD: Period = '30d';

export interface InboxQuery {
  app?: string;
  role?: 'own' | 'competitor';
  stars?: number[];
  priority?: Priority[];
  status?: TriageStatus[];
  assignee?: string;
  tag?: string;
  /** YYYY-MM-DD, UTC. */
  from?: string;
  to?: string;
  period?: Period;
  q?: string;
  /**
   * Reviews the marketplace removed: `hide` or `only`; absent, listed with a mark. Shown by default
   * because a removal answers no complaint: the customer may have deleted it once support helped (the team
   * then wants to close it) or the marketplace may have taken it down while the problem stands. A team
   * that only wants what customers can still read asks for `hide`.
   */
  removed?: 'hide' | 'only';
  cursor?: string;
  limit?: number;
}

/** The order of the keys in a canonical URL. */
const KEYS = [
  'app',
  'role',
  'stars',
  'priority',
  'status',
  'assignee',
  'tag',
  'from',
  'to',
  'period',
  'q',
  'removed',
  'limit',
  'cursor',
] as const;

type Raw = Record<string, unknown>;

/** A parameter's values: repeated (`stars=1&stars=2`, what a form sends) or comma-separated. */
function values(raw: Raw, key: string): string[] {
  const value = raw[key];
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list
    .filter((v): v is string => typeof v === 'string')
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

function one(raw: Raw, key: string): string | undefined {
  const value = raw[key];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first.trim() !== '' ? first.trim() : undefined;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function isDate(value: string): boolean {
  return DATE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
}

export function parseInboxQuery(raw: Raw): { query: InboxQuery; problems: string[] } {
  const problems: string[] = [];
  const query: InboxQuery = {};
  const app = one(raw, 'app');
  if (app) query.app = app;
  const role = one(raw, 'role');
  if (role === 'own' || role === 'competitor') query.role = role;
  else if (role) problems.push(`role is own or competitor, not "${role}"`);

  const stars = values(raw, 'stars');
  if (stars.length > 0) {
    const valid = stars.filter((s) => /^[1-5]$/.test(s)).map(Number);
    if (valid.length < stars.length) problems.push('stars are whole numbers from 1 to 5');
    if (valid.length > 0) query.stars = [...new Set(valid)].sort((a, b) => a - b);
  }
  const priorities = values(raw, 'priority');
  if (priorities.length > 0) {
    const valid = PRIORITIES.filter((p) => priorities.includes(p));
    if (valid.length < new Set(priorities).size) problems.push(`priority is one of ${PRIORITIES.join(', ')}`);
    if (valid.length > 0) query.priority = valid;
  }
  const statuses = values(raw, 'status');
  if (statuses.length > 0) {
    const valid = TRIAGE_STATUSES.filter((s) => statuses.includes(s));
    if (valid.length < new Set(statuses).size)
      problems.push('status is new, acknowledged, resolved or ignored');
    if (valid.length > 0) query.status = valid;
  }
  const assignee = one(raw, 'assignee');
  if (assignee) query.assignee = assignee;
  const tag = one(raw, 'tag');
  if (tag) query.tag = tag.toLowerCase().replace(/\s+/g, '-');
  for (const key of ['from', 'to'] as const) {
    const date = one(raw, key);
    if (date && isDate(date)) query[key] = date;
    else if (date) problems.push(`${key} is a date like 2026-11-23`);
  }
  const period = one(raw, 'period');
  if (period && period in PERIODS) query.period = period as Period;
  else if (period) problems.push(`period is one of ${Object.keys(PERIODS).join(', ')}`);
  const q = one(raw, 'q');
  if (q) query.q = q.slice(0, 200);
  const removed = one(raw, 'removed');
  if (removed === 'hide' || removed === 'only') query.removed = removed;
  // `show` is the default, said explicitly by the filter form's select.
  else if (removed && removed !== 'show') problems.push(`removed is show, hide or only, not "${removed}"`);
  const cursor = one(raw, 'cursor');
  if (cursor) query.cursor = cursor;
  const limit = one(raw, 'limit');
  if (limit && /^\d{1,4}$/.test(limit)) query.limit = Number(limit);
  return { query, problems };
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
