import { direction } from '../../digest/summarize.js';
import type { ComparisonRow, DigestApp, DigestData, TrendWeek } from '../../digest/types.js';
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
import {
  type AppPart,
  type DigestPart,
  type DigestReviewItem,
  digestOutline,
  type FailedList,
  type PartRenderers,
  renderParts,
} from './digest-email-outline.js';
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
  digestTitle,
  formatChange,
  formatRating,
  lowLabel,
  percent,
  perWeek,
  roleLabel,
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

function reviewCard(review: DigestReviewItem): string {
  const border = review.priority === undefined ? COLORS.best : PRIORITY_COLORS[review.priority];
  return (
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;border-left:4px solid ${border};margin:0 0 12px;">` +
    `<tr><td style="padding:2px 0 2px 12px;">${reviewCardBody(review)}</td></tr></table>`
  );
}

function failedTable(list: FailedList): string {
  const rows = list.alerts.map(
    (a) =>
      '<tr>' +
      cell(
        escapeHtml(a.raised) + (a.stillFailed ? `<br>${muted('still failed')}` : ''),
        'white-space:nowrap;',
      ) +
      cell(`${escapeHtml(a.kind)}<br>${muted(a.about)}`) +
      cell(escapeHtml(a.channel)) +
      cell(escapeHtml(a.reason), `color:${COLORS.down};`) +
      '</tr>',
  );
  return (
    dataTable([{ text: 'Raised' }, { text: 'Alert' }, { text: 'Channel' }, { text: 'Reason' }], rows) +
    (list.more === undefined ? '' : paragraph(muted(list.more), 'font-size:13px;margin:6px 0 0;'))
  );
}

/** An app's section under its facts, each part with its heading. */
const APP_PARTS: PartRenderers<AppPart, { app: DigestApp; timezone: string }, string> = {
  distribution: (part, { app }) => [row(heading(part.heading, 3) + distributionChart(app))],
  trend: (part, { app, timezone }) => [row(heading(part.heading, 3) + trendChart(app.trend, timezone))],
  reviews: (part) => [row(heading(part.heading, 3) + part.reviews.map(reviewCard).join(''))],
  failed: (part) => [row(heading(part.heading, 3) + failedTable(part))],
};

function appSection(section: Extract<DigestPart, { kind: 'app' }>, timezone: string): string[] {
  const { app } = section;
  return [
    row(
      `<div style="border-top:1px solid ${COLORS.rule};font-size:0;line-height:0;">&nbsp;</div>`,
      '8px 24px 0',
    ),
    row(
      `${heading(section.title, 2)}<div style="font-size:13px;color:${COLORS.muted};">${escapeHtml(section.subtitle)}</div>`,
      '8px 24px 12px',
    ),
    row(
      factsTable(
        section.facts.map((f) => ({
          label: f.label,
          valueHtml: colored(f.value, changeColor(f.change ?? null)),
        })),
      ),
    ),
    ...renderParts(section.parts, APP_PARTS, { app, timezone }),
  ];
}

const LINK_STYLE = `color:${COLORS.accent};`;

/** Open reviews per priority, each linked to its view of the inbox when there is one; then the median wait. */
function triageSection(title: string, data: DigestData, source: DataSource): string {
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
    heading(title, 3) +
      paragraph(open, 'margin:0 0 6px;') +
      paragraph(escapeHtml(acknowledgedSentence(triage, data.period)), 'margin:0;'),
  );
}

/** The digest's parts as rows of the email's layout table. */
const PARTS: PartRenderers<DigestPart, { data: DigestData; source: DataSource }, string> = {
  head: (part) => [
    row(
      `${heading(part.title, 1)}<div style="font-size:14px;color:${COLORS.muted};margin:4px 0 0;">${escapeHtml(part.subtitle)}</div>`,
      '20px 24px 12px',
    ),
  ],
  note: (part) => [
    row(
      paragraph(
        escapeHtml(part.text),
        `border-left:4px solid ${COLORS.accent};padding:6px 0 6px 12px;background-color:#eef2ff;`,
      ),
    ),
  ],
  summary: (part) => [row(paragraph(escapeHtml(part.text)))],
  'failed-total': (part) => [row(paragraph(escapeHtml(part.text), `color:${COLORS.down};`))],
  triage: (part, { data, source }) => [triageSection(part.heading, data, source)],
  glance: (part) => [row(heading(part.heading, 3) + glanceTable(part.apps, part.quiet))],
  failed: (part) => [row(heading(part.heading, 3) + failedTable(part))],
  comparison: (part, { data }) => [
    row(heading(part.heading, 3) + comparisonTable(part.rows, data.maxRating)),
  ],
  topics: (part) => topicsHtmlRows(part.topics),
  market: (part, { data }) => marketHtmlRows(part.market, data.period.timezone),
  app: (part, { data }) => appSection(part, data.period.timezone),
  footer: (part) => [
    row(
      `<p style="margin:0;font-size:12px;line-height:18px;color:${COLORS.faint};">${escapeHtml(part.text)}</p>`,
      '8px 24px 20px',
    ),
  ],
};

export function digestHtml(data: DigestData, product: string, source: DataSource = {}): string {
  const parts = renderParts(digestOutline(data, product), PARTS, { data, source });
  return page(tagSimulated(`${digestTitle(data, product)} · ${data.period.label}`, source), [
    ...simulatedRows(source),
    ...parts,
  ]);
}
