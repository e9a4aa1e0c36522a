/**
 * The digest email's HTML: every part of its outline (digest-email-outline.ts) drawn in the email's
 * table layout, with charts for the ratings and the trend. Every string from the outline is escaped here.
 */
import { direction } from '../../digest/summarize.js';
import type { DigestApp, DigestData } from '../../digest/types.js';
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
  type Cell,
  type DigestPart,
  type DigestReviewItem,
  digestOutline,
  type FailedList,
  type PartRenderers,
  renderParts,
  type StarBar,
  type Table,
  type WeekPoint,
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
import { digestTitle } from './digest-wording.js';

/** Distribution bars: the share of the period's reviews at each rating. */
const DISTRIBUTION_BAR = { width: 300, height: 12 } as const;
/** The trend chart: eight columns within the 552 px content width. */
const TREND = { column: 64, height: 60, bar: 28, color: COLORS.accent } as const;

function changeColor(delta: number | null): string | undefined {
  if (delta === null) return undefined;
  const d = direction(delta);
  return d === 'down' ? COLORS.down : d === 'up' ? COLORS.up : undefined;
}

function cellHtml(c: Cell): string {
  const text = c.missing
    ? muted(c.text)
    : c.change === undefined
      ? escapeHtml(c.text)
      : colored(c.text, changeColor(c.change));
  const shown = c.strong ? `<strong>${text}</strong>` : text;
  return c.note === undefined ? shown : `${shown} ${muted(c.note)}`;
}

const RIGHT = 'text-align:right;white-space:nowrap;';
const HIGHLIGHT = '#eef2ff';

/** A table of apps: names left, figures right; an own app among competitors shaded. */
function tableHtml(table: Table): string {
  const rows = table.rows.map((r) => {
    const shade = r.highlight ? `background-color:${HIGHLIGHT};` : '';
    const cells = r.cells.map((c, i) => cell(cellHtml(c), i === 0 ? shade : shade + RIGHT));
    return `<tr${r.highlight ? ` bgcolor="${HIGHLIGHT}"` : ''}>${cells.join('')}</tr>`;
  });
  const headers = table.columns.map((text, i) => (i === 0 ? { text } : { text, align: 'right' as const }));
  return dataTable(headers, rows);
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

function distributionChart(bars: StarBar[]): string {
  const rows = bars.map(
    ({ stars, share, count, percent }) =>
      `<tr><td style="padding:2px 8px 2px 0;white-space:nowrap;color:${COLORS.muted};font-size:13px;">${stars} ★</td>` +
      `<td style="padding:2px 0;">${horizontalBar(share, DISTRIBUTION_BAR.width, DISTRIBUTION_BAR.height, STAR_COLORS[stars] ?? COLORS.accent)}</td>` +
      `<td style="padding:2px 0 2px 8px;white-space:nowrap;font-size:13px;">${escapeHtml(count)} ${muted(`(${percent})`)}</td></tr>`,
  );
  return layoutTable(rows, 'font-size:13px;line-height:16px;');
}

function trendChart(trend: WeekPoint[]): string {
  const most = Math.max(0, ...trend.map((w) => w.reviews));
  const last = trend.length - 1;
  const ratings = trend.map(
    (week, i) =>
      `<td width="${TREND.column}" align="center" style="width:${TREND.column}px;padding:0 0 4px;text-align:center;font-size:12px;${i === last ? 'font-weight:bold;' : ''}">${colored(week.rating.text, changeColor(week.rating.change ?? null))}</td>`,
  );
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
      `<td align="center" style="padding:4px 0 0;text-align:center;font-size:12px;${i === last ? 'font-weight:bold;' : ''}">${escapeHtml(week.count)}</td>`,
  );
  const labels = trend.map(
    (week) =>
      `<td align="center" style="padding:0;text-align:center;font-size:11px;color:${COLORS.muted};white-space:nowrap;">${escapeHtml(week.label)}</td>`,
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
  distribution: (part) => [row(heading(part.heading, 3) + distributionChart(part.bars))],
  trend: (part) => [row(heading(part.heading, 3) + trendChart(part.weeks))],
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
  glance: (part) => [row(heading(part.heading, 3) + tableHtml(part))],
  failed: (part) => [row(heading(part.heading, 3) + failedTable(part))],
  comparison: (part) => [row(heading(part.heading, 3) + tableHtml(part))],
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
