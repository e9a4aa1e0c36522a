/**
 * A category's page (`/categories/HANDLE`): the ranks of the own apps, the competitors and the leaders over
 * the span as an SVG with its gaps, the top places now, the new entrants and the apps that left, and the
 * sponsored slots. Every name comes from the marketplace and is escaped by the `html` template.
 */

import type { Principal } from '../auth.js';
import { html, type SafeHtml } from '../html.js';
import { appPath } from '../market-json.js';
import type { CategoryView } from '../market-views/index.js';
import { formatDay, formatTime } from '../present.js';
import { rankChart, SERIES_COLOURS } from '../rank-chart.js';
import { layout } from './layout.js';
import { BUILT_FOR_NOTE, categoryStateHtml, moveHtml } from './market.js';
import { movesListHtml, rankStoryHtml } from './market-moves.js';

const ROLE_LABELS = {
  leader: 'leader',
  own: 'your app',
  competitor: 'competitor',
  passer: 'passed your app',
};
const EVENT_LABELS: Record<string, string> = {
  listing: 'listing change',
  entrant: 'new entrant',
  sponsored: 'sponsored slots',
  incident: 'your possible incident',
  'rating-drop': 'your rating drop',
  rank: 'rank alert',
  reshuffle: 'reshuffle',
};

/** The spans the page offers, in days. */
export const CATEGORY_SPANS = [30, 90, 365] as const;
/** Lists longer than this are cut, saying how many more there are; ads change hands daily, so fewer. */
const MAX_LISTED = 25;
const MAX_SPONSOR_CHANGES = 10;

function more(total: number, max = MAX_LISTED): SafeHtml | '' {
  return total > max
    ? html`<p class="muted small">… and ${total - max} more (all of them: the JSON API).</p>`
    : '';
}

/** An app's name, linked to its page (an app seen only in the market has one too). */
function appName(name: string, handle: string, _watched: ReadonlySet<string>): SafeHtml {
  return html`<a href="${appPath(handle)}">${name}</a>`;
}

/** The ranks over the span as an SVG with its gaps, its legend, and what the gaps were. */
function ranksSection(c: CategoryView, days: number, watched: ReadonlySet<string>): SafeHtml {
  const gapSnapshots = c.gaps.reduce((n, g) => n + g.snapshots, 0);
  return html`<section aria-labelledby="ranks-h">
  <h2 id="ranks-h">Ranks, last ${days} days</h2>
  ${rankChart({
    since: c.since,
    until: c.until,
    depth: c.status.depth,
    series: c.series.map((s) => ({ name: s.name, own: s.role === 'own', points: s.points })),
    gaps: c.gaps,
    title: `Organic ranks in ${c.name} over the last ${days} days`,
    wide: true,
    events: c.events,
  })}
  <ul class="legend series-legend">${c.series.map(
    (s, i) =>
      html`<li><span class="key r${i % SERIES_COLOURS}${s.role === 'own' ? ' own' : ''}"></span> ${appName(s.name, s.handle, watched)} <span class="muted small">${ROLE_LABELS[s.role]}</span> ${
        s.rank === null
          ? html`<span class="muted">not in the tracked pages</span>`
          : html`<strong>#${s.rank}</strong>`
      } ${moveHtml(s.move)}${s.story ? rankStoryHtml(s.story) : ''}</li>`,
  )}</ul>
  <p class="muted small">${c.snapshots} snapshot${c.snapshots === 1 ? '' : 's'}. A line breaks where its app was not in the tracked pages${
    gapSnapshots > 0
      ? html`, and across the hatched ${c.gaps.length === 1 ? 'band' : 'bands'}: <span class="gap-note">${gapSnapshots} snapshot${gapSnapshots === 1 ? '' : 's'} failed (${c.gaps.map((g, i) => html`${i > 0 ? ', ' : ''}${formatDay(g.from)}${g.snapshots > 1 ? html`–${formatDay(g.to)}` : ''}`)}), so no rank is known there</span>`
      : ''
  }.</p>
  ${eventsHtml(c)}
</section>`;
}

/** The markers' key, and each event in words (a marker's tooltip is not enough on a phone). */
function eventsHtml(c: CategoryView): SafeHtml {
  if (c.events.length === 0)
    return html`<p class="muted small">No listing change, entrant, sponsored-slot change or incident of yours in this span.</p>`;
  const kinds = [...new Set(c.events.map((e) => e.kind))];
  return html`<p class="muted small legend">Markers: ${kinds.map(
    (k, i) => html`${i > 0 ? ' ' : ''}<span class="key ev-${k}"></span> ${EVENT_LABELS[k] ?? k}`,
  )}</p>
  <details class="events"><summary>${c.events.length} event${c.events.length === 1 ? '' : 's'} that may explain the moves</summary>
  <ol class="trail">${[...c.events]
    .reverse()
    .slice(0, MAX_LISTED)
    .map(
      (e) =>
        html`<li>${formatTime(e.at)}: <span class="muted small">${EVENT_LABELS[e.kind] ?? e.kind}</span> ${e.label}</li>`,
    )}</ol></details>`;
}

/** The market alerts of this category and of the apps it ranks, with their explanations. */
function movesSection(c: CategoryView, days: number): SafeHtml {
  return html`<section aria-labelledby="cat-moves-h">
  <h2 id="cat-moves-h">What moved</h2>
  ${movesListHtml(c.moves, `No rank alert, listing change, entrant or reshuffle in the last ${days} days.`)}
</section>`;
}

/** The top places in the latest snapshot. */
function topSection(c: CategoryView, watched: ReadonlySet<string>): SafeHtml {
  return html`<section aria-labelledby="top-h">
  <h2 id="top-h">Top ${c.top.length} now</h2>
  ${
    c.top.length === 0
      ? html`<p class="muted">No snapshot yet.</p>`
      : html`<table class="market data top">
    <thead><tr><th scope="col" class="num">Rank</th><th scope="col">App</th><th scope="col" class="num">Rating</th><th scope="col"><abbr title="The marketplace's Built-for badge">Built for</abbr></th><th scope="col">Week</th></tr></thead>
    <tbody>${c.top.map(
      (a) =>
        html`<tr><td class="num">#${a.rank}</td><td>${appName(a.name, a.handle, watched)}${a.sponsored ? html` <span class="tag">ad</span>` : ''}${c.entrants.some((e) => e.handle === a.handle) ? html` <span class="tag new">new</span>` : ''}</td><td class="num" data-label="Rating">${a.rating === null ? '—' : a.rating.toFixed(1)}</td><td data-label="Built for">${a.builtFor === null ? '—' : a.builtFor ? 'yes' : 'no'}</td><td data-label="Week">${moveHtml(a.move)}</td></tr>`,
    )}</tbody>
  </table>
  <p class="muted small">${BUILT_FOR_NOTE} <span class="tag new">new</span>: ranked here for the first time in this span.</p>`
  }
</section>`;
}

/** The apps that ranked here for the first time within the span. */
function entrantsSection(c: CategoryView, days: number, watched: ReadonlySet<string>): SafeHtml {
  return html`<section aria-labelledby="entrants-h">
  <h2 id="entrants-h">New entrants</h2>
  ${
    c.entrants.length === 0
      ? html`<p class="muted">None in the last ${days} days: no app ranked here for the first time.</p>`
      : html`<table class="market data entrants">
    <thead><tr><th scope="col">First ranked</th><th scope="col">App</th><th scope="col" class="num">Came in at</th><th scope="col" class="num">Now</th></tr></thead>
    <tbody>${c.entrants
      .slice(0, MAX_LISTED)
      .map(
        (e) =>
          html`<tr><td class="wide">${formatTime(e.at)}</td><td>${appName(e.name, e.handle, watched)}</td><td class="num" data-label="Came in at">${e.rank === null ? '—' : html`#${e.rank}`}</td><td class="num" data-label="Now">${e.rankNow === null ? html`<span class="muted">left</span>` : html`#${e.rankNow}`}</td></tr>`,
      )}</tbody>
  </table>${more(c.entrants.length)}`
  }
</section>`;
}

/** The apps that left the tracked pages. */
function exitsSection(c: CategoryView, days: number, watched: ReadonlySet<string>): SafeHtml {
  return html`<section aria-labelledby="exits-h">
  <h2 id="exits-h">Left the tracked pages</h2>
  ${
    c.exits.length === 0
      ? html`<p class="muted">None: every app ranked in the last ${days} days is still in the tracked pages.</p>`
      : html`<table class="market data exits">
    <thead><tr><th scope="col">Gone since</th><th scope="col">App</th><th scope="col" class="num">Last rank</th></tr></thead>
    <tbody>${c.exits
      .slice(0, MAX_LISTED)
      .map(
        (e) =>
          html`<tr><td class="wide">${formatTime(e.at)}</td><td>${appName(e.name, e.handle, watched)}</td><td class="num" data-label="Last rank">#${e.lastRank}</td></tr>`,
      )}</tbody>
  </table>${more(c.exits.length)}`
  }
</section>`;
}

/** The sponsored slots now, and who took or gave one up. */
function sponsoredSection(c: CategoryView, watched: ReadonlySet<string>): SafeHtml {
  return html`<section aria-labelledby="sponsored-h">
  <h2 id="sponsored-h">Sponsored slots</h2>
  ${
    c.sponsored.now.length === 0
      ? html`<p class="muted">None in the latest snapshot.</p>`
      : html`<ol class="sponsored">${c.sponsored.now.map(
          (s) =>
            html`<li>${appName(s.name, s.handle, watched)} <span class="muted small">page ${s.page}</span></li>`,
        )}</ol>`
  }
  ${
    c.sponsored.changes.length === 0
      ? ''
      : html`<h3>Who took or gave up a slot</h3><ol class="trail">${c.sponsored.changes
          .slice(0, MAX_LISTED)
          .map(
            (ch) =>
              html`<li>${formatTime(ch.at)}: ${
                ch.added.length > 0
                  ? html`took a slot: ${ch.added.map((a, i) => html`${i > 0 ? ', ' : ''}${appName(a.name, a.handle, watched)}`)}`
                  : ''
              }${ch.added.length > 0 && ch.removed.length > 0 ? '; ' : ''}${
                ch.removed.length > 0
                  ? html`gave one up: ${ch.removed.map((a, i) => html`${i > 0 ? ', ' : ''}${appName(a.name, a.handle, watched)}`)}`
                  : ''
              }</li>`,
          )}</ol>${more(c.sponsored.changes.length, MAX_SPONSOR_CHANGES)}`
  }
</section>`;
}

export function categoryPage(view: { principal: Principal; category: CategoryView; days: number }): string {
  const c = view.category;
  const watched = new Set(c.series.filter((s) => s.role !== 'leader').map((s) => s.handle));
  const spans = CATEGORY_SPANS.map((days) =>
    days === view.days
      ? html`<strong>${days} days</strong>`
      : html`<a href="/categories/${c.handle}?days=${days}">${days} days</a>`,
  );
  const body = html`<p><a href="/market">← Market</a></p>
<h1>Category ${c.name}${c.name === c.handle ? '' : html` <span class="muted small">${c.handle}</span>`}</h1>
<p>${categoryStateHtml(c.status)}</p>
<p class="muted small">Show: ${spans.map((s, i) => html`${i > 0 ? ' · ' : ''}${s}`)}</p>
${ranksSection(c, view.days, watched)}
${movesSection(c, view.days)}
${topSection(c, watched)}
${entrantsSection(c, view.days, watched)}
${exitsSection(c, view.days, watched)}
${sponsoredSection(c, watched)}`;
  return layout({ title: `Category ${c.name}`, principal: view.principal, body });
}
