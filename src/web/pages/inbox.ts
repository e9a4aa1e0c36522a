import { truncate } from '../../render/escape.js';
import { PRIORITIES } from '../../scoring/priority.js';
import type { InboxPage, InboxRow } from '../../store/inbox.js';
import { TRIAGE_STATUSES } from '../../store/triage.js';
import type { Principal } from '../auth.js';
import { type InboxQuery, MAX_SEARCH_LENGTH, PERIODS, queryString } from '../filters.js';
import { html, type SafeHtml } from '../html.js';
import type { Problem } from '../input.js';
import { type AppInfo, formatDay, formatTime, type Presenter } from '../present.js';
import { csrfField, fold, type LivePage, layout } from './layout.js';

export interface InboxView {
  principal: Principal;
  /** Live updates (layout.ts): the open count, and what the page polls. */
  live?: LivePage;
  query: InboxQuery;
  /** What is wrong with the filters asked for; the list is then not shown, the form is, to correct them. */
  problems: readonly Problem[];
  /** Absent when the filters cannot be applied. */
  page?: InboxPage;
  apps: AppInfo[];
  users: string[];
  maxRating: number;
  presenter: Presenter;
}

const EXCERPT = 280;

export function starsOf(rating: number): SafeHtml {
  const filled = Math.min(5, Math.max(0, rating));
  return html`<span class="stars" role="img" aria-label="${rating} star${rating === 1 ? '' : 's'}">${'★'.repeat(filled)}${'☆'.repeat(5 - filled)}</span>`;
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
  <label class="field" for="q">Search <input type="search" id="q" name="q" value="${query.q ?? ''}" maxlength="${MAX_SEARCH_LENGTH}" placeholder="words in the review"></label>
  <label class="field">App <select name="app">${option('', 'All apps', !query.app)}${view.apps.map((a) => option(a.handle, a.name, query.app === a.handle))}</select></label>
  <label class="field">Role <select name="role">${option('', 'Any', !query.role)}${option('own', 'Own apps', query.role === 'own')}${option('competitor', 'Competitors', query.role === 'competitor')}</select></label>
  <fieldset><legend>Stars</legend>${[1, 2, 3, 4, 5].map((n) => checkbox('stars', n, stars.includes(n), String(n)))}</fieldset>
  <fieldset><legend>Priority</legend>${PRIORITIES.map((p) => checkbox('priority', p, query.priority?.includes(p) ?? false, p))}</fieldset>
  <fieldset><legend>Status</legend>${TRIAGE_STATUSES.map((s) => checkbox('status', s, query.status?.includes(s) ?? false, s))}</fieldset>
  <label class="field">Assignee <select name="assignee">${option('', 'Anyone', !query.assignee)}${view.users.map((u) => option(u, u, query.assignee === u))}</select></label>
  <label class="field">Tagged <input type="text" name="tag" value="${query.tag ?? ''}" size="12"></label>
  <label class="field">Period <select name="period">${Object.keys(PERIODS).map((p) => option(p, p === 'all' ? 'all time' : `last ${p}`, (query.period ?? '30d') === p))}</select></label>
  <label class="field">From <input type="date" name="from" value="${query.from ?? ''}"></label>
  <label class="field">To <input type="date" name="to" value="${query.to ?? ''}"></label>
  <label class="field">Removed from the marketplace <select name="removed">${option('show', 'show, marked', !query.removed)}${option('hide', 'hide', query.removed === 'hide')}${option('only', 'only these', query.removed === 'only')}</select></label>
  <button class="primary" type="submit">Filter</button>
  <a href="/">Reset</a>
</form>`;
}

/** "Removed from the marketplace on 2026-11-20": the day a reconciliation found it gone. */
export function removedMark(removedAt: Date): string {
  return `Removed from the marketplace on ${formatDay(removedAt)}`;
}

function row(view: InboxView, review: InboxRow): SafeHtml {
  const app = view.presenter.app(review.appHandle, review.appName);
  const severity = view.presenter.severity(review);
  const groups = view.presenter.keywordGroups(review.content);
  const excerpt = truncate(review.content.trim(), EXCERPT) || '(no text)';
  return html`<tr data-review-id="${review.id}">
  <td><label class="select"><input type="checkbox" name="ids" value="${review.id}" form="bulk" aria-label="Select the review by ${review.reviewer || 'anonymous'}"></label></td>
  <td>${starsOf(review.rating)}</td>
  <td><a class="excerpt" href="/reviews/${review.id}">${excerpt}</a>${review.removedAt ? html`<div class="removed-mark small">${removedMark(review.removedAt)}</div>` : ''}</td>
  <td><a href="/apps/${app.handle}">${app.name}</a>${app.role === 'competitor' ? html` <span class="muted small">(competitor)</span>` : ''}</td>
  <td>${review.reviewer || 'anonymous'}<div class="muted small">${review.location}${review.timeUsingApp ? html` · ${review.timeUsingApp}` : ''}</div></td>
  <td class="small">${formatTime(review.at)}</td>
  <td>${review.priority ? html`<span class="badge p-${review.priority}">${review.priority}</span>` : html`<span class="muted small">no alert</span>`}
    <ul class="reasons">${severity.reasons.map((r) => html`<li>${r}</li>`)}</ul></td>
  <td><span class="status">${statusLabel(review.status)}</span>${review.assignee ? html`<div class="small">→ ${review.assignee}</div>` : ''}</td>
  <td>${groups.map((g) => html`<span class="tag auto" title="keyword group">${g}</span>`)}${review.tags.map((t) => html`<a class="tag" href="/${queryString({ tag: t })}">${t}</a>`)}</td>
</tr>`;
}

/** Bulk actions: the rows' checkboxes belong to this form (`form="bulk"`), so it works without JavaScript. */
function bulkForm(view: InboxView): SafeHtml {
  return html`<form class="bulk" id="bulk" method="post" action="/reviews/bulk">${csrfField(view.principal)}
  <input type="hidden" name="back" value="/${queryString(view.query)}">
  <label class="field">With the selected reviews <select name="action" required>
    <option value="">choose…</option>
    ${TRIAGE_STATUSES.map((s) => html`<option value="status:${s}">set status: ${s}</option>`)}
    ${view.users.map((u) => html`<option value="assign:${u}">assign to ${u}</option>`)}
    <option value="assign:">unassign</option>
    <option value="tag">add the tag below</option>
  </select></label>
  <label class="field">Tag to add <input type="text" name="tag" maxlength="40" size="12"></label>
  <button type="submit">Apply</button>
</form>`;
}

export function inboxPage(view: InboxView): string {
  const { page } = view;
  const body = html`<h1>Inbox</h1>
${fold('Filters', filtersForm(view))}
${
  view.problems.length > 0
    ? html`<div class="error" role="alert"><p>These filters cannot be applied; correct them above:</p>
<ul>${view.problems.map((p) => html`<li>${p.message}</li>`)}</ul></div>`
    : ''
}
${page ? listOf(view, page) : ''}`;
  return layout({ title: 'Inbox', principal: view.principal, body, live: view.live });
}

function listOf(view: InboxView, page: InboxPage): SafeHtml {
  const { query } = view;
  return html`${
    page.rows.length === 0
      ? html`<p>No reviews match${query.cursor ? ' on this page' : ''}.</p>`
      : html`${fold('Bulk actions', bulkForm(view))}<table class="inbox">
  <thead><tr><th><span class="visually-hidden">Select</span></th><th>Rating</th><th>Review</th><th>App</th><th>Reviewer</th><th>Date</th><th>Severity</th><th>Status</th><th>Tags</th></tr></thead>
  <tbody>${page.rows.map((r) => row(view, r))}</tbody>
</table>`
  }
<p class="muted small">Keys: <kbd>j</kbd>/<kbd>k</kbd> next/previous review, <kbd>a</kbd> acknowledged, <kbd>r</kbd> resolved, <kbd>i</kbd> ignored, <kbd>x</kbd> select, <kbd>/</kbd> search.</p>
<nav class="pages" aria-label="Pages">
  ${query.cursor ? html`<a href="/${queryString(query, { cursor: undefined })}">← Newest</a>` : ''}
  <a href="/export.csv${queryString(query, { cursor: undefined, limit: undefined })}" download>Export this view as CSV</a>
  ${page.next ? html`<a rel="next" href="/${queryString(query, { cursor: page.next })}">Older →</a>` : ''}
</nav>`;
}
