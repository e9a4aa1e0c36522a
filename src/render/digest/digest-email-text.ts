/**
 * The digest's plain-text alternative: the same information as the HTML, laid out for a fixed-width
 * reader (bars as block characters, tables as padded columns).
 */

import type { ComparisonRow, DigestApp, DigestData, TrendWeek } from '../../digest/types.js';
import { STAR_RATINGS } from '../../digest/types.js';
import { formatCount } from '../../util/plural.js';
import { truncate } from '../escape.js';
import { indent, reviewItemText, simulatedParagraphs } from '../text-blocks.js';
import type { DataSource } from '../wording.js';
import {
  type AppPart,
  type DigestPart,
  digestOutline,
  type FailedList,
  type PartRenderers,
  renderParts,
} from './digest-email-outline.js';
import { marketText } from './digest-market.js';
import { topicsText } from './digest-topics.js';
import { acknowledgedSentence, openByPriority, openSentence, triageLinks } from './digest-triage.js';
import {
  appTitle,
  formatChange,
  formatRating,
  lowLabel,
  percent,
  perWeek,
  roleLabel,
  weekLabel,
} from './digest-wording.js';

const BAR_WIDTH = 20;
/** Names in a text table are cut so the columns after them stay in view. */
const MAX_CELL = 32;

type Align = 'left' | 'right';

function width(text: string): number {
  return [...text].length;
}

function pad(text: string, size: number, align: Align): string {
  const fill = ' '.repeat(Math.max(0, size - width(text)));
  return align === 'right' ? fill + text : text + fill;
}

/** Padded columns; the first column is left-aligned, the others right-aligned. */
function textTable(headers: string[], rows: string[][]): string {
  const cells = [headers, ...rows].map((r) => r.map((c) => truncate(c, MAX_CELL)));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => width(r[i] ?? ''))));
  return cells
    .map((r) =>
      r
        .map((c, i) => pad(c, widths[i] ?? 0, i === 0 ? 'left' : 'right'))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function change(delta: number | null): string {
  return delta === null ? '—' : formatChange(delta);
}

function rating(average: number | null): string {
  return average === null ? 'no rating' : formatRating(average);
}

function bar(share: number): string {
  const filled = share > 0 ? Math.max(1, Math.round(share * BAR_WIDTH)) : 0;
  return '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled);
}

function glance(apps: DigestApp[], quiet: boolean): string {
  const headers = quiet
    ? ['App', 'Rating', 'vs last week', 'vs 4 weeks ago']
    : ['App', 'Rating', 'vs last week', 'New reviews', 'Low'];
  const rows = apps.map((app) => {
    const name = app.role === 'competitor' ? `${appTitle(app)} (competitor)` : appTitle(app);
    const base = [name, rating(app.rating.current?.average ?? null), change(app.rating.changeVsLastWeek)];
    return quiet
      ? [...base, change(app.rating.changeVsFourWeeksAgo)]
      : [...base, formatCount(app.reviews.count), formatCount(app.reviews.low)];
  });
  return textTable(headers, rows);
}

function comparison(comparisonRows: ComparisonRow[], maxRating: number): string {
  const rows = comparisonRows.map((r) => [
    `${appTitle(r)} (${roleLabel(r.role)})`,
    rating(r.rating),
    change(r.changeVsLastWeek),
    perWeek(r.reviewsPerWeek),
    r.lowShare === null ? '—' : percent(r.lowShare),
  ]);
  return textTable(['App', 'Rating', 'vs last week', 'Reviews / week', `Low (${lowLabel(maxRating)})`], rows);
}

function distribution(app: DigestApp): string {
  const { distribution: d, count } = app.reviews;
  return STAR_RATINGS.map((stars) => {
    const share = count === 0 ? 0 : d[stars] / count;
    return `  ${stars} ★ ${bar(share)} ${formatCount(d[stars])} (${percent(share)})`;
  }).join('\n');
}

function trend(weeks: TrendWeek[], timezone: string): string {
  const rows = weeks.map((w) => [
    weekLabel(w.start, timezone),
    w.rating === null ? '—' : formatRating(w.rating),
    formatCount(w.reviews),
  ]);
  return indent(textTable(['Week of', 'Rating at its end', 'New reviews'], rows), '  ');
}

function failed(list: FailedList): string {
  const lines = list.alerts.map(
    (a) =>
      `- ${a.raised}${a.stillFailed ? ' (still failed)' : ''} · ${a.kind}: ${a.about} · to ${a.channel}: ${a.reason}`,
  );
  if (list.more !== undefined) lines.push(list.more);
  return lines.join('\n');
}

/** The open reviews and the median wait, and the inbox's views of them when there is an inbox. */
function triageSection(title: string, data: DigestData, source: DataSource): string {
  const lines = [
    title.toUpperCase(),
    openSentence(data.triage),
    acknowledgedSentence(data.triage, data.period),
  ];
  const links = triageLinks(data, source);
  if (links && data.triage.openTotal > 0) {
    lines.push(`Open in the inbox: ${links.open}`);
    for (const [priority] of openByPriority(data.triage)) {
      const url = links.byPriority[priority];
      if (url !== undefined) lines.push(`  ${`${priority}:`.padEnd(10)}${url}`);
    }
  }
  return lines.join('\n');
}

/** Its facts' labels padded to one column (the longest label, "vs 4 weeks ago:", and two spaces). */
const FACT_COLUMN = 17;

/** An app's section under its facts: each part a paragraph, a review list one per review. */
const APP_PARTS: PartRenderers<AppPart, { app: DigestApp; timezone: string }, string> = {
  distribution: (part, { app }) => [`${part.heading}\n${distribution(app)}`],
  trend: (part, { app, timezone }) => [`${part.heading}\n${trend(app.trend, timezone)}`],
  reviews: (part) => [part.heading, ...part.reviews.map((r, i) => reviewItemText(r, i + 1))],
  failed: (part) => [`${part.heading}\n${failed(part)}`],
};

function appSection(section: Extract<DigestPart, { kind: 'app' }>, timezone: string): string[] {
  return [
    `==== ${section.title} (${section.subtitle}) ====`,
    section.facts.map((f) => `${`${f.label}:`.padEnd(FACT_COLUMN)}${f.value}`).join('\n'),
    ...renderParts(section.parts, APP_PARTS, { app: section.app, timezone }),
  ];
}

/** The digest's parts as paragraphs; headings of the top-level tables in capitals. */
const PARTS: PartRenderers<DigestPart, { data: DigestData; source: DataSource }, string> = {
  head: (part) => [`${part.title}\n${part.subtitle}`],
  note: (part) => [part.text],
  summary: (part) => [part.text],
  'failed-total': (part) => [part.text],
  triage: (part, { data, source }) => [triageSection(part.heading, data, source)],
  glance: (part) => [`${part.heading.toUpperCase()}\n${glance(part.apps, part.quiet)}`],
  failed: (part) => [`${part.heading}\n${failed(part)}`],
  comparison: (part, { data }) => [`${part.heading.toUpperCase()}\n${comparison(part.rows, data.maxRating)}`],
  topics: (part) => [topicsText(part.topics)],
  market: (part, { data }) => [marketText(part.market, data.period.timezone)],
  app: (part, { data }) => appSection(part, data.period.timezone),
  footer: (part) => [`-- \n${part.text}`],
};

export function digestText(data: DigestData, product: string, source: DataSource = {}): string {
  const parts = renderParts(digestOutline(data, product), PARTS, { data, source });
  return `${[...simulatedParagraphs(source), ...parts].join('\n\n')}\n`;
}
