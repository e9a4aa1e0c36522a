/**
 * What reviewers talk about (`/topics`): every watched app's topics over the period, with the trend the
 * engine's rule allows (an arrow only when the change means something: src/topics/trends.ts), and the own
 * apps' share of each topic against each competitor's. Every figure links to the reviews behind it.
 */
import type { TopicFigure } from '../../store/topic-summary.js';
import type { OverviewApp, TopicsOverview } from '../../store/topics-overview.js';
import { comparisonText, percentOf } from '../../store/topics-overview.js';
import type { Principal } from '../auth.js';
import { html, type SafeHtml } from '../html.js';
import { formatDay } from '../present.js';
import { layout } from './layout.js';
import { topicListUrl } from './topic-chips.js';

export const TOPIC_PERIODS = ['7d', '30d', '90d'] as const;
export type TopicPeriodName = (typeof TOPIC_PERIODS)[number];

/** "▲ up 3x" / "▼ down 2x" / "new", or a quiet dash: the rule found no change worth saying. */
export function trendHtml(figure: TopicFigure): SafeHtml {
  const { trend } = figure;
  if (trend.direction === 'flat' || figure.trendText === undefined) {
    return html`<span class="muted" title="no change the trend rule would call one">—</span>`;
  }
  const said = figure.trendText.slice(figure.topic.length + 2);
  const was = `${percentOf(trend.baselineShare)} of reviews in the periods before`;
  return html`<span class="move ${trend.direction}" title="${was}">${trend.direction === 'up' ? '▲' : '▼'} ${said}</span>`;
}

const reviewCount = (n: number) => `${n} review${n === 1 ? '' : 's'}`;

function appSection(app: OverviewApp, period: TopicPeriodName): SafeHtml {
  const id = `app-${app.app}`;
  const rows = app.topics.map(
    (t) => html`<tr>
  <th scope="row"><a href="${topicListUrl(t.topic, { app: app.app, period })}">${t.topic}</a></th>
  <td class="num" data-label="Reviews">${t.reviews}</td>
  <td class="num" data-label="Share">${percentOf(t.share)}</td>
  <td class="num" data-label="Average stars">${t.reviews === 0 ? '—' : t.averageStars.toFixed(1)}</td>
  <td data-label="Trend">${trendHtml(t)}</td>
</tr>`,
  );
  return html`<section aria-labelledby="${id}">
  <h2 id="${id}"><a href="/apps/${app.app}">${app.name}</a>${app.role === 'competitor' ? html` <span class="muted small">(competitor)</span>` : ''}</h2>
  ${
    app.topics.length === 0
      ? html`<p class="muted">${app.reviews === 0 ? 'No reviews in the period.' : `${reviewCount(app.reviews)} in the period, none with a topic.`}</p>`
      : html`<p class="muted small">${reviewCount(app.reviews)} in the period.</p>
  <table class="data topics-table">
    <thead><tr><th scope="col">Topic</th><th scope="col" class="num">Reviews</th><th scope="col" class="num">Share</th><th scope="col" class="num">Average stars</th><th scope="col">Trend</th></tr></thead>
    <tbody>${rows}</tbody>
  </table>`
  }
</section>`;
}

function comparisonSection(overview: TopicsOverview, period: TopicPeriodName): SafeHtml {
  if (overview.comparisons.length === 0) return html``;
  return html`<section aria-labelledby="versus-h">
  <h2 id="versus-h">Your apps against competitors</h2>
  <ul class="versus">${overview.comparisons.map(
    (c) =>
      html`<li><a href="${topicListUrl(c.topic, { role: 'own', period })}">${comparisonText(c)}</a></li>`,
  )}</ul>
</section>`;
}

export function topicsPage(view: {
  principal: Principal;
  overview: TopicsOverview;
  period: TopicPeriodName;
}): string {
  const { overview, period } = view;
  const periods = TOPIC_PERIODS.map((p) =>
    p === period
      ? html`<strong aria-current="page">last ${p}</strong>`
      : html`<a href="/topics?period=${p}">last ${p}</a>`,
  );
  const body = html`<p><a href="/">← Inbox</a></p>
<h1>Topics</h1>
<p class="muted">What reviewers talk about from ${formatDay(overview.from)} to ${formatDay(overview.to)}: each topic's share of an app's reviews, against the eight periods of the same length before. An arrow only when the change passes the trend rule (a binomial test with minimum counts); a dash is no news.</p>
<nav class="periods" aria-label="Period">${periods.map((p, i) => html`${i > 0 ? ' · ' : ''}${p}`)}</nav>
${comparisonSection(overview, period)}
${overview.apps.map((a) => appSection(a, period))}`;
  return layout({ title: 'Topics', principal: view.principal, body });
}
