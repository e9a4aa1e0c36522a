import { appLinks } from '../../render/wording.js';
import type { Neighbours } from '../../store/inbox.js';
import type { ReviewDetail } from '../../store/review-detail.js';
import type { TriageEventRow } from '../../store/schema.js';
import { SYSTEM_ACTOR, TOKEN_ACTOR, TRIAGE_STATUSES } from '../../store/triage.js';
import { plural } from '../../util/plural.js';
import type { Principal } from '../auth.js';
import { html, type SafeHtml, safeUrl } from '../html.js';
import { formatTime, type Presenter } from '../present.js';
import { removedMark, reviewHref, reviewTimes, starsOf, type UndoNotice, undoNotice } from './inbox.js';
import { keysDialog } from './keys.js';
import { csrfField, type LivePage, layout } from './layout.js';
import { topicChips } from './topic-chips.js';

export interface ReviewView {
  principal: Principal;
  /** Live updates (layout.ts): the open count, and what the page polls. */
  live?: LivePage;
  detail: ReviewDetail;
  users: string[];
  presenter: Presenter;
  /** The time "first seen 3 min ago" counts from. */
  now: Date;
  /** The list it was opened from, its query (`view=open&q=refund`), or the default list: the way back. */
  list: string;
  /** Opened from a list (its address names one): every form then keeps it. */
  fromList: boolean;
  /** The reviews before and after it in that list. */
  neighbours: Neighbours;
  /** The change just made on the review before ("resolve & next"), with its undo. */
  undo?: UndoNotice;
  error?: string;
}

const STATUS_KEYS: Record<string, string> = { new: 'n', acknowledged: 'a', resolved: 'r', ignored: 'i' };

function actorName(actor: string): string {
  if (actor === TOKEN_ACTOR) return 'admin token';
  if (actor === SYSTEM_ACTOR) return 'reviewwatch';
  return actor;
}

function describeEvent(event: TriageEventRow): SafeHtml {
  switch (event.field) {
    case 'status':
      return html`set the status from <strong>${event.oldValue}</strong> to <strong>${event.newValue}</strong>`;
    case 'assignee':
      return event.newValue
        ? html`assigned it to <strong>${event.newValue}</strong>${event.oldValue ? html` (was ${event.oldValue})` : ''}`
        : html`unassigned it (was ${event.oldValue})`;
    case 'tag':
      return event.newValue
        ? html`added the tag <span class="tag">${event.newValue}</span>`
        : html`removed the tag <span class="tag">${event.oldValue}</span>`;
    case 'note':
      return html`added a note`;
  }
}

/**
 * Since when the review has its status, and who set it: the last status change of its audit trail, not the
 * triage's last change of any kind (an assignment or a tag is no "new since …, by ana").
 */
function statusSince(detail: ReviewDetail): SafeHtml {
  const set = detail.audit.findLast((e) => e.field === 'status');
  return set
    ? html`<span class="muted small" id="status-since">since ${formatTime(set.at)}, by ${actorName(set.actor)}</span>`
    : html`<span class="muted small" id="status-since">since it was first seen, ${formatTime(detail.review.firstSeenAt)}</span>`;
}

/** The way back to the list, and the previous and next reviews in it. */
function listNav(view: ReviewView): SafeHtml {
  const { previous, next } = view.neighbours;
  return html`<nav class="review-nav" aria-label="Reviews in this list">
  <a id="back-to-list" href="/?${view.list}">← Back to the list</a>
  ${previous ? html`<a id="previous-review" rel="prev" href="${reviewHref(previous.id, view.list)}">← Previous</a>` : html`<span class="muted">first in the list</span>`}
  ${next ? html`<a id="next-review" rel="next" href="${reviewHref(next.id, view.list)}">Next →</a>` : html`<span class="muted">last in the list</span>`}
</nav>`;
}

function triagePanel(view: ReviewView): SafeHtml {
  const { detail, principal } = view;
  const { triage } = detail;
  const action = `/reviews/${detail.review.id}/triage`;
  // Every form keeps the list the review came from; the script replaces the history entry on a change.
  const csrf = html`${csrfField(principal)}${view.fromList ? html`<input type="hidden" name="list" value="${view.list}">` : ''}`;
  const andNext = (status: 'acknowledged' | 'resolved', label: string, key: string) =>
    html`<form method="post" action="${action}" data-replace>${csrf}<input type="hidden" name="action" value="status"><input type="hidden" name="status" value="${status}"><input type="hidden" name="advance" value="next">
      <button type="submit" data-next-status="${status}" aria-keyshortcuts="Shift+${key.toUpperCase()}">${label}</button></form>`;
  return html`<section class="panel" id="triage" aria-labelledby="triage-title">
  <h2 id="triage-title">Triage</h2>
  ${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
  <p>Status: <span class="status" id="status">${triage.status}</span> ${statusSince(detail)}</p>
  <div class="actions" role="group" aria-label="Set the status">${TRIAGE_STATUSES.map(
    (
      status,
    ) => html`<form method="post" action="${action}" data-replace>${csrf}<input type="hidden" name="action" value="status"><input type="hidden" name="status" value="${status}">
      <button type="submit" data-status="${status}" aria-pressed="${String(triage.status === status)}" accesskey="${STATUS_KEYS[status] ?? ''}">${status}</button></form>`,
  )}</div>
  <div class="actions" role="group" aria-label="Set the status and open the next review">
    ${andNext('resolved', 'Resolve & next', 'r')}${andNext('acknowledged', 'Acknowledge & next', 'a')}
  </div>
  <p class="muted small">Keys: <kbd>a</kbd>, <kbd>r</kbd>, <kbd>i</kbd> set the status; <kbd>Shift</kbd>+<kbd>R</kbd> resolve &amp; next, <kbd>Shift</kbd>+<kbd>A</kbd> acknowledge &amp; next; <kbd>j</kbd>/<kbd>k</kbd> next/previous review; <kbd>u</kbd> back to the list; <kbd>?</kbd> all keys.</p>
  ${keysDialog('review')}
  <form method="post" action="${action}" data-replace>${csrf}<input type="hidden" name="action" value="assign">
    <label class="field">Assignee <select name="assignee"><option value="">nobody</option>${view.users.map(
      (u) => html`<option value="${u}"${triage.assignee === u ? html` selected` : ''}>${u}</option>`,
    )}</select></label>
    <button type="submit">Assign</button>
  </form>
  <div>Tags: ${triage.tags.length === 0 ? html`<span class="muted">none</span>` : ''}${triage.tags.map(
    (
      tag,
    ) => html`<form class="inline" method="post" action="${action}" data-replace>${csrf}<input type="hidden" name="action" value="untag"><input type="hidden" name="tag" value="${tag}">
      <span class="tag">${tag}</span><button type="submit" aria-label="Remove the tag ${tag}">×</button></form>`,
  )}</div>
  <form method="post" action="${action}" data-replace>${csrf}<input type="hidden" name="action" value="tag">
    <label class="field">New tag <input type="text" name="tag" maxlength="40" required></label>
    <button type="submit">Add tag</button>
  </form>
  <form method="post" action="${action}" data-replace>${csrf}<input type="hidden" name="action" value="note">
    <label class="field">Note <textarea name="note" rows="3" cols="40" maxlength="10000" required></textarea></label>
    <button type="submit">Add note</button>
  </form>
</section>`;
}

export function reviewPage(view: ReviewView): string {
  const { detail, presenter } = view;
  const { review } = detail;
  const app = presenter.app(review.appHandle, review.appName);
  const severity = presenter.severity(review);
  const [listing, reviews] = appLinks({
    handle: review.appHandle,
    name: review.appName,
    url: review.appUrl,
  }).map((l) => safeUrl(l.url));
  const priority = detail.alerts
    .map((a) => a.alert.priority)
    .sort(
      (a, b) =>
        ['critical', 'high', 'medium', 'low'].indexOf(a) - ['critical', 'high', 'medium', 'low'].indexOf(b),
    )[0];
  const body = html`${listNav(view)}
${view.undo ? undoNotice(view.principal, view.undo) : ''}
<article class="review" aria-labelledby="review-title">
  <h1 id="review-title">${starsOf(review.rating)} <a href="/apps/${app.handle}">${app.name}</a>${app.role === 'competitor' ? html` <span class="muted small">(competitor)</span>` : ''}</h1>
  <p class="muted">${review.reviewer || 'anonymous'} · ${review.location}${review.timeUsingApp ? html` · ${review.timeUsingApp}` : ''}${
    listing ? html` · <a href="${listing}" rel="noopener noreferrer">listing</a>` : ''
  }</p>
  <div class="muted">Posted ${reviewTimes(review, view.now)}</div>
  ${reviews ? html`<p><a class="reply" href="${reviews}" rel="noopener noreferrer">Reply on the marketplace</a> <span class="muted small">(the listing's reviews, where the developer answers)</span></p>` : ''}
  ${review.removedAt ? html`<p class="removed-mark" role="note">${removedMark(review.removedAt)} (found gone ${formatTime(review.removedAt)}): customers no longer see it; its triage, notes and alerts stay.</p>` : ''}
  <div class="text" id="review-text">${review.content || '(no text)'}</div>
  <p>${priority ? html`<span class="badge p-${priority}">${priority}</span> ` : ''}severity ${severity.score}/100 ${topicChips(review.topics)}</p>
  <ul class="reasons">${severity.reasons.map((r) => html`<li>${r}</li>`)}</ul>
</article>
<div class="grid">
${triagePanel(view)}
<section class="panel" aria-labelledby="notes-title">
  <h2 id="notes-title">Notes</h2>
  ${detail.notes.length === 0 ? html`<p class="muted">No notes yet.</p>` : ''}
  ${detail.notes.map((n) => html`<div class="note"><div class="muted small">${actorName(n.author)}, ${formatTime(n.createdAt)}</div><div class="text">${n.body}</div></div>`)}
</section>
</div>
<section aria-labelledby="audit-title">
  <h2 id="audit-title">Audit trail</h2>
  ${detail.audit.length === 0 ? html`<p class="muted">Nobody has changed anything yet.</p>` : ''}
  <ol class="trail" id="audit">${detail.audit.map(
    (e) =>
      html`<li><span class="muted small">${formatTime(e.at)}</span> <strong>${actorName(e.actor)}</strong> ${describeEvent(e)}${e.reason ? html` <span class="muted">(${e.reason})</span>` : ''}</li>`,
  )}</ol>
</section>
<section aria-labelledby="edits-title">
  <h2 id="edits-title">Edit history</h2>
  ${detail.edits.length === 0 ? html`<p class="muted">Never edited.</p>` : ''}
  <ol class="trail">${detail.edits.map(
    (
      e,
    ) => html`<li><span class="muted small">${formatTime(e.detectedAt)}</span> ${starsOf(e.oldRating)} → ${starsOf(e.newRating)}
      ${e.oldContent !== e.newContent ? html`<details><summary>text before the edit</summary><div class="text">${e.oldContent}</div></details>` : ''}</li>`,
  )}</ol>
</section>
<section aria-labelledby="alerts-title">
  <h2 id="alerts-title">Alerts</h2>
  ${detail.alerts.length === 0 ? html`<p class="muted">This review raised no alert.</p>` : ''}
  <ol class="trail">${detail.alerts.map(
    ({
      alert,
      deliveries,
    }) => html`<li><span class="badge p-${alert.priority}">${alert.priority}</span> ${alert.kind} alert, ${formatTime(alert.createdAt)}
      <ul>${deliveries.map(
        (d) =>
          html`<li>${d.channel}: <strong>${d.status}</strong>${d.sentAt ? html` ${formatTime(d.sentAt)}` : ''}${d.attempts > 0 ? html`, ${plural(d.attempts, 'attempt')}` : ''}${d.lastError ? html` <span class="error">${d.lastError}</span>` : ''}</li>`,
      )}</ul></li>`,
  )}</ol>
</section>`;
  return layout({
    title: `${app.name}: review ${review.id}`,
    principal: view.principal,
    body,
    live: view.live,
  });
}
