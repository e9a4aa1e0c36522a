/**
 * The market overview (`/market`): every watched app with its rating and the week's change, its rank in
 * each tracked category with the week's move, its open low reviews, and its last listing change. Names
 * and changes come from the marketplace: the `html` template escapes them.
 */

import type { Principal } from '../auth.js';
import { queryString } from '../filters.js';
import { html, type SafeHtml } from '../html.js';
import { appPath, categoryPath } from '../market-json.js';
import {
  type CategoryRank,
  type CategoryStatus,
  DAY_MS,
  FEED_DAYS,
  type MarketOverview,
  type OverviewApp,
  shortDay,
} from '../market-views/index.js';
import { formatDay, formatTime } from '../present.js';
import { type LivePage, layout } from './layout.js';
import { movesListHtml, rankStoryHtml } from './market-moves.js';

/** What the Built-for badge is, wherever a page shows it. */
export const BUILT_FOR_NOTE =
  'Built for: the marketplace gives this badge to apps that meet its bar for performance, design and integration; it sorts them higher and marks them in its listings.';

/** "▲3", "▼8", "±0" for places climbed; nothing when it cannot be told. */
export function moveHtml(move: number | null): SafeHtml | '' {
  if (move === null) return '';
  if (move === 0) return html`<span class="move same" title="no move over the week">±0</span>`;
  const up = move > 0;
  return html`<span class="move ${up ? 'up' : 'down'}" title="${up ? 'up' : 'down'} ${Math.abs(move)} place${Math.abs(move) === 1 ? '' : 's'} over the week">${up ? '▲' : '▼'}${Math.abs(move)}</span>`;
}

/** A rank and its week's move, or that it came into or left the tracked pages. */
export function rankHtml(rank: CategoryRank): SafeHtml {
  const then = rank.before?.rank ?? null;
  if (rank.rank === null) {
    return then === null
      ? html`<span class="muted">not in the tracked pages</span>`
      : html`<span class="move down">left the tracked pages</span> <span class="muted">(was #${then})</span>`;
  }
  const entered = rank.before !== null && then === null;
  return html`<strong>#${rank.rank}</strong>${rank.sponsored ? html` <span class="tag">ad</span>` : ''} ${
    entered ? html`<span class="move up">new in the tracked pages</span>` : moveHtml(rank.move)
  }`;
}

function ratingChangeHtml(change: number | null, since: Date | null): SafeHtml | string {
  if (change === null) return html`<span class="muted" title="no earlier rating stored">—</span>`;
  const size = Math.abs(change).toFixed(2);
  const note = since ? html` <span class="muted small">since ${shortDay(since)}</span>` : '';
  if (size === '0.00') return html`<span class="move same">±0</span>${note}`;
  return html`<span class="move ${change > 0 ? 'up' : 'down'}">${change > 0 ? '▲' : '▼'}${size}</span>${note}`;
}

/**
 * A listing change's colour as the watched app's owner reads it: an own price rise or a competitor's price
 * cut is a threat (red); the other way round, good news.
 */
function changeClass(tone: string, role: OverviewApp['role']): string {
  if (role !== 'competitor' || (tone !== 'up' && tone !== 'down')) return tone;
  return tone === 'down' ? 'threat' : 'relief';
}

export function categoryStateHtml(category: CategoryStatus): SafeHtml {
  switch (category.state) {
    case 'waiting':
      return html`<span class="muted">waiting for its first snapshot</span>`;
    case 'unavailable':
      return html`<span class="error">unavailable since ${formatTime(category.unavailableSince)}</span>${
        category.lastError ? html` <span class="muted">(${category.lastError})</span>` : ''
      }`;
    case 'ok':
      return html`last snapshot ${formatTime(category.lastSnapshotAt)}${
        category.depth === null ? '' : html`, the top ${category.depth} organic places tracked`
      }${category.lastError ? html` <span class="error">· the last snapshot failed: ${category.lastError}</span>` : ''}`;
  }
}

function appRow(app: OverviewApp, names: ReadonlyMap<string, string>): SafeHtml {
  const open = `/${queryString({ app: app.handle, status: ['new', 'acknowledged'], period: 'all' })}`;
  const shown = app.ranks.filter((r) => r.rank !== null || (r.before?.rank ?? null) !== null);
  const change = app.lastChange;
  return html`<tr data-app="${app.handle}">
  <td class="wide"><a href="${appPath(app.handle)}">${app.name}</a>${app.role === 'competitor' ? html` <span class="muted small">(competitor)</span>` : ''}</td>
  <td class="num" data-label="Rating">${app.rating === null ? html`<span class="muted">no rating</span>` : app.rating.toFixed(2)}</td>
  <td class="num" data-label="7 days">${ratingChangeHtml(app.ratingChange, app.ratingSince)}</td>
  <td class="wide" data-label="Rank (the week's move)">${
    app.ranks.length === 0
      ? html`<span class="muted">no snapshot yet</span>`
      : shown.length === 0
        ? html`<span class="muted">not in the tracked pages</span>`
        : html`<ul class="ranks">${shown.map(
            (r) =>
              html`<li><a href="${categoryPath(r.category)}">${names.get(r.category) ?? r.category}</a> ${rankHtml(r)} ${rankStoryHtml(r)}</li>`,
          )}</ul>`
  }</td>
  <td class="num" data-label="Open low reviews"><a href="${open}">${app.openLow}</a></td>
  <td class="wide" data-label="Last listing change">${
    change === null
      ? html`<span class="muted">none seen</span>`
      : html`<span class="muted small">${formatDay(change.at)}</span> <a href="${appPath(app.handle)}#listing" class="change ${changeClass(change.changes[0]?.tone ?? 'changed', app.role)}">${change.changes[0]?.text ?? ''}</a>${
          change.changes.length > 1
            ? html` <span class="muted small">and ${change.changes.length - 1} more</span>`
            : ''
        }`
  }</td>
</tr>`;
}

/** The feed: the last week, then the rest of the last FEED_DAYS days. */
function feedSection(overview: MarketOverview): SafeHtml {
  const weekAgo = overview.at.getTime() - 7 * DAY_MS;
  const week = overview.moves.filter((m) => m.at.getTime() >= weekAgo);
  const earlier = overview.moves.filter((m) => m.at.getTime() < weekAgo);
  return html`<section aria-labelledby="moved-h">
  <h2 id="moved-h">What moved</h2>
  <p class="muted small">Every rank alert, alerted listing change, new entrant and reshuffle, with the explanation its message gave.</p>
  <h3 id="moved-7">Last 7 days <span class="muted small">(${week.length})</span></h3>
  ${movesListHtml(week, 'Nothing moved in the last 7 days: no rank alert, listing change, entrant or reshuffle.')}
  <h3 id="moved-30">8 to ${FEED_DAYS} days ago <span class="muted small">(${earlier.length})</span></h3>
  ${movesListHtml(earlier, `Nothing before that in the last ${FEED_DAYS} days.`)}
</section>`;
}

export function marketPage(view: {
  principal: Principal;
  overview: MarketOverview;
  live?: LivePage;
}): string {
  const { overview } = view;
  const names = new Map(overview.categories.map((c) => [c.handle, c.name]));
  const body = html`<p><a href="/">← Inbox</a></p>
<h1>Market</h1>
<p class="muted">As of ${formatTime(overview.at)}. Ranks are organic (ads apart). Each rank shows two moves, each labelled: <strong>This week</strong>, the latest snapshot against the one a week before; <strong>Rank alert</strong>, the app's last alert, from its usual level to its rank when the move held.</p>
<section aria-labelledby="categories-h">
  <h2 id="categories-h">Tracked categories</h2>
  ${
    overview.categories.length === 0
      ? html`<p class="muted">No category is tracked: list some under <code>categories</code> in the config.</p>`
      : html`<ul class="categories">${overview.categories.map(
          (c) =>
            html`<li><a href="${categoryPath(c.handle)}">${c.name}</a>${c.name === c.handle ? '' : html` <span class="muted small">${c.handle}</span>`}: ${categoryStateHtml(c)}</li>`,
        )}</ul>`
  }
</section>
<section aria-labelledby="apps-h">
  <h2 id="apps-h">Watched apps</h2>
  <table class="market data">
    <thead><tr><th scope="col">App</th><th scope="col" class="num">Rating</th><th scope="col" class="num">7 days</th><th scope="col">Rank (the week's move)</th><th scope="col" class="num">Open low reviews</th><th scope="col">Last listing change</th></tr></thead>
    <tbody>${overview.apps.map((a) => appRow(a, names))}</tbody>
  </table>
  <p class="muted small">A competitor's price cut is shown in red, as a threat; its price rise in green. ${BUILT_FOR_NOTE}</p>
</section>
${feedSection(overview)}`;
  return layout({ title: 'Market', principal: view.principal, body, live: view.live });
}
