/** The plain-text alternative: the same content as the HTML, laid out for a fixed-width reader. */
import type { EmailDoc } from './alert-email-doc.js';

export function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => `${prefix}${line}`.trimEnd())
    .join('\n');
}

export function emailText(doc: EmailDoc): string {
  const parts: string[] = [doc.title];
  if (doc.summary !== undefined) parts.push(doc.summary);
  if (doc.facts.length > 0) parts.push(doc.facts.map((f) => `${f.label}: ${f.value}`).join('\n'));
  if (doc.quote !== undefined) parts.push(doc.quote === '' ? '(no text)' : indent(doc.quote, '> '));
  if (doc.reasons.length > 0) parts.push(['Why:', ...doc.reasons.map((r) => `- ${r}`)].join('\n'));
  doc.reviews.forEach((item, i) => {
    const lines = [`${i + 1}. ${item.heading}`, indent(item.details.join(' · '), '   ')];
    lines.push(item.content === '' ? '   (no text)' : indent(item.content, '   > '));
    if (item.reasons.length > 0) lines.push(`   Why: ${item.reasons.join(' · ')}`);
    parts.push(lines.join('\n'));
  });
  if (doc.links.length > 0) parts.push(doc.links.map((l) => `${l.label}: ${l.url}`).join('\n'));
  parts.push('-- \nSent by reviewwatch. Review text is quoted as posted on the marketplace.');
  return `${parts.join('\n\n')}\n`;
}
