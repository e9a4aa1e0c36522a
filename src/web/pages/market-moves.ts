/**
 * The market's "why" on the pages: the rank story of an app in a category (its last rank alert and the
 * week's move, each labelled: docs/inbox.md, "One rank story") and the "what moved" feed, each alert with
 * the explanation its message gave. Every name comes from the marketplace and is escaped by `html`.
 */
import { html, type SafeHtml } from '../html.js';
import { appPath, categoryPath } from '../market-json.js';
import {
  ALERT_MOVE_LABEL,
  alertMoveText,
  type CategoryRank,
  type MoveItem,
  WEEK_MOVE_LABEL,
  weekMoveText,
} from '../market-views/index.js';
import { formatTime } from '../present.js';

const KIND_LABELS: Record<MoveItem['kind'], string> = {
  rank: 'rank move',
  listing: 'listing change',
  entrants: 'new entrants',
  reshuffle: 'reshuffle',
};

/** Both sides of the rank story, each labelled; the alert's side only when there was one. */
export function rankStoryHtml(rank: CategoryRank): SafeHtml {
  return html`<span class="rank-story"><span class="story-week"><span class="muted small">${WEEK_MOVE_LABEL}:</span> ${weekMoveText(rank)}</span>${
    rank.alert
      ? html`<span class="story-alert"><span class="muted small">${ALERT_MOVE_LABEL}:</span> <a href="#move-${rank.alert.alertId}">${alertMoveText(rank.alert)}</a></span>`
      : ''
  }</span>`;
}

function moveHtml(m: MoveItem): SafeHtml {
  const entrants = m.kind === 'entrants' ? new Set(m.apps.map((a) => a.handle)) : new Set<string>();
  return html`<li id="move-${m.id}" class="move-item" data-kind="${m.kind}">
  <div><time datetime="${m.at.toISOString()}" class="muted small">${formatTime(m.at)}</time> <span class="badge p-${m.priority}">${KIND_LABELS[m.kind]}</span>${
    m.category ? html` <a href="${categoryPath(m.category.handle)}" class="small">${m.category.name}</a>` : ''
  }</div>
  <p class="move-title"><strong>${m.title}</strong></p>
  ${
    m.lines.length > 0
      ? html`<p class="muted small">${m.linesLabel}:</p><ul class="why">${m.lines.map((l) => html`<li>${l}</li>`)}</ul>`
      : ''
  }
  ${
    m.apps.length > 0
      ? html`<p class="small">Apps: ${m.apps.map(
          (a, i) =>
            html`${i > 0 ? ', ' : ''}<a href="${appPath(a.handle)}">${a.name}</a>${entrants.has(a.handle) ? html` <span class="tag new">new</span>` : ''}`,
        )}</p>`
      : ''
  }
</li>`;
}

/** A list of moves, newest first, or what it means that there are none. */
export function movesListHtml(moves: readonly MoveItem[], none: string): SafeHtml {
  return moves.length === 0
    ? html`<p class="muted">${none}</p>`
    : html`<ol class="feed">${moves.map(moveHtml)}</ol>`;
}
