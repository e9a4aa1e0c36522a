/**
 * What the list says about itself where a reader could be misled: a status filter its view does not list
 * (a bookmark from before views), and an open count in the tab's title that differs from the Open tab's.
 */
import { formatCount } from '../../util/plural.js';
import { PAGE_VIEW, queryString, statusesOutside, VIEW_LABELS, viewHolding } from '../filters.js';
import { html, type SafeHtml } from '../html.js';
import type { InboxView } from './inbox.js';

/**
 * A status filter and the view: "Showing Resolved: the Open view lists no resolved reviews" when the
 * view was chosen for it, or, when the view was named and lists none of those statuses, why the list is
 * empty and where they are.
 */
export function viewNotice(view: InboxView): SafeHtml {
  const { query } = view;
  const statuses = query.status;
  if (!statuses || view.problems.length > 0) return html``;
  if (!query.view && view.view !== PAGE_VIEW) {
    return html`<p class="notice" role="status" id="view-notice">Showing ${VIEW_LABELS[view.view]}: the ${VIEW_LABELS[PAGE_VIEW]} view lists no ${statuses.join(' or ')} reviews.</p>`;
  }
  const outside = statusesOutside(view.view, statuses);
  if (outside.length === 0) return html``;
  const { view: _named, ...rest } = query;
  const holding = viewHolding(statuses, view.view);
  const where = html`<a href="/${queryString({ ...rest, view: holding, cursor: undefined })}">${VIEW_LABELS[holding]}</a>`;
  return outside.length === statuses.length
    ? html`<p class="notice" role="status" id="view-notice">The ${VIEW_LABELS[view.view]} view lists no ${outside.join(' or ')} reviews, so this status filter leaves nothing: see them in ${where}.</p>`
    : html`<p class="notice" role="status" id="view-notice">The ${VIEW_LABELS[view.view]} view lists no ${outside.join(' or ')} reviews: the status filter finds only the others here (all of them in ${where}).</p>`;
}

/**
 * The tab's title counts the whole queue (every open low-rated review of own apps, of any date); the Open
 * tab counts what the list's filters let through (the last 30 days by default). When they differ the page
 * says why, next to the tabs; the script keeps both numbers and whether they differ live (inbox.js).
 */
export function openCountNote(view: InboxView): SafeHtml {
  const queue = view.live?.open;
  const tab = view.counts?.counts.open;
  if (queue === undefined || tab === undefined) return html``;
  return html`<p class="muted small" id="open-note"${queue === tab ? html` hidden` : ''}>The title's <span data-count="queue">${formatCount(queue)}</span> is every open review, of any date; the Open tab's <span data-count="open">${formatCount(tab)}</span>, those within these filters (the last 30 days by default). <a href="/?view=open&amp;period=all">List them all</a></p>`;
}

/** The filters a query sets, named as the form labels them, for the folded form's button. */
export function filtersSet(query: InboxView['query']): string[] {
  const set: Array<[unknown, string]> = [
    [query.q, 'search'],
    [query.app, 'app'],
    [query.role, 'role'],
    [query.stars, 'stars'],
    [query.priority, 'priority'],
    [query.status, 'status'],
    [query.assignee, 'assignee'],
    [query.topic, 'topic'],
    [query.tag, 'tag'],
    [query.period, 'period'],
    [query.from ?? query.to, 'dates'],
    [query.removed, 'removed'],
  ];
  return set.filter(([value]) => value !== undefined).map(([, name]) => name);
}

/** "Filters", or "Filters (2 set: search, app)": what a folded form is doing to the list. */
export function filtersLabel(query: InboxView['query']): string {
  const set = filtersSet(query);
  return set.length === 0 ? 'Filters' : `Filters (${set.length} set: ${set.join(', ')})`;
}
