import { truncate } from '../../render/escape.js';
import { PRIORITIES } from '../../scoring/priority.js';
import { INBOX_SORTS, type InboxPage, type InboxRow } from '../../store/inbox.js';
import { TRIAGE_STATUSES } from '../../store/triage.js';
import { formatCount, plural, starsLabel } from '../../util/plural.js';
import type { Principal } from '../auth.js';
import {
  type InboxQuery,
  MAX_SEARCH_LENGTH,
  PERIODS,
  queryString,
  SORT_LABELS,
  tabQuery,
  VIEW_LABELS,
  VIEWS,
  type View,
  type ViewCounts,
} from '../filters.js';
import { html, type SafeHtml } from '../html.js';
import type { Problem } from '../input.js';
import { type AppInfo, formatAgo, formatDay, formatTime, type Presenter, postedDay } from '../present.js';
import { filtersLabel, openCountNote, viewNotice } from './inbox-notes.js';
import { keysDialog } from './keys.js';
import { csrfField, fold, type LivePage, layout } from './layout.js';
import { topicChips } from './topic-chips.js';

/** A change just made, said above the list or the review with a button that takes it back. */
export interface UndoNotice {
  text: string;
  /** The audit rows of the change (triage_events ids), which the undo form sends back. */
  events: number[];
  /** Where the undo lands: this list, without the notice. */
  back: string;
}

export interface InboxView {
  principal: Principal;
  /** Live updates (layout.ts): the open count, and what the page polls. */
  live?: LivePage;
  query: InboxQuery;
  /** The view shown: the query's, or the page's default (Open). */
  view: View;
  /** What is wrong with the filters asked for; the list is then not shown, the form is, to correct them. */
  problems: readonly Problem[];
  /** Absent when the filters cannot be applied. */
  page?: InboxPage;
  /** Each tab's count and the list's total; absent when the filters cannot be applied. */
  counts?: ViewCounts;
  /** The time "first seen 3 min ago" counts from. */
  now: Date;
  apps: AppInfo[];
  users: string[];
  maxRating: number;
  presenter: Presenter;
  undo?: UndoNotice;
  /** A bulk action that could not be applied, said above the list (the list stays). */
  bulkError?: string;
}

/** The list a review was opened from, as its page links back to it: the query with its view named. */
export function listRef(view: InboxView): string {
  return queryString({ ...view.query, view: view.view }).slice(1);
}

/** The address of a review's page, opened from a list (`list` is `listRef`), keeping its place. */
export function reviewHref(id: number, list: string | undefined): string {
  return list ? `/reviews/${id}?${new URLSearchParams({ list }).toString()}` : `/reviews/${id}`;
}

const EXCERPT = 280;

export function starsOf(rating: number): SafeHtml {
  const filled = Math.min(5, Math.max(0, rating));
  return html`<span class="stars" role="img" aria-label="${starsLabel(rating)}">${'★'.repeat(filled)}${'☆'.repeat(5 - filled)}</span>`;
}

export function statusLabel(status: string): string {
  return status === 'new' ? 'new' : status;
}

function checkbox(
  name: string,
  value: string | number,
  checked: boolean,
  label: string | SafeHtml,
): SafeHtml {
  return html`<label><input type="checkbox" name="${name}" value="${value}"${checked ? html` checked` : ''}> ${label}</label>`;
}

function option(value: string, label: string, selected: boolean): SafeHtml {
  return html`<option value="${value}"${selected ? html` selected` : ''}>${label}</option>`;
}

function filtersForm(view: InboxView): SafeHtml {
  const { query } = view;
  const stars = query.stars ?? Array.from({ length: view.maxRating }, (_, i) => i + 1);
  return html`<form class="filters" method="get" action="/" role="search" aria-label="Filter the inbox">
  ${query.view ? html`<input type="hidden" name="view" value="${query.view}">` : ''}
  <label class="field" for="q">Search <input type="search" id="q" name="q" value="${query.q ?? ''}" maxlength="${MAX_SEARCH_LENGTH}" placeholder="words in the review"></label>
  <label class="field">App <select name="app">${option('', 'All apps', !query.app)}${view.apps.map((a) => option(a.handle, a.name, query.app === a.handle))}</select></label>
  <label class="field">Role <select name="role">${option('', 'Any', !query.role)}${option('own', 'Own apps', query.role === 'own')}${option('competitor', 'Competitors', query.role === 'competitor')}</select></label>
  <fieldset><legend>Stars</legend>${[1, 2, 3, 4, 5].map((n) => checkbox('stars', n, stars.includes(n), String(n)))}</fieldset>
  <fieldset><legend>Priority</legend>${PRIORITIES.map((p) => checkbox('priority', p, query.priority?.includes(p) ?? false, p))}</fieldset>
  <fieldset><legend>Status</legend>${TRIAGE_STATUSES.map((s) => checkbox('status', s, query.status?.includes(s) ?? false, s))}</fieldset>
  <label class="field">Assignee <select name="assignee">${option('', 'Anyone', !query.assignee)}${view.users.map((u) => option(u, u, query.assignee === u))}</select></label>
  <label class="field">Topic <select name="topic">${option('', 'Any', !query.topic)}${view.presenter.topics.map((t) => option(t, t, query.topic === t))}</select></label>
  <label class="field">Has tag <input type="text" name="tag" value="${query.tag ?? ''}" size="12"></label>
  <label class="field">Period <select name="period">${Object.keys(PERIODS).map((p) => option(p, p === 'all' ? 'all time' : `last ${p}`, (query.period ?? '30d') === p))}</select></label>
  <label class="field">From <input type="date" name="from" value="${query.from ?? ''}"></label>
  <label class="field">To <input type="date" name="to" value="${query.to ?? ''}"></label>
  <label class="field">Sort <select name="sort">${INBOX_SORTS.map((o) => option(o, SORT_LABELS[o], (query.sort ?? 'newest') === o))}</select></label>
  <label class="field">Removed from the marketplace <select name="removed">${option('show', 'show, marked', !query.removed)}${option('hide', 'hide', query.removed === 'hide')}${option('only', 'only these', query.removed === 'only')}</select></label>
  <button class="primary" type="submit">Filter</button>
  <a href="/">Reset</a>
</form>`;
}

/** "Removed from the marketplace on 2026-11-20": the day a reconciliation found it gone. */
export function removedMark(removedAt: Date): string {
  return `Removed from the marketplace on ${formatDay(removedAt)}`;
}

/**
 * When the review was posted (the marketplace's day, no time of day: it gives none) and when reviewwatch
 * first saw it, as an age with the exact time in a tooltip.
 */
export function reviewTimes(
  review: { createdDate: string; createdAt: Date | null; firstSeenAt: Date },
  now: Date,
): SafeHtml {
  const day = postedDay(review.createdDate, review.createdAt);
  const seen = review.firstSeenAt;
  return html`${day ? html`<time datetime="${day}" title="the date the marketplace gives">${day}</time>` : html`<span class="muted">no date given</span>`}
  <div class="muted small">first seen <time class="seen" datetime="${seen.toISOString()}" title="${formatTime(seen)}">${formatAgo(seen, now)}</time></div>`;
}

function row(view: InboxView, review: InboxRow, list: string): SafeHtml {
  const app = view.presenter.app(review.appHandle, review.appName);
  const severity = view.presenter.severity(review);
  const excerpt = truncate(review.content.trim(), EXCERPT) || '(no text)';
  return html`<tr data-review-id="${review.id}" data-status="${review.status}">
  <td><label class="select"><input type="checkbox" name="ids" value="${review.id}" form="bulk" aria-label="Select the review by ${review.reviewer || 'anonymous'}"></label></td>
  <td>${starsOf(review.rating)}</td>
  <td><a class="excerpt" href="${reviewHref(review.id, list)}">${excerpt}</a>${review.removedAt ? html`<div class="removed-mark small">${removedMark(review.removedAt)}</div>` : ''}</td>
  <td><a href="/apps/${app.handle}">${app.name}</a>${app.role === 'competitor' ? html` <span class="muted small">(competitor)</span>` : ''}</td>
  <td>${review.reviewer || 'anonymous'}<div class="muted small">${review.location}${review.timeUsingApp ? html` · ${review.timeUsingApp}` : ''}</div></td>
  <td class="small">${reviewTimes(review, view.now)}</td>
  <td>${review.priority ? html`<span class="badge p-${review.priority}">${review.priority}</span>` : html`<span class="muted small">no alert</span>`}
    <ul class="reasons">${severity.reasons.map((r) => html`<li>${r}</li>`)}</ul></td>
  <td><span class="status">${statusLabel(review.status)}</span>${review.assignee ? html`<div class="small">→ ${review.assignee}</div>` : ''}</td>
  <td>${topicChips(review.topics)}${review.tags.map((t) => html`<a class="tag" href="/${queryString({ tag: t })}">${t}</a>`)}</td>
</tr>`;
}

/** Bulk actions: the rows' checkboxes belong to this form (`form="bulk"`), so it works without JavaScript. */
function bulkForm(view: InboxView): SafeHtml {
  return html`<form class="bulk" id="bulk" method="post" action="/reviews/bulk" data-replace>${csrfField(view.principal)}
  <input type="hidden" name="back" value="/${queryString(view.query)}">
  <label class="field">With the selected reviews <select name="action" required>
    <option value="">choose…</option>
    ${TRIAGE_STATUSES.map((s) => html`<option value="status:${s}">set status: ${s}</option>`)}
    ${view.users.map((u) => html`<option value="assign:${u}">assign to ${u}</option>`)}
    <option value="assign:">unassign</option>
    <option value="tag">add the tag to add</option>
  </select></label>
  <label class="field">Tag to add <input type="text" name="tag" maxlength="40" size="12"></label>
  <button type="submit">Apply</button>
</form>`;
}

/** The statuses a view keeps, for the script: a row set to another leaves the list (with an undo). */
const VIEW_STATUSES: Partial<Record<View, string>> = {
  open: 'new,acknowledged',
  new: 'new',
  mine: 'new,acknowledged',
  resolved: 'resolved',
  ignored: 'ignored',
};

/** A count as a tab shows it: "1,204", or "10,000+" past what was counted. */
function countText(n: number, capped: boolean): string {
  return `${formatCount(n)}${capped ? '+' : ''}`;
}

/** The views as tabs, each with its count under the same filters; Mine only for someone logged in. */
function tabs(view: InboxView): SafeHtml {
  const counts = view.counts;
  const shown = VIEWS.filter((v) => v !== 'mine' || view.principal.kind === 'user');
  return html`<nav class="views" aria-label="Views"><ul>${shown.map((v) => {
    const current = v === view.view;
    return html`<li data-view="${v}"><a href="/${queryString(tabQuery(view.query, v))}"${current ? html` aria-current="page"` : ''}>${VIEW_LABELS[v]}${
      counts ? html` <span class="count">${countText(counts.counts[v], counts.capped)}</span>` : ''
    }</a></li>`;
  })}</ul></nav>`;
}

/** What was just done and its Undo button: over the list, and over a review's page after a change there. */
export function undoNotice(principal: Principal, undo: UndoNotice): SafeHtml {
  return html`<div class="notice" role="status" id="undo-notice"><span>${undo.text}</span>
<form class="inline" method="post" action="/reviews/undo" data-replace>${csrfField(principal)}
  <input type="hidden" name="events" value="${undo.events.join(',')}">
  <input type="hidden" name="back" value="${undo.back}">
  <button type="submit">Undo</button></form></div>`;
}

export function inboxPage(view: InboxView): string {
  const { page } = view;
  const body = html`<h1>Inbox</h1>
${tabs(view)}
${openCountNote(view)}
${fold(filtersLabel(view.query), filtersForm(view), { remember: 'filters', open: view.problems.length > 0 })}
${viewNotice(view)}
${
  view.problems.length > 0
    ? html`<div class="error" role="alert"><p>These filters cannot be applied; correct them above:</p>
<ul>${view.problems.map((p) => html`<li>${p.message}</li>`)}</ul></div>`
    : ''
}
${view.undo ? undoNotice(view.principal, view.undo) : ''}
${view.bulkError ? html`<p class="error" role="alert" id="bulk-error">${view.bulkError}</p>` : ''}
${page ? listOf(view, page) : ''}`;
  // The view's own count is on its tab; the title leads with the open count, kept live (web/live.ts).
  const title = `${VIEW_LABELS[view.view]} · Inbox`;
  return layout({ title, principal: view.principal, body, live: view.live });
}

function listOf(view: InboxView, page: InboxPage): SafeHtml {
  const { query } = view;
  const list = listRef(view);
  const total = view.counts
    ? html`<p class="total" id="total">${view.counts.capped ? 'at least ' : ''}${plural(view.counts.total, 'review')} in ${VIEW_LABELS[view.view]}${
        query.cursor ? html`; ${plural(page.rows.length, 'row')} on this page` : ''
      }</p>`
    : '';
  const statuses = VIEW_STATUSES[view.view];
  // The total and the bulk actions share a line on a wide screen: the first review stays high.
  return html`<div class="list-head">${total}${page.rows.length > 0 ? fold('Bulk actions', bulkForm(view)) : ''}</div>${
    page.rows.length === 0
      ? html`<p>${query.cursor ? 'No reviews match on this page.' : emptyText(view)}</p>`
      : html`<table class="inbox"${statuses ? html` data-view-statuses="${statuses}"` : ''}>
  <thead><tr><th><span class="visually-hidden">Select</span></th><th>Rating</th><th>Review</th><th>App</th><th>Reviewer</th><th>Posted</th><th>Severity</th><th>Status</th><th>Topics and tags</th></tr></thead>
  <tbody>${page.rows.map((r) => row(view, r, list))}</tbody>
</table>`
  }
<p class="muted small">Keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous review, <kbd>a</kbd> acknowledged, <kbd>r</kbd> resolved, <kbd>i</kbd> ignored, <kbd>x</kbd> select, <kbd>/</kbd> search, <kbd>?</kbd> all keys.</p>
${keysDialog('list')}
<nav class="pages" aria-label="Pages">
  ${query.cursor ? html`<a href="/${queryString(query, { cursor: undefined })}">← First page</a>` : ''}
  <a href="/export.csv${queryString({ ...query, view: view.view }, { cursor: undefined, limit: undefined })}" download>Export this view as CSV</a>
  ${page.next ? html`<a rel="next" href="/${queryString(query, { cursor: page.next })}">Next page →</a>` : ''}
</nav>`;
}

/** What an empty view says: an emptied queue is good news. */
function emptyText(view: InboxView): string {
  // "billing" may be a topic the reader took for a tag: topics have a filter of their own.
  const tag = view.query.tag
    ? ` None has the tag "${view.query.tag}": topics (the chips marked "topic") are not tags; choose it under Topic instead.`
    : '';
  return `${emptyBase(view)}${tag}`;
}

function emptyBase(view: InboxView): string {
  if (view.view === 'open' || view.view === 'new' || view.view === 'mine') {
    return 'Nothing to triage here: every review matching these filters is handled.';
  }
  return 'No reviews match.';
}
