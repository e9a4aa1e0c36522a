/**
 * The digest's plain-text alternative: the same information as the HTML, laid out for a fixed-width
 * reader (bars as block characters, tables as padded columns).
 */

import { headlineApps } from '../../digest/summarize.js';
import type {
  DigestApp,
  DigestData,
  DigestReview,
  FailedAlert,
  TrendWeek,
  WorstReview,
} from '../../digest/types.js';
import { STAR_RATINGS } from '../../digest/types.js';
import { formatCount } from '../../util/plural.js';
import { truncate } from '../escape.js';
import { indent, reviewItemText, simulatedParagraphs } from '../text-blocks.js';
import type { DataSource } from '../wording.js';
import { marketText } from './digest-market.js';
import { topicsText } from './digest-topics.js';
import { acknowledgedSentence, openByPriority, openSentence, triageLinks } from './digest-triage.js';
import {
  appTitle,
  capitalize,
  changeSentence,
  coverageNote,
  dayLabel,
  digestReviewItem,
  dropsSentence,
  failedAbout,
  failedKind,
  failedReason,
  failedSentence,
  formatChange,
  formatRating,
  lowLabel,
  percent,
  periodNoun,
  perWeek,
  ratingWithCount,
  reviewsSentence,
  roleLabel,
  summarySentence,
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

function comparison(data: DigestData): string {
  const rows = (data.comparison ?? []).map((r) => [
    `${appTitle(r)} (${roleLabel(r.role)})`,
    rating(r.rating),
    change(r.changeVsLastWeek),
    perWeek(r.reviewsPerWeek),
    r.lowShare === null ? '—' : percent(r.lowShare),
  ]);
  return textTable(
    ['App', 'Rating', 'vs last week', 'Reviews / week', `Low (${lowLabel(data.maxRating)})`],
    rows,
  );
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

function review(item: DigestReview, n: number, timezone: string, severity?: WorstReview['severity']): string {
  return reviewItemText(digestReviewItem(item, timezone, severity), n);
}

function failed(alerts: FailedAlert[], total: number, timezone: string): string {
  const lines = alerts.map(
    (a) =>
      `- ${dayLabel(a.alertAt, timezone)}${a.inPeriod ? '' : ' (still failed)'} · ${failedKind(a.kind)}: ${failedAbout(a)} · to ${a.channel}: ${failedReason(a)}`,
  );
  if (total > alerts.length)
    lines.push(`… and ${formatCount(total - alerts.length)} more: see reviewwatch status.`);
  return lines.join('\n');
}

/** The open reviews and the median wait, and the inbox's views of them when there is an inbox. */
function triageSection(data: DigestData, source: DataSource): string {
  const lines = ['TRIAGE', openSentence(data.triage), acknowledgedSentence(data.triage, data.period)];
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

function appSection(app: DigestApp, data: DigestData): string[] {
  const { timezone } = data.period;
  const noun = periodNoun(data.period);
  const title = `${appTitle(app)} (${app.handle} · ${roleLabel(app.role)})`;
  const parts = [
    `==== ${title} ====`,
    [
      `Rating:          ${ratingWithCount(app.rating.current)}`,
      `vs last week:    ${changeSentence(app.rating.changeVsLastWeek, 'last week')}`,
      `vs 4 weeks ago:  ${changeSentence(app.rating.changeVsFourWeeksAgo, '4 weeks ago')}`,
      `${`${capitalize(noun)}:`.padEnd(17)}${reviewsSentence(app)}`,
      ...(app.drops.length > 0 ? [`Rating drops:    ${dropsSentence(app.drops, timezone)}`] : []),
    ].join('\n'),
  ];
  if (app.reviews.count > 0) parts.push(`Ratings ${noun}\n${distribution(app)}`);
  parts.push(`Last ${app.trend.length} weeks\n${trend(app.trend, timezone)}`);
  if (app.worst.length > 0) {
    parts.push(`Worst reviews ${noun}`);
    app.worst.forEach((r, i) => {
      parts.push(review(r, i + 1, timezone, r.severity));
    });
  }
  if (app.best.length > 0) {
    parts.push(`Best reviews ${noun}`);
    app.best.forEach((r, i) => {
      parts.push(review(r, i + 1, timezone));
    });
  }
  if (app.failedAlertsTotal > 0) {
    parts.push(`Alerts that failed to deliver\n${failed(app.failedAlerts, app.failedAlertsTotal, timezone)}`);
  }
  return parts;
}

export function digestText(data: DigestData, product: string, source: DataSource = {}): string {
  const { period } = data;
  const title = data.quiet ? `${product} weekly digest: a quiet week` : `${product} weekly digest`;
  const parts = [...simulatedParagraphs(source), `${title}\n${period.label} · ${period.timezone}`];
  const note = coverageNote(data.coverage, period.timezone, product);
  if (note !== undefined) parts.push(note);
  parts.push(summarySentence(data));
  if (data.totals.failedAlerts > 0) parts.push(`⚠ ${failedSentence(data.totals.failedAlerts)}.`);
  parts.push(triageSection(data, source));
  if (data.quiet) {
    parts.push(`CURRENT RATINGS\n${glance(data.apps, true)}`);
    for (const app of data.apps.filter((a) => a.failedAlertsTotal > 0)) {
      parts.push(
        `${appTitle(app)}: alerts that failed to deliver\n${failed(app.failedAlerts, app.failedAlertsTotal, period.timezone)}`,
      );
    }
    if (data.market !== null) parts.push(marketText(data.market, period.timezone));
  } else {
    const glanceTitle = data.apps.some((a) => a.role === 'own') ? 'YOUR APPS' : 'APPS';
    parts.push(`${glanceTitle}\n${glance(headlineApps(data.apps), false)}`);
    if (data.comparison !== null) {
      parts.push(`AGAINST COMPETITORS, ${periodNoun(period).toUpperCase()}\n${comparison(data)}`);
    }
    if (data.topics !== null) parts.push(topicsText(data.topics));
    if (data.market !== null) parts.push(marketText(data.market, period.timezone));
    for (const app of data.apps) parts.push(...appSection(app, data));
  }
  parts.push(
    `-- \nSent by ${product}. Weeks run from Monday to Sunday in ${period.timezone}; a review counts in the week of its date. Review text is quoted as posted on the marketplace.`,
  );
  return `${parts.join('\n\n')}\n`;
}
