/**
 * Slack Block Kit messages for incoming webhooks. Every piece of text that did not come from this file
 * is escaped (`escapeMrkdwn`) and cut to Slack's limits after escaping, so no review can page a channel,
 * disguise a link, or make Slack reject the message.
 */
import type {
  AppRef,
  IncidentAlert,
  MarketAlert,
  Notification,
  RatingDropAlert,
  ReviewAlert,
  ReviewRef,
  TopicSpikeAlert,
} from '../../alerts/types.js';
import { plural } from '../../util/plural.js';
import { escapeMrkdwn, oneLine, stars, truncate } from '../escape.js';
import { type AlertRenderers, type GroupNotification, renderAlert } from '../renderers.js';
import {
  type ActionsBlock,
  type ContextBlock,
  context,
  fallback,
  field,
  headerBlocks,
  type SectionBlock,
  SLACK_LIMITS,
  type SlackBlock,
  type SlackMessage,
  section,
  slackBlocksSize,
} from '../slack-blocks.js';
import {
  appLinks,
  type DataSource,
  excerpt,
  formatDate,
  inboxLinks,
  type Link,
  priorityLabel,
  reasonsOf,
  reviewContent,
  reviewerLine,
  reviewerName,
  severityLabel,
  tenureText,
} from '../wording.js';
import {
  dropExplanation,
  dropFacts,
  dropHeadline,
  FOUND_EARLIER,
  groupSummary,
  incidentHeadline,
  lateMark,
  NEW_IN_POLL,
  ratingNowLine,
  reviewHeadline,
  spikeList,
} from './alert-wording.js';
import { marketDoc } from './market-wording.js';
import { contextLines, quoteLine, spikeFacts, spikeHeadline } from './spike-wording.js';

export interface SlackRenderOptions extends DataSource {
  /** Names this reviewwatch in the footer, e.g. "Acme support" (also untrusted: escaped). */
  dashboardName?: string;
}

/** Reviews in a list (group, incident) show this much of their text, and of their reasons. */
const LIST_EXCERPT = 200;
const LIST_REASONS = 200;
/** The reasons line of a single review: a handful of reasons, never a wall. */
const MAX_REASONS = 600;
/** Well under Slack's 3,000: a listing URL longer than this is not one to put behind a button. */
const MAX_LINK_URL = 1_000;

/** Escaped text as a mrkdwn quote; cut after escaping and quoting so the limit holds on what is sent. */
function quote(text: string, max: number): string {
  if (text === '') return '_(no text)_';
  const quoted = escapeMrkdwn(text)
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
  return truncate(quoted, max);
}

function actions(
  about: { app: AppRef; review?: Pick<ReviewRef, 'reviewId'> },
  options: SlackRenderOptions,
): ActionsBlock[] {
  return buttons([...inboxLinks(about, options), ...appLinks(about.app)]);
}

function buttons(all: readonly Link[]): ActionsBlock[] {
  const links = all.filter((l) => l.url.length <= MAX_LINK_URL);
  if (links.length === 0) return [];
  return [
    {
      type: 'actions',
      elements: links.map((link, i) => ({
        type: 'button',
        text: { type: 'plain_text', text: truncate(link.label, SLACK_LIMITS.buttonText) },
        url: link.url,
        action_id: `reviewwatch-link-${i}`,
      })),
    },
  ];
}

function footer(options: SlackRenderOptions, note?: string): ContextBlock[] {
  const parts: string[] = [];
  if (note !== undefined) parts.push(note);
  const dashboard = oneLine(options.dashboardName ?? '');
  if (dashboard !== '') parts.push(`reviewwatch · ${escapeMrkdwn(truncate(dashboard, 100))}`);
  return parts.length === 0 ? [] : [context(...parts)];
}

function renderReview(alert: ReviewAlert, options: SlackRenderOptions): SlackMessage {
  const { review, severity } = alert;
  const content = reviewContent(review);
  const reasons = reasonsOf(severity);
  const rating = ratingNowLine(alert);
  // Each part is capped so that even text made of quotes and backslashes (twice as long as JSON) keeps
  // the whole message under SLACK_LIMITS.message.
  const blocks: SlackBlock[] = [
    ...headerBlocks(`${stars(review.rating)} ${reviewHeadline(alert)}`, options),
    section(quote(content, SLACK_LIMITS.sectionText)),
    {
      type: 'section',
      fields: [
        field('Reviewer', reviewerLine(review)),
        field('Date', formatDate(review.createdDate)),
        field('Using the app', tenureText(review.timeUsingApp)),
        field('Severity', severityLabel(severity)),
      ],
    },
    ...(reasons.length > 0
      ? [context(truncate(`*Why:* ${escapeMrkdwn(reasons.join(' · '))}`, MAX_REASONS))]
      : []),
    ...(rating ? [context(`▼ ${rating}`)] : []),
    ...actions(alert, options),
    ...footer(options),
  ];
  const said = content === '' ? '(no text)' : `"${excerpt(content, 200)}"`;
  return {
    text: fallback(
      `${stars(review.rating)} ${reviewHeadline(alert)} by ${reviewerName(review)} (${severityLabel(severity)})${rating ? `, ${rating.toLowerCase()}` : ''}: ${said}`,
      options,
    ),
    blocks,
  };
}

function renderDrop(alert: RatingDropAlert, options: SlackRenderOptions): SlackMessage {
  const explanation = dropExplanation(alert);
  return {
    text: fallback(`▼ ${dropHeadline(alert)}: ${explanation}`, options),
    blocks: [
      ...headerBlocks(`▼ ${dropHeadline(alert)}`, options),
      { type: 'section', fields: dropFacts(alert).map((f) => field(f.label, f.value)) },
      section(`*What explains it:* ${escapeMrkdwn(explanation)}`),
      ...actions(alert, options),
      ...footer(options),
    ],
  };
}

/**
 * Header and summary, then one block per item while they fit in 50 blocks and the total size, then the
 * links, then the footer saying how many items were left out. Items are kept in the order given.
 */
function fitList(
  before: SlackBlock[],
  items: SlackBlock[],
  after: SlackBlock[],
  footerFor: (omitted: number) => ContextBlock[],
): SlackBlock[] {
  const sizes = items.map((b) => JSON.stringify(b).length);
  const fixed = [...before, ...after];
  const fixedSize = fixed.reduce((sum, b) => sum + JSON.stringify(b).length, 0);
  let shown = Math.min(items.length, SLACK_LIMITS.blocks - fixed.length - 1);
  let itemsSize = sizes.slice(0, shown).reduce((sum, n) => sum + n, 0);
  for (; shown >= 0; shown -= 1) {
    const end = footerFor(items.length - shown);
    const count = fixed.length + shown + end.length;
    // JSON of an array: brackets, then one comma between each pair of elements.
    const size = 2 + fixedSize + itemsSize + slackBlocksSize(end) - 2 + Math.max(0, count - 1);
    if (count <= SLACK_LIMITS.blocks && size <= SLACK_LIMITS.message) {
      return [...before, ...items.slice(0, shown), ...after, ...end];
    }
    itemsSize -= sizes[shown - 1] ?? 0;
  }
  return [...before, ...after, ...footerFor(items.length)];
}

function moreNote(omitted: number, noun: string): string | undefined {
  return omitted === 0 ? undefined : `… and ${plural(omitted, `more ${noun}`)}`;
}

/**
 * A review in a list. No button to it: a group of GROUP_SIZE must fit Slack's limits whole, and each
 * delivery of it is marked sent (notify/deliver.ts); the message's own buttons open the app in the inbox.
 */
function listedReview(review: ReviewRef, detail: string): SectionBlock {
  const content = reviewContent(review);
  const said = content === '' ? '_(no text)_' : `> ${escapeMrkdwn(excerpt(content, LIST_EXCERPT))}`;
  const who = `${stars(review.rating)} *${escapeMrkdwn(reviewerLine(review))}* · ${escapeMrkdwn(detail)}`;
  return section(`${who}\n${said}`);
}

function renderIncident(alert: IncidentAlert, options: SlackRenderOptions): SlackMessage {
  const headline = incidentHeadline(alert);
  return {
    text: fallback(
      `⚠ ${headline} (${priorityLabel(alert.priority)})${alert.about ? `: ${alert.about}` : ''}`,
      options,
    ),
    blocks: fitList(
      [
        ...headerBlocks(`⚠ ${headline}`, options),
        context(
          `*Priority:* ${priorityLabel(alert.priority)}${alert.about ? ` · ${escapeMrkdwn(alert.about)}` : ''}`,
        ),
      ],
      alert.reviews.map((r) => listedReview(r, formatDate(r.createdDate))),
      actions(alert, options),
      (omitted) => footer(options, moreNote(omitted, 'review')),
    ),
  };
}

/** A review alert in a list: its severity, and the first of its reasons. */
function listedAlert(a: ReviewAlert): SectionBlock {
  const listed = listedReview(a.review, `${severityLabel(a.severity)}${lateMark(a)}`);
  const reasons = truncate(reasonsOf(a.severity).slice(0, 3).join(' · '), LIST_REASONS);
  if (reasons === '' || listed.text === undefined) return listed;
  return {
    ...listed,
    text: { ...listed.text, text: `${listed.text.text}\n_Why: ${escapeMrkdwn(reasons)}_` },
  };
}

export function renderSlackGroup(notification: GroupNotification, options: SlackRenderOptions): SlackMessage {
  if (notification.spike) return renderSpike(notification.spike, options, notification.alerts);
  const { icon, alerts, headline, counts, rating, shared, earlier } = groupSummary(notification);
  const items = alerts.map(listedAlert);
  const before = earlier.map((r) => listedReview(r, `${formatDate(r.createdDate)} · ${FOUND_EARLIER}`));
  return {
    text: fallback(
      `${icon} ${headline}${counts === '' ? '' : `: ${counts}`}${shared ? `; ${shared}` : ''}${rating ? `; ${rating.toLowerCase()}` : ''}`,
      options,
    ),
    blocks: fitList(
      [
        ...headerBlocks(`${icon} ${headline}`, options),
        context(`${escapeMrkdwn(counts)}${counts === '' ? '' : ' · '}most severe first`),
        ...(shared ? [context(`*What they share:* ${escapeMrkdwn(shared)}`)] : []),
        ...(rating ? [context(`▼ ${rating}`)] : []),
      ],
      [...items, ...before],
      actions(notification, options),
      (omitted) => footer(options, moreNote(omitted, 'review')),
    ),
  };
}

/**
 * The spike, what is usual, the review alerts of its poll that ride in it, its quotes of the others, then
 * what changed around it: one message per spike.
 */
function renderSpike(
  alert: TopicSpikeAlert,
  options: SlackRenderOptions,
  riders: readonly ReviewAlert[] = [],
): SlackMessage {
  const headline = spikeHeadline(alert);
  const { riders: sorted, counts, quotes: others } = spikeList(alert, riders);
  const quotes = others.map((q) => {
    const { heading, text } = quoteLine(q);
    return section(truncate(`*${escapeMrkdwn(heading)}*\n> ${escapeMrkdwn(text)}`, SLACK_LIMITS.sectionText));
  });
  const changed = contextLines(alert)
    .map((line) => `• ${escapeMrkdwn(line)}`)
    .join('\n');
  const first = alert.quotes[0];
  return {
    text: fallback(
      `📈 ${headline}${sorted.length > 0 ? ` (${NEW_IN_POLL.toLowerCase()}: ${counts})` : ''}${first ? `: "${quoteLine(first).text}"` : ''}`,
      options,
    ),
    blocks: fitList(
      [
        ...headerBlocks(`📈 ${headline}`, options),
        { type: 'section', fields: spikeFacts(alert).map((f) => field(f.label, f.value)) },
        ...(sorted.length > 0
          ? [context(`*${NEW_IN_POLL}:* ${escapeMrkdwn(counts)}, most severe first`)]
          : []),
      ],
      [...sorted.map(listedAlert), ...quotes.slice(0, 5)],
      [
        section(truncate(`*What changed around it:*\n${changed}`, SLACK_LIMITS.sectionText)),
        ...actions(alert, options),
      ],
      (omitted) => footer(options, moreNote(omitted, 'review')),
    ),
  };
}

/**
 * A market alert (market-wording.ts): its headline, the summary, the facts, then one line per reason or
 * change, each escaped and the whole cut to a section's limit.
 */
function renderMarket(alert: MarketAlert, options: SlackRenderOptions): SlackMessage {
  const doc = marketDoc(alert, options);
  const lines = doc.lines.map((line) => `• ${escapeMrkdwn(line)}`).join('\n');
  const blocks: SlackBlock[] = [
    ...headerBlocks(doc.title, options),
    ...(doc.summary === undefined ? [] : [context(escapeMrkdwn(doc.summary))]),
    ...(doc.facts.length > 0
      ? [{ type: 'section' as const, fields: doc.facts.slice(0, 10).map((f) => field(f.label, f.value)) }]
      : []),
    ...(lines === ''
      ? []
      : [section(truncate(`*${escapeMrkdwn(doc.linesLabel)}:*\n${lines}`, SLACK_LIMITS.sectionText))]),
    ...buttons(doc.links),
    ...footer(options),
  ];
  const first = doc.lines[0];
  return {
    text: fallback(first === undefined ? doc.title : `${doc.title}: ${first}`, options),
    blocks,
  };
}

/** Slack's renderer of each alert kind; the market kinds share one layout. */
export const SLACK_ALERTS = {
  review: renderReview,
  'rating-drop': renderDrop,
  incident: renderIncident,
  'topic-spike': renderSpike,
  rank: renderMarket,
  reshuffle: renderMarket,
  entrants: renderMarket,
  listing: renderMarket,
  developer: renderMarket,
} satisfies AlertRenderers<SlackMessage>;

export function renderSlack(notification: Notification, options: SlackRenderOptions = {}): SlackMessage {
  if (notification.kind === 'group') return renderSlackGroup(notification, options);
  return renderAlert(SLACK_ALERTS, notification.alert, options);
}
