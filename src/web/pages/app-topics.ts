/**
 * The topics part of an app's page: its topics week by week, the phrases emerging in its low reviews with
 * quotes, and its topics against its competitors'. Quotes are reviewers' text: the `html` template escapes.
 */
import type { AppTopicsPage } from '../../store/app-topics.js';
import { comparisonText, percentOf } from '../../store/topics-overview.js';
import { html, type SafeHtml } from '../html.js';
import { topicListUrl } from './topic-chips.js';

function weeksTable(handle: string, topics: AppTopicsPage): SafeHtml {
  const totals = new Map<string, number>();
  for (const row of topics.rows) totals.set(row.topic, (totals.get(row.topic) ?? 0) + row.reviews);
  const names = [...totals].sort(([a, x], [b, y]) => y - x || a.localeCompare(b)).map(([name]) => name);
  if (names.length === 0)
    return html`<p class="muted">No review of the last ${topics.weeks.length} weeks has a topic.</p>`;
  const cell = (topic: string, week: string) => {
    const row = topics.rows.find((r) => r.topic === topic && r.week === week);
    if (!row) return html`<td class="num muted" data-label="${week}">—</td>`;
    return html`<td class="num" data-label="${week}" title="${row.reviews} review${row.reviews === 1 ? '' : 's'}, ${row.averageStars.toFixed(1)} stars on average">${percentOf(row.share)} <span class="muted small">(${row.reviews}, ${row.averageStars.toFixed(1)}★)</span></td>`;
  };
  return html`<div class="scroll"><table class="data topic-weeks">
  <caption class="muted small">Each week (from its Monday): the topic's share of the app's reviews, with the reviews and their average stars.</caption>
  <thead><tr><th scope="col">Topic</th>${topics.weeks.map((w) => html`<th scope="col" class="num">${w.slice(5)}</th>`)}</tr></thead>
  <tbody>${names.map(
    (topic) =>
      html`<tr><th scope="row"><a href="${topicListUrl(topic, { app: handle, period: '90d' })}">${topic}</a></th>${topics.weeks.map((w) => cell(topic, w))}</tr>`,
  )}</tbody>
</table></div>`;
}

function emergingList(topics: AppTopicsPage): SafeHtml {
  if (topics.emerging.length === 0) {
    return html`<p class="muted">No phrase new or rising in the low reviews of the last 7 days (it takes 3 reviews by 3 reviewers, and a clear rise over the 90 days before).</p>`;
  }
  return html`<ul class="emerging">${topics.emerging.map(
    (
      p,
    ) => html`<li><strong>“${p.phrase}”</strong> <span class="muted small">${p.reviews} reviews by ${p.reviewers} reviewers, ${p.isNew ? 'new' : `${p.baselineReviews} in the 90 days before`}</span>
  <ul class="quotes">${p.quotes.map((q) => html`<li><a href="/reviews/${q.reviewId}">“${q.text}”</a></li>`)}</ul></li>`,
  )}</ul>`;
}

function versusList(handle: string, topics: AppTopicsPage): SafeHtml {
  if (topics.versus.length === 0) {
    return html`<p class="muted">Nothing to compare: the config names no app on the other side (<code>role: competitor</code>), or none has a topic in the last 30 days.</p>`;
  }
  return html`<ul class="versus">${topics.versus.map(
    (c) =>
      html`<li><a href="${topicListUrl(c.topic, { app: handle, period: '30d' })}">${comparisonText(c)}</a></li>`,
  )}</ul>`;
}

export function appTopicsSection(handle: string, topics: AppTopicsPage | undefined): SafeHtml {
  if (!topics) return html``;
  return html`<section aria-labelledby="topics-h">
  <h2 id="topics-h">Topics, last ${topics.weeks.length} weeks</h2>
  ${weeksTable(handle, topics)}
  <h3>Emerging in its low reviews, last 7 days</h3>
  ${emergingList(topics)}
  <h3>Against ${topics.versus.length > 0 && topics.versus[0]?.competitors.some((c) => c.app === handle) ? 'your apps' : 'its competitors'}, last 30 days</h3>
  ${versusList(handle, topics)}
</section>`;
}
