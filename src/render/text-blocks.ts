/** Plain-text layout shared by the emails' text alternatives, for a fixed-width reader. */
import { type DataSource, type ReviewItem, SIMULATED_NOTE } from './wording.js';

/** Every line of `text` behind `prefix`, with no trailing spaces. */
export function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => `${prefix}${line}`.trimEnd())
    .join('\n');
}

/** The `n`th review of a list: heading, details, quoted text and reasons, indented under the number. */
export function reviewItemText(item: ReviewItem, n: number): string {
  const lines = [`${n}. ${item.heading}`, indent(item.details.join(' · '), '   ')];
  lines.push(item.content === '' ? '   (no text)' : indent(item.content, '   > '));
  if (item.reasons.length > 0) lines.push(`   Why: ${item.reasons.join(' · ')}`);
  if (item.url !== undefined) lines.push(`   Open in the inbox: ${item.url}`);
  return lines.join('\n');
}

/** The first paragraph of a plain-text message built from simulated data; none for real data. */
export function simulatedParagraphs(source: DataSource): string[] {
  return source.simulated === true ? [`*** ${SIMULATED_NOTE} ***`] : [];
}
