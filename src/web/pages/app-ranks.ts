/**
 * An app's rank section (`/apps/HANDLE`): its listed rating as a number, its rank in each category with
 * both sides of the rank story, a small chart of its ranks, and the market alerts about it with their
 * explanations (pages/market-moves.ts). Also the page of an app seen only in the market.
 */
import type { Principal } from '../auth.js';
import { html, type SafeHtml } from '../html.js';
import { categoryPath } from '../market-json.js';
import { APP_RANK_DAYS, type AppRanks } from '../market-views/index.js';
import { rankChart } from '../rank-chart.js';
import { layout } from './layout.js';
import { rankHtml } from './market.js';
import { movesListHtml, rankStoryHtml } from './market-moves.js';

export function appRanksSection(ranks: AppRanks | undefined, name: string): SafeHtml {
  if (!ranks) {
    return html`<section aria-labelledby="ranks-h" id="ranks">
  <h2 id="ranks-h">Ranks</h2>
  <p class="muted">No tracked category has ranked it yet, and no market alert names it.</p>
</section>`;
  }
  const depth = Math.max(0, ...ranks.ranks.map((r) => r.depth ?? 0));
  return html`<section aria-labelledby="ranks-h" id="ranks">
  <h2 id="ranks-h">Ranks</h2>
  <p>Listed rating: ${
    ranks.rating === null
      ? html`<span class="rating-now muted">no rating</span>`
      : html`<span class="rating-now">${ranks.rating.toFixed(2)}</span>`
  }</p>
  ${
    ranks.ranks.length === 0
      ? html`<p class="muted">No tracked category has a snapshot yet.</p>`
      : html`<table class="market data ranks-now">
    <thead><tr><th scope="col">Category</th><th scope="col">Rank now</th><th scope="col">Its moves</th></tr></thead>
    <tbody>${ranks.ranks.map(
      (r) =>
        html`<tr data-category="${r.category}"><td><a href="${categoryPath(r.category)}">${r.name}</a></td><td data-label="Rank now">${rankHtml(r)}</td><td data-label="Its moves">${rankStoryHtml(r)}</td></tr>`,
    )}</tbody>
  </table>`
  }
  ${rankChart({
    since: ranks.since,
    until: ranks.until,
    depth: depth === 0 ? null : depth,
    series: ranks.series.map((s) => ({ name: s.name, own: true, points: s.points })),
    gaps: [],
    title: `Organic ranks of ${name} over the last ${APP_RANK_DAYS} days`,
    id: 'app-ranks-title',
  })}
  <h3 id="app-moves-h">Market alerts, last ${APP_RANK_DAYS} days</h3>
  ${movesListHtml(ranks.moves, `No rank, listing, entrant or reshuffle alert about it in the last ${APP_RANK_DAYS} days.`)}
</section>`;
}

/** The page of an app no config watches but a category ranked (an entrant, an app that passed yours). */
export function marketAppPage(view: { principal: Principal; handle: string; ranks: AppRanks }): string {
  const name = view.ranks.marketName ?? view.handle;
  const body = html`<p><a href="/market">← Market</a></p>
<h1>${name} <span class="muted small">${view.handle}</span></h1>
<p class="muted">Not a watched app: seen in the tracked categories. Its reviews are not read; add it under <code>apps</code> as a competitor to follow them.</p>
${appRanksSection(view.ranks, name)}`;
  return layout({ title: name, principal: view.principal, body });
}
