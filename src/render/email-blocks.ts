/**
 * HTML building blocks that render alike in Outlook (Word's engine), Gmail and Apple Mail: tables only,
 * sizes as both attributes and inline styles, colours as bgcolor and background-color, no classes, no
 * <style>, no images. Bars are table cells of a fixed width and height; Outlook gives an empty cell the
 * height of a line of text, hence the `&nbsp;` with zero font size and an exact line height.
 * Callers pass escaped HTML where a parameter says `Html`; everything else is escaped here.
 */
import type { Priority } from '../scoring/priority.js';
import { escapeHtml } from './escape.js';
import { type DataSource, type ReviewItem, SIMULATED_NOTE } from './wording.js';

/** A rendered mail, whichever message it carries. */
export interface EmailMessage {
  subject: string;
  html: string;
  text: string;
}

/** One font stack and palette for every mail reviewwatch sends. */
export const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

export const COLORS = {
  text: '#18181b',
  muted: '#71717a',
  faint: '#a1a1aa',
  rule: '#e4e4e7',
  track: '#f4f4f5',
  page: '#f4f4f5',
  accent: '#4f46e5',
  down: '#b91c1c',
  up: '#15803d',
  best: '#16a34a',
} as const;

export const PRIORITY_COLORS: Record<Priority, string> = {
  critical: '#b91c1c',
  high: '#c2410c',
  medium: '#a16207',
  low: '#52525b',
};

/** Bar colours per star rating: red for 1 star through green for 5. */
export const STAR_COLORS: Record<number, string> = {
  1: '#dc2626',
  2: '#ea580c',
  3: '#ca8a04',
  4: '#65a30d',
  5: '#16a34a',
};

const TABLE = 'role="presentation" cellpadding="0" cellspacing="0" border="0"';

/** Escaped, with the text's own line breaks kept. */
export function multiline(text: string): string {
  return escapeHtml(text).replace(/\n/g, '<br>');
}

/** A row of the page's main table. */
export function row(inner: string, padding = '0 24px 16px'): string {
  return `<tr><td style="padding:${padding};">${inner}</td></tr>`;
}

/** A solid block of colour `width` × `height` pixels, as a single-cell table. */
export function block(width: number, height: number, color: string): string {
  return (
    `<td width="${width}" height="${height}" bgcolor="${color}" style="width:${width}px;height:${height}px;` +
    `background-color:${color};font-size:0;line-height:${height}px;mso-line-height-rule:exactly;">&nbsp;</td>`
  );
}

/**
 * A horizontal bar: `share` (0..1) of `width` in `color`, the rest as a light track. A share above zero
 * never rounds to an invisible bar.
 */
export function horizontalBar(share: number, width: number, height: number, color: string): string {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(share) ? share : 0));
  let filled = Math.round(clamped * width);
  if (clamped > 0 && filled < 2) filled = 2;
  const cells = [
    filled > 0 ? block(filled, height, color) : '',
    filled < width ? block(width - filled, height, COLORS.track) : '',
  ];
  return `<table ${TABLE} width="${width}" style="width:${width}px;"><tr>${cells.join('')}</tr></table>`;
}

export interface ColumnBar {
  /** Bar height in pixels (0: no bar). */
  height: number;
  color: string;
}

/** A bottom-aligned vertical bar in a cell of fixed height: one column of a bar chart. */
export function verticalBarCell(
  bar: ColumnBar,
  columnWidth: number,
  chartHeight: number,
  barWidth: number,
): string {
  const inner =
    bar.height > 0
      ? `<table ${TABLE} align="center" width="${barWidth}" style="width:${barWidth}px;margin:0 auto;"><tr>${block(barWidth, bar.height, bar.color)}</tr></table>`
      : '&nbsp;';
  return (
    `<td width="${columnWidth}" height="${chartHeight}" align="center" valign="bottom" ` +
    `style="width:${columnWidth}px;height:${chartHeight}px;vertical-align:bottom;text-align:center;font-size:0;line-height:0;">${inner}</td>`
  );
}

/** A cell of text: `styles` is our own CSS (never untrusted); `textHtml` is already escaped. */
export function cell(textHtml: string, styles = '', attributes = ''): string {
  const attrs = attributes === '' ? '' : ` ${attributes}`;
  return `<td${attrs} style="padding:4px 8px;vertical-align:top;${styles}">${textHtml}</td>`;
}

export function headerCell(text: string, align: 'left' | 'right' = 'left'): string {
  return `<th align="${align}" style="padding:4px 8px;text-align:${align};font-size:12px;font-weight:bold;color:${COLORS.muted};border-bottom:1px solid ${COLORS.rule};white-space:nowrap;">${escapeHtml(text)}</th>`;
}

/** A data table: `headers` are plain text, `rowsHtml` are escaped `<tr>` rows. */
export function dataTable(
  headers: Array<{ text: string; align?: 'left' | 'right' }>,
  rowsHtml: string[],
): string {
  const head = `<tr>${headers.map((h) => headerCell(h.text, h.align)).join('')}</tr>`;
  return `<table ${TABLE} width="100%" style="width:100%;font-size:14px;line-height:20px;border-collapse:collapse;">${head}${rowsHtml.join('')}</table>`;
}

/** A table of our own rows, for layouts dataTable does not fit (the bar charts). */
export function layoutTable(rowsHtml: string[], styles = ''): string {
  return `<table ${TABLE} style="${styles}">${rowsHtml.join('')}</table>`;
}

export function heading(text: string, level: 1 | 2 | 3): string {
  const size = level === 1 ? 22 : level === 2 ? 18 : 15;
  const margin = level === 3 ? '0 0 8px' : '0';
  return `<h${level} style="margin:${margin};font-size:${size}px;line-height:${size + 8}px;color:${COLORS.text};">${escapeHtml(text)}</h${level}>`;
}

export function paragraph(textHtml: string, styles = ''): string {
  return `<p style="margin:0;font-size:15px;line-height:22px;${styles}">${textHtml}</p>`;
}

export function muted(text: string): string {
  return `<span style="color:${COLORS.muted};">${escapeHtml(text)}</span>`;
}

/** Coloured text for a change: red when a rating fell, green when it rose. */
export function colored(text: string, color: string | undefined): string {
  return color === undefined ? escapeHtml(text) : `<span style="color:${color};">${escapeHtml(text)}</span>`;
}

/**
 * A listed review's heading, details, text and reasons, for the caller to frame (a card's border and
 * spacing depend on the list it is in).
 */
export function reviewCardBody(item: ReviewItem): string {
  const reasons =
    item.reasons.length === 0
      ? ''
      : `<div style="font-size:13px;color:#52525b;margin:6px 0 0;">Why: ${escapeHtml(item.reasons.join(' · '))}</div>`;
  const content =
    item.content === '' ? `<em style="color:${COLORS.muted};">(no text)</em>` : multiline(item.content);
  const link =
    item.url === undefined
      ? ''
      : `<div style="font-size:13px;margin:6px 0 0;"><a href="${escapeHtml(item.url)}">Open in the inbox</a></div>`;
  return (
    `<div style="font-size:15px;font-weight:bold;">${escapeHtml(item.heading)}</div>` +
    `<div style="font-size:13px;color:${COLORS.muted};margin:2px 0 6px;">${escapeHtml(item.details.join(' · '))}</div>` +
    `<div style="font-size:14px;line-height:20px;">${content}</div>` +
    reasons +
    link
  );
}

/** A whole HTML mail: the head, then `bodyHtml` (the page's tables) as the body. */
export function emailDocument(titleText: string, bodyHtml: string[]): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(titleText)}</title></head>`,
    `<body style="margin:0;padding:0;background-color:${COLORS.page};">`,
    ...bodyHtml,
    '</body></html>',
  ].join('\n');
}

/** The page: a centred 600 px column on a grey background. `rowsHtml` are rows made with `row`. */
export function page(titleText: string, rowsHtml: string[]): string {
  return emailDocument(titleText, [
    `<table ${TABLE} width="100%" bgcolor="${COLORS.page}" style="width:100%;background-color:${COLORS.page};">`,
    '<tr><td align="center" style="padding:24px 12px;">',
    `<table ${TABLE} width="600" bgcolor="#ffffff" style="width:100%;max-width:600px;background-color:#ffffff;border:1px solid ${COLORS.rule};font-family:${FONT};color:${COLORS.text};">`,
    `<tr><td height="4" bgcolor="${COLORS.accent}" style="height:4px;background-color:${COLORS.accent};font-size:0;line-height:4px;mso-line-height-rule:exactly;">&nbsp;</td></tr>`,
    ...rowsHtml,
    '</table>',
    '</td></tr></table>',
  ]);
}

/** The first row of a mail built from simulated data: a banner no reader can miss. None for real data. */
export function simulatedRows(source: DataSource): string[] {
  if (source.simulated !== true) return [];
  return [
    row(
      `<div style="border:2px solid ${COLORS.down};background-color:#fef2f2;color:${COLORS.down};padding:10px 12px;font-size:15px;line-height:22px;font-weight:bold;">${escapeHtml(SIMULATED_NOTE)}</div>`,
      '16px 24px 0',
    ),
  ];
}
