/**
 * The digest email: a subject with the headline numbers, the HTML, and a plain-text alternative that
 * carries the same information.
 */

import { shortLabel } from '../../digest/period.js';
import { direction, headlineApps } from '../../digest/summarize.js';
import type { DigestApp, DigestData } from '../../digest/types.js';
import { plural } from '../../util/plural.js';
import type { EmailMessage } from '../email-blocks.js';
import { oneLine, truncate } from '../escape.js';
import { type DataSource, SIMULATED_TAG, tagSimulated } from '../wording.js';
import { digestHtml } from './digest-email-html.js';
import { digestText } from './digest-email-text.js';
import { type DigestRenderOptions, productName } from './digest-wording.js';

/** Inboxes show less than this; it leaves room for several apps' ratings. */
const MAX_SUBJECT = 200;
/** Apps named in a subject; the rest are summed up as "+N more". */
const SUBJECT_APPS = 3;

/** "my-app 4.6 (▼0.1)": the displayed (one-decimal) rating, and its change when there is one. */
function subjectRating(app: DigestApp): string | undefined {
  const current = app.rating.current;
  if (current === null) return undefined;
  const delta = app.rating.changeVsLastWeek;
  let change = '';
  if (delta !== null && direction(delta) !== 'same') {
    const size = String(Number(Math.abs(delta).toFixed(Math.abs(delta) >= 0.05 ? 1 : 2)));
    change = ` (${delta < 0 ? '▼' : '▲'}${size})`;
  }
  return `${oneLine(app.handle)} ${current.average.toFixed(1)}${change}`;
}

/** As many apps' ratings as fit in `room` (at most SUBJECT_APPS), the rest counted. */
function subjectApps(data: DigestData, room: number): string {
  const rated = headlineApps(data.apps)
    .map(subjectRating)
    .filter((r) => r !== undefined);
  for (let shown = Math.min(SUBJECT_APPS, rated.length); shown > 0; shown -= 1) {
    const rest = rated.length - shown;
    const text = rated.slice(0, shown).join(', ') + (rest > 0 ? `, +${rest} more` : '');
    if (text.length <= room) return text;
  }
  return '';
}

/**
 * One line however the data reads: the product name and handles are cleaned of line breaks (a CR/LF in
 * a mail header is header injection), and the whole is capped.
 */
export function digestSubject(data: DigestData, product = 'reviewwatch', source: DataSource = {}): string {
  const name = truncate(oneLine(product), 40) || 'reviewwatch';
  const { totals } = data;
  const numbers = data.quiet
    ? 'quiet week, no new reviews'
    : `${plural(totals.newReviews, 'new review')}, ${totals.lowReviews} low`;
  const head = `${name} weekly: ${numbers}`;
  const tail = ` — ${shortLabel(data.period)}`;
  const tag = source.simulated === true ? SIMULATED_TAG.length + 1 : 0;
  const apps = subjectApps(data, MAX_SUBJECT - tag - head.length - tail.length - 2);
  return tagSimulated(oneLine(`${head}${apps === '' ? '' : `, ${apps}`}${tail}`), source, MAX_SUBJECT);
}

export function renderDigestEmail(data: DigestData, options: DigestRenderOptions = {}): EmailMessage {
  const product = productName(options);
  return {
    subject: digestSubject(data, product, options),
    html: digestHtml(data, product, options),
    text: digestText(data, product, options),
  };
}
