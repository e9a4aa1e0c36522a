import { direction, headlineApps } from '../../digest/summarize.js';
import type {
  ComparisonRow,
  DigestApp,
  DigestData,
  DigestReview,
  FailedAlert,
  TrendWeek,
  WorstReview,
} from '../../digest/types.js';
import { STAR_RATINGS } from '../../digest/types.js';
import { formatCount } from '../../util/plural.js';
import {
  COLORS,
  cell,
  colored,
  dataTable,
  heading,
  horizontalBar,
  layoutTable,
  muted,
  PRIORITY_COLORS,
  page,
  paragraph,
  reviewCardBody,
  row,
  STAR_COLORS,
  simulatedRows,
  verticalBarCell,
} from '../email-blocks.js';
import { escapeHtml } from '../escape.js';
import { type DataSource, tagSimulated } from '../wording.js';
import { marketHtmlRows } from './digest-market.js';
import { topicsHtmlRows } from './digest-topics.js';
import {
  acknowledgedSentence,
  openByPriority,
  openLead,
  openSentence,
  triageLinks,
} from './digest-triage.js';
import {
  appTitle,
  capitalize,
  changeSentence,
  coverageNote,
  dayLabel,
  digestReviewItem,
  dropsSentence,
  failedAbout,
  failedKind,
  failedReason,
  failedSentence,
  formatChange,
  formatRating,
  lowLabel,
  percent,
  periodNoun,
  perWeek,
  ratingWithCount,
  reviewsSentence,
  roleLabel,
  summarySentence,
  weekLabel,
} from './digest-wording.js';

/** Distribution bars: the share of the period's reviews at each rating. */
const DISTRIBUTION_BAR = { width: 300, height: 12 } as const;
/** The trend chart: eight columns within the 552 px content width. */
const TREND = { column: 64, height: 60, bar: 28, color: COLORS.accent } as const;

function changeColor(delta: number | null): string | undefined {
  if (delta === null) return undefined;
  const d = direction(delta);
  return d === 'down' ? COLORS.down : d === 'up' ? COLORS.up : undefined;
}

function changeHtml(delta: number | null): string {
  return delta === null ? muted('—') : colored(formatChange(delta), changeColor(delta));
}

function ratingHtml(average: number | null): string {
  return average === null ? muted('no rating') : escapeHtml(formatRating(average));
}

const RIGHT = 'text-align:right;white-space:nowrap;';

/** Own apps at a glance (every app on a quiet week): rating, change, this period's reviews. */
function glanceTable(apps: DigestApp[], quiet: boolean): string {
  const rows = apps.map((app) => {
    const cells = [
      cell(
        `<strong>${escapeHtml(appTitle(app))}</strong>${app.role === 'competitor' ? ` ${muted('(competitor)')}` : ''}`,
      ),
      cell(ratingHtml(app.rating.current?.average ?? null), RIGHT),
      cell(changeHtml(app.rating.changeVsLastWeek), RIGHT),
    ];
    if (quiet) cells.push(cell(changeHtml(app.rating.changeVsFourWeeksAgo), RIGHT));
    else
      cells.push(
        cell(escapeHtml(formatCount(app.reviews.count)), RIGHT),
        cell(escapeHtml(formatCount(app.reviews.low)), RIGHT),
      );
    return `<tr>${cells.join('')}</tr>`;
  });
  const headers = [
    { text: 'App' },
    { text: 'Rating', align: 'right' as const },
    { text: 'vs last week', align: 'right' as const },
    ...(quiet
      ? [{ text: 'vs 4 weeks ago', align: 'right' as const }]
      : [
          { text: 'New reviews', align: 'right' as const },
          { text: 'Low', align: 'right' as const },
        ]),
  ];
  return dataTable(headers, rows);
}

function comparisonTable(rows: ComparisonRow[], maxRating: number): string {
  const body = rows.map((r) => {
    const own = r.role === 'own';
    const shade = own ? 'background-color:#eef2ff;' : '';
    const name = own ? `<strong>${escapeHtml(appTitle(r))}</strong>` : escapeHtml(appTitle(r));
    return (
      `<tr${own ? ' bgcolor="#eef2ff"' : ''}>` +
      cell(`${name} ${muted(`(${roleLabel(r.role)})`)}`, shade) +
      cell(ratingHtml(r.rating), shade + RIGHT) +
      cell(changeHtml(r.changeVsLastWeek), shade + RIGHT) +
      cell(escapeHtml(perWeek(r.reviewsPerWeek)), shade + RIGHT) +
      cell(r.lowShare === null ? muted('—') : escapeHtml(percent(r.lowShare)), shade + RIGHT) +
      '</tr>'
    );
  });
  return dataTable(
    [
      { text: 'App' },
      { text: 'Rating', align: 'right' },
      { text: 'vs last week', align: 'right' },
      { text: 'Reviews / week', align: 'right' },
      { text: `Low (${lowLabel(maxRating)})`, align: 'right' },
    ],
    body,
  );
}

function factsTable(facts: Array<{ label: string; valueHtml: string }>): string {
  return layoutTable(
    facts.map(
      (f) =>
        `<tr><td style="padding:3px 16px 3px 0;color:${COLORS.muted};white-space:nowrap;vertical-align:top;">${escapeHtml(f.label)}</td>` +
        `<td style="padding:3px 0;vertical-align:top;">${f.valueHtml}</td></tr>`,
    ),
    'font-size:14px;line-height:20px;',
  );
}

function distributionChart(app: DigestApp): string {
  const { distribution, count } = app.reviews;
  const rows = STAR_RATINGS.map((stars) => {
    const n = distribution[stars];
    const share = count === 0 ? 0 : n / count;
    return (
      `<tr><td style="padding:2px 8px 2px 0;white-space:nowrap;color:${COLORS.muted};font-size:13px;">${stars} ★</td>` +
      `<td style="padding:2px 0;">${horizontalBar(share, DISTRIBUTION_BAR.width, DISTRIBUTION_BAR.height, STAR_COLORS[stars] ?? COLORS.accent)}</td>` +
      `<td style="padding:2px 0 2px 8px;white-space:nowrap;font-size:13px;">${escapeHtml(formatCount(n))} ${muted(`(${percent(share)})`)}</td></tr>`
    );
  });
  return layoutTable(rows, 'font-size:13px;line-height:16px;');
}

function trendChart(trend: TrendWeek[], timezone: string): string {
  const most = Math.max(0, ...trend.map((w) => w.reviews));
  const last = trend.length - 1;
  const ratings = trend.map((week, i) => {
    const before = trend[i - 1]?.rating ?? null;
    const delta = week.rating === null || before === null ? null : week.rating - before;
    const text = week.rating === null ? '—' : formatRating(week.rating);
    return `<td width="${TREND.column}" align="center" style="width:${TREND.column}px;padding:0 0 4px;text-align:center;font-size:12px;${i === last ? 'font-weight:bold;' : ''}">${colored(text, changeColor(delta))}</td>`;
  });
  const bars = trend.map((week) => {
    const height =
      most === 0 || week.reviews === 0 ? 0 : Math.max(2, Math.round((week.reviews / most) * TREND.height));
    return verticalBarCell({ height, color: TREND.color }, TREND.column, TREND.height, TREND.bar);
  });
  // One cell across the chart: the axis the bars stand on.
  const baseline = [
    `<td colspan="${trend.length}" height="1" bgcolor="${COLORS.rule}" style="height:1px;background-color:${COLORS.rule};font-size:0;line-height:1px;mso-line-height-rule:exactly;">&nbsp;</td>`,
  ];
  const counts = trend.map(
    (week, i) =>
      `<td align="center" style="padding:4px 0 0;text-align:center;font-size:12px;${i === last ? 'font-weight:bold;' : ''}">${escapeHtml(formatCount(week.reviews))}</td>`,
  );
  const labels = trend.map(
    (week) =>
      `<td align="center" style="padding:0;text-align:center;font-size:11px;color:${COLORS.muted};white-space:nowrap;">${escapeHtml(weekLabel(week.start, timezone))}</td>`,
  );
  return (
    layoutTable(
      [ratings, bars, baseline, counts, labels].map((cells) => `<tr>${cells.join('')}</tr>`),
      'line-height:16px;',
    ) +
    `<div style="font-size:12px;color:${COLORS.muted};margin:6px 0 0;">Above: the rating at the end of each week. Bars and numbers: new reviews that week (weeks by their Monday).</div>`
  );
}

function reviewCard(
  review: DigestReview,
  timezone: string,
  border: string,
  severity?: WorstReview['severity'],
): string {
  return (
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;border-left:4px solid ${border};margin:0 0 12px;">` +
    `<tr><td style="padding:2px 0 2px 12px;">${reviewCardBody(digestReviewItem(review, timezone, severity))}</td></tr></table>`
  );
}

function failedTable(alerts: FailedAlert[], total: number, timezone: string): string {
  const rows = alerts.map(
    (a) =>
      '<tr>' +
      cell(
        escapeHtml(dayLabel(a.alertAt, timezone)) + (a.inPeriod ? '' : `<br>${muted('still failed')}`),
        'white-space:nowrap;',
      ) +
      cell(`${escapeHtml(failedKind(a.kind))}<br>${muted(failedAbout(a))}`) +
      cell(escapeHtml(a.channel)) +
      cell(escapeHtml(failedReason(a)), `color:${COLORS.down};`) +
      '</tr>',
  );
  const more =
    total > alerts.length
      ? paragraph(
          muted(`… and ${formatCount(total - alerts.length)} more: see reviewwatch status.`),
          'font-size:13px;margin:6px 0 0;',
        )
      : '';
  return (
    dataTable([{ text: 'Raised' }, { text: 'Alert' }, { text: 'Channel' }, { text: 'Reason' }], rows) + more
  );
}

function appSection(app: DigestApp, data: DigestData): string[] {
  const { timezone } = data.period;
  const noun = periodNoun(data.period);
  const { rating } = app;
  const rows: string[] = [
    row(
      `<div style="border-top:1px solid ${COLORS.rule};font-size:0;line-height:0;">&nbsp;</div>`,
      '8px 24px 0',
    ),
    row(
      `${heading(appTitle(app), 2)}<div style="font-size:13px;color:${COLORS.muted};">${escapeHtml(app.handle)} · ${escapeHtml(roleLabel(app.role))}</div>`,
      '8px 24px 12px',
    ),
    row(
      factsTable([
        { label: 'Rating', valueHtml: escapeHtml(ratingWithCount(rating.current)) },
        {
          label: 'vs last week',
          valueHtml: colored(
            changeSentence(rating.changeVsLastWeek, 'last week'),
            changeColor(rating.changeVsLastWeek),
          ),
        },
        {
          label: 'vs 4 weeks ago',
          valueHtml: colored(
            changeSentence(rating.changeVsFourWeeksAgo, '4 weeks ago'),
            changeColor(rating.changeVsFourWeeksAgo),
          ),
        },
        { label: capitalize(noun), valueHtml: escapeHtml(reviewsSentence(app)) },
        ...(app.drops.length > 0
          ? [{ label: 'Rating drops', valueHtml: escapeHtml(dropsSentence(app.drops, timezone)) }]
          : []),
      ]),
    ),
  ];
  if (app.reviews.count > 0) rows.push(row(heading(`Ratings ${noun}`, 3) + distributionChart(app)));
  rows.push(row(heading(`Last ${app.trend.length} weeks`, 3) + trendChart(app.trend, timezone)));
  if (app.worst.length > 0) {
    const cards = app.worst.map((r) =>
      reviewCard(r, timezone, PRIORITY_COLORS[r.severity.priority], r.severity),
    );
    rows.push(row(heading(`Worst reviews ${noun}`, 3) + cards.join('')));
  }
  if (app.best.length > 0) {
    const cards = app.best.map((r) => reviewCard(r, timezone, COLORS.best));
    rows.push(row(heading(`Best reviews ${noun}`, 3) + cards.join('')));
  }
  if (app.failedAlertsTotal > 0) {
    rows.push(
      row(
        heading('Alerts that failed to deliver', 3) +
          failedTable(app.failedAlerts, app.failedAlertsTotal, timezone),
      ),
    );
  }
  return rows;
}

const LINK_STYLE = `color:${COLORS.accent};`;

/** Open reviews per priority, each linked to its view of the inbox when there is one; then the median wait. */
function triageSection(data: DigestData, source: DataSource): string {
  const { triage } = data;
  const links = triageLinks(data, source);
  let open = escapeHtml(openSentence(triage));
  if (triage.openTotal > 0) {
    const parts = openByPriority(triage).map(([priority, n]) => {
      const text = colored(`${formatCount(n)} ${priority}`, PRIORITY_COLORS[priority]);
      const url = links?.byPriority[priority];
      return url === undefined ? text : `<a href="${escapeHtml(url)}" style="${LINK_STYLE}">${text}</a>`;
    });
    open = `${escapeHtml(openLead(triage))} ${parts.join(', ')}.`;
    if (links)
      open += ` <a href="${escapeHtml(links.open)}" style="${LINK_STYLE}">Open them in the inbox</a>`;
  }
  return row(
    heading('Triage', 3) +
      paragraph(open, 'margin:0 0 6px;') +
      paragraph(escapeHtml(acknowledgedSentence(triage, data.period)), 'margin:0;'),
  );
}

function quietFailures(data: DigestData): string[] {
  return data.apps
    .filter((app) => app.failedAlertsTotal > 0)
    .map((app) =>
      row(
        heading(`${appTitle(app)}: alerts that failed to deliver`, 3) +
          failedTable(app.failedAlerts, app.failedAlertsTotal, data.period.timezone),
      ),
    );
}

export function digestHtml(data: DigestData, product: string, source: DataSource = {}): string {
  const { period } = data;
  const title = data.quiet ? `${product} weekly digest: a quiet week` : `${product} weekly digest`;
  const rows: string[] = [
    ...simulatedRows(source),
    row(
      `${heading(title, 1)}<div style="font-size:14px;color:${COLORS.muted};margin:4px 0 0;">${escapeHtml(period.label)} · ${escapeHtml(period.timezone)}</div>`,
      '20px 24px 12px',
    ),
  ];
  const note = coverageNote(data.coverage, period.timezone, product);
  if (note !== undefined) {
    rows.push(
      row(
        paragraph(
          escapeHtml(note),
          `border-left:4px solid ${COLORS.accent};padding:6px 0 6px 12px;background-color:#eef2ff;`,
        ),
      ),
    );
  }
  rows.push(row(paragraph(escapeHtml(summarySentence(data)))));
  if (data.totals.failedAlerts > 0) {
    rows.push(
      row(paragraph(escapeHtml(`⚠ ${failedSentence(data.totals.failedAlerts)}.`), `color:${COLORS.down};`)),
    );
  }
  rows.push(triageSection(data, source));
  if (data.quiet) {
    rows.push(row(heading('Current ratings', 3) + glanceTable(data.apps, true)));
    rows.push(...quietFailures(data));
    if (data.market !== null) rows.push(...marketHtmlRows(data.market, period.timezone));
  } else {
    const glance = data.apps.some((a) => a.role === 'own') ? 'Your apps' : 'Apps';
    rows.push(row(heading(glance, 3) + glanceTable(headlineApps(data.apps), false)));
    if (data.comparison !== null) {
      rows.push(
        row(
          heading(`Against competitors, ${periodNoun(period)}`, 3) +
            comparisonTable(data.comparison, data.maxRating),
        ),
      );
    }
    if (data.topics !== null) rows.push(...topicsHtmlRows(data.topics));
    if (data.market !== null) rows.push(...marketHtmlRows(data.market, period.timezone));
    for (const app of data.apps) rows.push(...appSection(app, data));
  }
  rows.push(
    row(
      `<p style="margin:0;font-size:12px;line-height:18px;color:${COLORS.faint};">Sent by ${escapeHtml(product)}. Weeks run from Monday to Sunday in ${escapeHtml(period.timezone)}; a review counts in the week of its date. Review text is quoted as posted on the marketplace.</p>`,
      '8px 24px 20px',
    ),
  );
  return page(tagSimulated(`${title} · ${period.label}`, source), rows);
}
