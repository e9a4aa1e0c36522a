import { ALERT_KINDS } from '../../kinds.js';
import type { AppPage } from '../../store/app-page.js';
import type { AppTopicsPage } from '../../store/app-topics.js';
import { formatCount } from '../../util/plural.js';
import type { Principal } from '../auth.js';
import { distributionBars, ratingChart, stackedBars } from '../charts.js';
import { queryString } from '../filters.js';
import { html } from '../html.js';
import type { AppRanks, ListingTimeline } from '../market-views/index.js';
import { type AppInfo, formatDay, formatTime } from '../present.js';
import { appRanksSection } from './app-ranks.js';
import { appTopicsSection } from './app-topics.js';
import { type LivePage, layout } from './layout.js';
import { listingSection } from './listing-changes.js';

export interface AppView {
  principal: Principal;
  /** Live updates (layout.ts): the open count, and what the page polls. */
  live?: LivePage;
  app: AppInfo;
  page: AppPage;
  days: number;
  compareWeeks: number;
  /** The listing's changes (the market watch); undefined when it was never read. */
  listing?: ListingTimeline | undefined;
  /** Its ranks and market alerts; undefined when no category ranked it and no market alert names it. */
  ranks?: AppRanks | undefined;
  /** Its topics over time, emerging phrases and the comparison with competitors. */
  topics?: AppTopicsPage | undefined;
}

export function appPageHtml(view: AppView): string {
  const { app, page } = view;
  const open = `/${queryString({ app: app.handle, status: ['new', 'acknowledged'], period: 'all' })}`;
  const markers = page.alerts.map((a) => ({
    at: a.createdAt,
    kind: a.kind,
    label: `${ALERT_KINDS[a.kind].label} (${a.priority}), ${formatTime(a.createdAt)}${
      a.quoted.length === 2 ? `: ${a.quoted.map((v) => v.toFixed(2)).join(' → ')}` : ''
    }`,
    quoted: a.quoted,
  }));
  const now = page.distributionNow;
  const before = page.distributionBefore;
  const body = html`<p><a href="/">← Inbox</a></p>
<h1>${app.name}${app.role === 'competitor' ? html` <span class="muted small">(competitor)</span>` : ''} <span class="muted small">${app.handle}</span></h1>
<p><a href="${open}"><strong>${formatCount(page.open)}</strong> open low-rated review${page.open === 1 ? '' : 's'}</a> (new or acknowledged)</p>
<section aria-labelledby="rating-h">
  <h2 id="rating-h">Rating, last ${view.days} days</h2>
  ${ratingChart(
    page.ratings.map((r) => ({ at: r.at, value: r.average })),
    markers,
    `Average rating of ${app.name} over the last ${view.days} days`,
  )}
  <p class="muted small legend"><span class="key average"></span> average <span class="key displayed"></span> as the listing shows it <span class="key marker"></span> rating-drop and incident alerts</p>
</section>
<section aria-labelledby="distribution-h">
  <h2 id="distribution-h">Rating distribution</h2>
  ${
    now
      ? distributionBars(now.stars, before?.stars, {
          now: `now (${formatDay(now.at)})`,
          before: before ? `${view.compareWeeks} weeks ago (${formatDay(before.at)})` : '',
        })
      : html`<p class="muted">No complete distribution recorded yet.</p>`
  }
</section>
<section aria-labelledby="volume-h">
  <h2 id="volume-h">New reviews per week, by stars</h2>
  ${stackedBars(
    page.weeks.map((w) => ({ label: formatDay(w.week), values: w.stars })),
    `New reviews of ${app.name} per week, by stars`,
  )}
</section>
${appRanksSection(view.ranks, app.name)}
${appTopicsSection(app.handle, view.topics)}
${listingSection(view.listing, app.handle)}
<section aria-labelledby="alerts-h">
  <h2 id="alerts-h">Rating-drop and incident alerts</h2>
  ${page.alerts.length === 0 ? html`<p class="muted">None in the last ${view.days} days.</p>` : ''}
  <ol class="trail">${page.alerts.map(
    (a) =>
      html`<li><span class="badge p-${a.priority}">${a.priority}</span> ${ALERT_KINDS[a.kind].label.toLowerCase()}, ${formatTime(a.createdAt)}</li>`,
  )}</ol>
</section>`;
  return layout({ title: app.name, principal: view.principal, body, live: view.live });
}
