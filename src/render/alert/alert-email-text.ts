/** The plain-text alternative: the same content as the HTML, laid out for a fixed-width reader. */
import { indent, reviewItemText, simulatedParagraphs } from '../text-blocks.js';
import type { EmailDoc } from './alert-email-doc.js';

export function emailText(doc: EmailDoc): string {
  const parts: string[] = [...simulatedParagraphs(doc.source), doc.title];
  if (doc.summary !== undefined) parts.push(doc.summary);
  if (doc.facts.length > 0) parts.push(doc.facts.map((f) => `${f.label}: ${f.value}`).join('\n'));
  if (doc.quote !== undefined) parts.push(doc.quote === '' ? '(no text)' : indent(doc.quote, '> '));
  if (doc.reasons.length > 0)
    parts.push([`${doc.reasonsLabel ?? 'Why'}:`, ...doc.reasons.map((r) => `- ${r}`)].join('\n'));
  parts.push(...doc.reviews.map((item, i) => reviewItemText(item, i + 1)));
  if (doc.links.length > 0) parts.push(doc.links.map((l) => `${l.label}: ${l.url}`).join('\n'));
  parts.push('-- \nSent by reviewwatch. Review text is quoted as posted on the marketplace.');
  return `${parts.join('\n\n')}\n`;
}
