/**
 * Live updates for open pages, by polling (docs/stack-notes.md says why not Server-Sent Events): each page
 * asks `/api/live` every few seconds with its view's filters, the newest review it knows (`after`) and the
 * newest triage event (`events`). The answer says how many reviews are open (the tab's title and icon), how
 * many new reviews the view's first page now holds, and what became of the reviews triaged since.
 *
 * Everything is keyed by the store's mark (three index lookups, store/live.ts): an unchanged store is a
 * 304 without another read, and fifty tabs on one view after a change cost one computation, not fifty.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../config/index.js';
import type { StoreDb } from '../store/db.js';
import {
  closedCount,
  lowRatedCount,
  markText,
  type OpenScope,
  type StoreMark,
  storeMark,
  type TriageNow,
  triagedSince,
} from '../store/live.js';
import {
  type InboxQuery,
  inboxPageOf,
  PAGE_VIEW,
  queryString,
  type ViewCounts,
  viewCounts,
} from './filters.js';

/** How often a page asks, when visible; a hidden tab asks a quarter as often (inbox.js). */
export const DEFAULT_LIVE_POLL_MS = 15_000;

/** The most triaged reviews one answer names; a page with more to catch up on is better reloaded. */
export const MAX_CHANGED = 100;

/** First pages (and changes) kept per store mark: one per view the open tabs show. */
const MAX_VIEWS = 64;

export interface LiveAnswer {
  /**
   * The whole triage queue: low-rated reviews of own apps, new or acknowledged, of any date (the Open view
   * with `period=all` and no other filter; docs/inbox.md, "Live updates").
   */
  open: number;
  /** The store's mark: what a page passes back as `after` and `events` after it reloads. */
  review: number;
  event: number;
  /** Reviews newer than `after` on the view's first page (as "show" would list it). */
  newer: number;
  /** Reviews triaged after `events`, newest change first, as they stand now. */
  changed: TriageNow[];
  /**
   * Asked for with `tabs=1` (the list page): each view's count under the page's filters, as its tabs show
   * them, and the list's total, so that a status set by a key or by a colleague moves them.
   */
  tabs?: ViewCounts;
}

export interface LiveQuery {
  view: InboxQuery;
  /** The newest review the page knew; absent, the page shows no banner and `newer` is 0. */
  after?: number | undefined;
  events: number;
  /** The tabs' counts are wanted, for this user's Mine view (undefined: the admin token's, empty). */
  tabs?: { me: string | undefined };
}

/** What a page renders before its first poll: the count for its title and the mark it starts from. */
export interface LiveStart {
  open: number;
  mark: StoreMark;
}

export class LiveState {
  readonly #db: StoreDb;
  readonly #config: Config;
  readonly #scope: OpenScope;
  /** Low-rated reviews up to the row `review`, counted afresh whenever an edit was recorded since. */
  #lowRated: { review: number; edit: number; n: number } | undefined;
  #closed: { key: string; n: number } | undefined;
  /** What every tab at this mark shares: each view's first page (its review ids), each `events`' changes. */
  #atMark: {
    mark: string;
    firstPages: Map<string, number[]>;
    changes: Map<number, TriageNow[]>;
    tabs: Map<string, ViewCounts>;
  } = { mark: '', firstPages: new Map(), changes: new Map(), tabs: new Map() };

  constructor(db: StoreDb, config: Config) {
    this.#db = db;
    this.#config = config;
    // Competitors' reviews are watched, not triaged: they never count as waiting. Any other app's do, even
    // one dropped from the config, as in the Open view.
    this.#scope = {
      excludeApps: config.apps.filter((a) => a.role === 'competitor').map((a) => a.handle),
      maxRating: config.alerts.lowRating.maxRating,
    };
  }

  mark(): StoreMark {
    return storeMark(this.#db);
  }

  /**
   * Open reviews at this mark. Reviews are only added, so the low-rated count goes on from the last one by
   * the rows added since; an edit (a re-rating, or a reconciliation's merge, which deletes a duplicate row)
   * or a newest row that went back has it counted afresh.
   */
  open(mark: StoreMark): number {
    const low = this.#lowRated;
    if (!low || low.edit !== mark.edit || low.review > mark.review) {
      const n = lowRatedCount(this.#db, this.#scope, { after: 0, upTo: mark.review });
      this.#lowRated = { review: mark.review, edit: mark.edit, n };
    } else if (low.review < mark.review) {
      const added = lowRatedCount(this.#db, this.#scope, { after: low.review, upTo: mark.review });
      this.#lowRated = { review: mark.review, edit: mark.edit, n: low.n + added };
    }
    const closedKey = markText(mark);
    if (this.#closed?.key !== closedKey) {
      this.#closed = { key: closedKey, n: closedCount(this.#db, this.#scope) };
    }
    return Math.max(0, (this.#lowRated?.n ?? 0) - this.#closed.n);
  }

  start(): LiveStart {
    const mark = this.mark();
    return { open: this.open(mark), mark };
  }

  /** The ETag of the answer to `query` at `mark`: the same until the store moves (or the day changes). */
  etag(mark: StoreMark, query: LiveQuery, now: Date): string {
    const hash = createHash('sha256').update(viewKey(query)).digest('base64url').slice(0, 16);
    return `W/"${markText(mark)}-${now.toISOString().slice(0, 10)}-${hash}"`;
  }

  answer(mark: StoreMark, query: LiveQuery, now: Date): LiveAnswer {
    const text = markText(mark);
    if (this.#atMark.mark !== text) {
      this.#atMark = { mark: text, firstPages: new Map(), changes: new Map(), tabs: new Map() };
    }
    const { after, events } = query;
    let newer = 0;
    if (after !== undefined) {
      const view = filtersKey(query.view);
      let ids = this.#atMark.firstPages.get(view);
      if (!ids) {
        const page = inboxPageOf(this.#db, withoutCursor(query.view), this.#config, now);
        ids = page.rows.map((r) => r.id);
        remember(this.#atMark.firstPages, view, ids);
      }
      newer = ids.filter((id) => id > after).length;
    }
    let changed: TriageNow[] = [];
    if (events < mark.event) {
      const known = this.#atMark.changes.get(events);
      changed = known ?? triagedSince(this.#db, events, MAX_CHANGED);
      if (!known) remember(this.#atMark.changes, events, changed);
    }
    const answer: LiveAnswer = {
      open: this.open(mark),
      review: mark.review,
      event: mark.event,
      newer,
      changed,
    };
    if (query.tabs) answer.tabs = this.#tabs(query.view, query.tabs.me, now);
    return answer;
  }

  /** The tabs' counts of a view's filters at this mark, counted once for every tab that shows them. */
  #tabs(view: InboxQuery, me: string | undefined, now: Date): ViewCounts {
    const key = `${filtersKey(view)}|${me ?? ''}`;
    let counts = this.#atMark.tabs.get(key);
    if (!counts) {
      // The view is named in the URL; the default only matters to a query without one.
      counts = viewCounts(this.#db, withoutCursor(view), this.#config, now, { me, defaultView: PAGE_VIEW });
      remember(this.#atMark.tabs, key, counts);
    }
    return counts;
  }
}

/** Keeps a value in a small map, forgetting the oldest past MAX_VIEWS. */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= MAX_VIEWS) {
    const oldest = map.keys().next();
    if (!oldest.done) map.delete(oldest.value);
  }
  map.set(key, value);
}

function withoutCursor(view: InboxQuery): InboxQuery {
  const { cursor: _cursor, ...rest } = view;
  return rest;
}

function filtersKey(view: InboxQuery): string {
  return queryString(withoutCursor(view));
}

function viewKey(query: LiveQuery): string {
  const tabs = query.tabs ? `|tabs:${query.tabs.me ?? ''}` : '';
  return `${filtersKey(query.view)}|${query.after ?? ''}|${query.events}${tabs}`;
}

/**
 * The `/api/live` URL a page polls: its view's filters (without the cursor) and the mark it was drawn at;
 * without `after` when the page shows no banner of new reviews; with `tabs=1` when it shows the tabs.
 */
export function liveUrl(
  view: InboxQuery,
  mark: StoreMark,
  options: { banner: boolean; tabs?: boolean },
): string {
  const filters = filtersKey(view);
  const after = options.banner ? `after=${mark.review}&` : '';
  return `/api/live${filters ? `${filters}&` : '?'}${after}events=${mark.event}${options.tabs ? '&tabs=1' : ''}`;
}
