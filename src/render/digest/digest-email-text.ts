/**
 * The digest's plain-text alternative: the parts of the same outline as the HTML (digest-email-outline.ts),
 * laid out for a fixed-width reader (bars as block characters, tables as padded columns).
 */

import type { DigestApp, DigestData } from '../../digest/types.js';
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
  type StarBar,
  type Table,
  type WeekPoint,
} from './digest-email-outline.js';
import { marketText } from './digest-market.js';
import { topicsText } from './digest-topics.js';
import { acknowledgedSentence, openByPriority, openSentence, triageLinks } from './digest-triage.js';

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

function bar(share: number): string {
  const filled = share > 0 ? Math.max(1, Math.round(share * BAR_WIDTH)) : 0;
  return '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled);
}

function tableText(table: Table): string {
  const rows = table.rows.map((r) =>
    r.cells.map((c) => (c.note === undefined ? c.text : `${c.text} ${c.note}`)),
  );
  return textTable(table.columns, rows);
}

function distribution(bars: StarBar[]): string {
  return bars
    .map(({ stars, share, count, percent }) => `  ${stars} ★ ${bar(share)} ${count} (${percent})`)
    .join('\n');
}

function trend(weeks: WeekPoint[]): string {
  const rows = weeks.map((w) => [w.label, w.rating.text, w.count]);
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
  distribution: (part) => [`${part.heading}\n${distribution(part.bars)}`],
  trend: (part) => [`${part.heading}\n${trend(part.weeks)}`],
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
  glance: (part) => [`${part.heading.toUpperCase()}\n${tableText(part)}`],
  failed: (part) => [`${part.heading}\n${failed(part)}`],
  comparison: (part) => [`${part.heading.toUpperCase()}\n${tableText(part)}`],
  topics: (part) => [topicsText(part.topics)],
  market: (part, { data }) => [marketText(part.market, data.period.timezone)],
  app: (part, { data }) => appSection(part, data.period.timezone),
  footer: (part) => [`-- \n${part.text}`],
};

export function digestText(data: DigestData, product: string, source: DataSource = {}): string {
  const parts = renderParts(digestOutline(data, product), PARTS, { data, source });
  return `${[...simulatedParagraphs(source), ...parts].join('\n\n')}\n`;
}
