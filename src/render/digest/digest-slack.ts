/**
 * The digest for Slack: a compact summary, not the email. A headline, triage (open reviews, the median
 * wait, a link to them in the inbox when there is one), a line per app (rating, change, new and low
 * reviews; for own apps the review that most needs attention). Every string from
 * the data is escaped for mrkdwn, and the message is fitted within Block Kit's limits by leaving out the
 * last apps, saying how many.
 */

import type { DigestApp, DigestData } from '../../digest/types.js';
import { formatCount, plural } from '../../util/plural.js';
import { escapeMrkdwn, stars, truncate } from '../escape.js';
import {
  context,
  fallback,
  fitsSlack,
  headerBlocks,
  type SectionBlock,
  SLACK_LIMITS,
  type SlackBlock,
  type SlackMessage,
  section,
} from '../slack-blocks.js';
import { excerpt, reviewContent, reviewerName, severityLabel } from '../wording.js';
import { marketSlackEntries } from './digest-market.js';
import { TOPICS_TITLE, topicsSlackEntries } from './digest-topics.js';
import { acknowledgedSentence, openSentence, triageLinks } from './digest-triage.js';
import {
  appTitle,
  coverageNote,
  type DigestRenderOptions,
  digestTitle,
  dropsSentence,
  failedSentence,
  newReviewsBrief,
  productName,
  quotedWorst,
  ratingBrief,
  summaryApps,
  summarySentence,
} from './digest-wording.js';

/** One app's entry stays short whatever its review says. */
const MAX_ENTRY = 700;
const QUOTE_EXCERPT = 150;

/** "*My App* · ★ 4.62 ▼0.1 · 12 new reviews (avg 3.92) · 3 low" (escaped mrkdwn). */
function appLine(app: DigestApp, quiet: boolean, timezone: string): string {
  // Under the competitors heading a competitor needs no label; among the quiet week's ratings it does.
  const role = quiet && app.role === 'competitor' ? ' _(competitor)_' : '';
  const parts = [`*${escapeMrkdwn(appTitle(app))}*${role}`, escapeMrkdwn(ratingBrief(app))];
  if (app.drops.length > 0) parts.push(`▼ ${escapeMrkdwn(dropsSentence(app.drops, timezone))}`);
  if (!quiet) {
    const { count, low } = app.reviews;
    parts.push(newReviewsBrief(app));
    if (count > 0) parts.push(low > 0 ? `*${formatCount(low)} low*` : '0 low');
  }
  return parts.join(' · ');
}

/** The app's line, and for an own app its worst review when that is a low one, quoted. */
function appEntry(app: DigestApp, quiet: boolean, maxRating: number, timezone: string): string {
  const lines = [appLine(app, quiet, timezone)];
  const worst = quotedWorst(app, maxRating);
  if (worst !== undefined) {
    const content = reviewContent(worst);
    const said = content === '' ? '_(no text)_' : `“${escapeMrkdwn(excerpt(content, QUOTE_EXCERPT))}”`;
    lines.push(
      `> ${stars(worst.rating)} ${escapeMrkdwn(reviewerName(worst))}: ${said} _(${escapeMrkdwn(severityLabel(worst.severity))})_`,
    );
  }
  return truncate(lines.join('\n'), MAX_ENTRY);
}

/** Triage in one section; the link's address is the inbox's (safeUrl) with a fixed query. */
function triageText(data: DigestData, options: DigestRenderOptions): string {
  const links = triageLinks(data, options);
  const link =
    links && data.triage.openTotal > 0 ? ` <${escapeMrkdwn(links.open)}|Open them in the inbox>` : '';
  return `*Triage* · ${escapeMrkdwn(openSentence(data.triage))}${link}\n${escapeMrkdwn(acknowledgedSentence(data.triage, data.period))}`;
}

/** Entries packed into as few sections as fit Slack's section limit, in order. */
function pack(entries: string[], separator: string): SectionBlock[] {
  const sections: SectionBlock[] = [];
  let current = '';
  for (const entry of entries) {
    const joined = current === '' ? entry : `${current}${separator}${entry}`;
    if (joined.length <= SLACK_LIMITS.sectionText) {
      current = joined;
      continue;
    }
    if (current !== '') sections.push(section(current));
    current = entry;
  }
  if (current !== '') sections.push(section(current));
  return sections;
}

export function renderDigestSlack(data: DigestData, options: DigestRenderOptions = {}): SlackMessage {
  const product = productName(options);
  const { period, quiet } = data;
  const title = `${digestTitle(data, product)} · ${period.label}`;
  const summary = summarySentence(data);
  const note = coverageNote(data.coverage, period.timezone, product);
  const before: SlackBlock[] = [
    ...headerBlocks(title, options),
    ...(note === undefined ? [] : [section(`:information_source: ${escapeMrkdwn(note)}`)]),
    section(escapeMrkdwn(summary)),
  ];
  if (data.totals.failedAlerts > 0)
    before.push(section(`:warning: ${escapeMrkdwn(failedSentence(data.totals.failedAlerts))}`));
  before.push(section(triageText(data, options)));

  const { main, rest } = summaryApps(data);
  const entries = [
    ...main.map((app) => ({
      group: 'main' as const,
      text: appEntry(app, quiet, data.maxRating, period.timezone),
    })),
    ...rest.map((app) => ({ group: 'rest' as const, text: `• ${appLine(app, quiet, period.timezone)}` })),
  ];
  const footer = `Weeks run Monday to Sunday in ${escapeMrkdwn(period.timezone)}`;
  const topics =
    data.topics === null || quiet
      ? []
      : pack([`*${TOPICS_TITLE}*`, ...topicsSlackEntries(data.topics)], '\n');
  const market =
    data.market === null
      ? []
      : pack(['*Market*', ...marketSlackEntries(data.market, period.timezone)], '\n\n');

  const build = (shown: number): SlackBlock[] => {
    const kept = entries.slice(0, shown);
    const mainTexts = kept.filter((e) => e.group === 'main').map((e) => e.text);
    const restTexts = kept.filter((e) => e.group === 'rest').map((e) => e.text);
    const omitted = entries.length - shown;
    const notes = [footer];
    if (omitted > 0) notes.unshift(`… and ${plural(omitted, 'more app')}`);
    return [
      ...before,
      ...pack(mainTexts, '\n\n'),
      ...(restTexts.length > 0 ? pack([`*Competitors*`, ...restTexts], '\n') : []),
      ...topics,
      ...market,
      context(notes.join(' · ')),
    ];
  };
  let blocks = build(entries.length);
  for (let shown = entries.length - 1; shown >= 0 && !fitsSlack(blocks); shown -= 1) blocks = build(shown);

  return {
    text: fallback(`${title}: ${note === undefined ? '' : `${note} `}${summary}`, options),
    blocks,
  };
}
