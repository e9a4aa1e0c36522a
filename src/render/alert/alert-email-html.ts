/**
 * Email HTML the common clients render alike: nested tables, inline styles only (Gmail drops <style>
 * blocks in many views), no scripts, no external images (blocked by default, and a tracking vector).
 * Every string from the document is escaped here, and nowhere else.
 */
import {
  COLORS,
  emailDocument,
  FONT,
  multiline,
  PRIORITY_COLORS,
  reviewCardBody,
  row,
  simulatedRows,
} from '../email-blocks.js';
import { escapeHtml } from '../escape.js';
import { type Fact, type Link, tagSimulated } from '../wording.js';
import type { EmailDoc, EmailReviewItem } from './alert-email-doc.js';

function factsTable(facts: Fact[]): string {
  const rows = facts
    .map(
      (f) =>
        `<tr><td style="padding:4px 12px 4px 0;color:${COLORS.muted};white-space:nowrap;vertical-align:top;">${escapeHtml(f.label)}</td>` +
        `<td style="padding:4px 0;vertical-align:top;">${escapeHtml(f.value)}</td></tr>`,
    )
    .join('');
  return `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="font-size:14px;line-height:20px;">${rows}</table>`;
}

function quote(text: string): string {
  const body = text === '' ? `<em style="color:${COLORS.muted};">(no text)</em>` : multiline(text);
  return `<div style="border-left:4px solid #d4d4d8;padding:8px 12px;background-color:#fafafa;font-size:15px;line-height:22px;">${body}</div>`;
}

function reasonsList(reasons: string[], label = 'Why'): string {
  const items = reasons.map((r) => `<li style="margin:0 0 4px;">${escapeHtml(r)}</li>`).join('');
  return `<div style="font-size:14px;font-weight:bold;margin:0 0 4px;">${escapeHtml(label)}</div><ul style="margin:0;padding:0 0 0 20px;font-size:14px;line-height:20px;">${items}</ul>`;
}

function reviewCard(item: EmailReviewItem): string {
  const color = item.priority === undefined ? '#d4d4d8' : PRIORITY_COLORS[item.priority];
  return (
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-left:4px solid ${color};">` +
    `<tr><td style="padding:4px 0 4px 12px;">${reviewCardBody(item)}</td></tr></table>`
  );
}

function linksRow(links: Link[]): string {
  return links
    .map(
      (l) =>
        `<a href="${escapeHtml(l.url)}" style="display:inline-block;margin:0 8px 8px 0;padding:8px 14px;background-color:#18181b;color:#ffffff;text-decoration:none;border-radius:4px;font-size:14px;">${escapeHtml(l.label)}</a>`,
    )
    .join('');
}

export function emailHtml(doc: EmailDoc): string {
  const rows: string[] = [
    `<tr><td style="height:4px;line-height:4px;font-size:0;background-color:${PRIORITY_COLORS[doc.priority]};">&nbsp;</td></tr>`,
    ...simulatedRows(doc.source),
    row(
      `<h1 style="margin:0;font-size:20px;line-height:28px;">${escapeHtml(doc.title)}</h1>`,
      '20px 24px 12px',
    ),
  ];
  if (doc.summary !== undefined) {
    rows.push(row(`<p style="margin:0;font-size:15px;line-height:22px;">${escapeHtml(doc.summary)}</p>`));
  }
  if (doc.facts.length > 0) rows.push(row(factsTable(doc.facts)));
  if (doc.quote !== undefined) rows.push(row(quote(doc.quote)));
  if (doc.reasons.length > 0) rows.push(row(reasonsList(doc.reasons, doc.reasonsLabel)));
  for (const item of doc.reviews) rows.push(row(reviewCard(item)));
  if (doc.links.length > 0) rows.push(row(linksRow(doc.links), '4px 24px 12px'));
  rows.push(
    row(
      `<p style="margin:0;font-size:12px;color:${COLORS.faint};">Sent by reviewwatch. Review text is quoted as posted on the marketplace.</p>`,
      '8px 24px 20px',
    ),
  );
  // Not page(): its bgcolor attributes (which Outlook needs to paint the accent bar) would change every
  // alert's markup, and adopting them is a decision of its own.
  return emailDocument(tagSimulated(doc.title, doc.source), [
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:${COLORS.page};">`,
    '<tr><td align="center" style="padding:24px 12px;">',
    `<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;background-color:#ffffff;border:1px solid ${COLORS.rule};font-family:${FONT};color:${COLORS.text};">`,
    ...rows,
    '</table>',
    '</td></tr></table>',
  ]);
}
