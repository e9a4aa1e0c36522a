/**
 * What a chat card says (Teams' Adaptive Card, Discord's embed), in plain unescaped text: the alert's
 * email document (alert/alert-email-doc.ts) or the digest's summary, so every channel tells the same
 * story. Each chat type escapes and fits it to its own limits (render/teams/, render/discord/).
 */

import type { Alert, Notification } from '../alerts/types.js';
import type { DigestApp, DigestData } from '../digest/types.js';
import { ALERT_KIND_NAMES } from '../kinds.js';
import type { Priority } from '../scoring/priority.js';
import { emailDocOf } from './alert/alert-email-doc.js';
import { marketText } from './digest/digest-market.js';
import { acknowledgedSentence, openSentence, triageLinks } from './digest/digest-triage.js';
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
} from './digest/digest-wording.js';
import type { AlertRenderers, ChannelRenderers } from './renderers.js';
import { testWording } from './test-message.js';
import {
  type DataSource,
  excerpt,
  type Fact,
  type Link,
  reviewContent,
  reviewerName,
  severityLabel,
  tagSimulated,
} from './wording.js';

/** One entry of a list: a review of a group or an incident, an app of the digest. */
export interface ChatItem {
  heading: string;
  details: string;
  /** Quoted under the heading; '' for none. */
  text: string;
}

export interface ChatSection {
  label: string;
  lines: string[];
}

export interface ChatDoc {
  /** Led by SIMULATED_TAG for simulated data. */
  title: string;
  priority: Priority;
  simulated: boolean;
  summary?: string;
  facts: Fact[];
  /** The review of a single-review alert: '' when it has no text, absent for any other message. */
  quote?: string;
  sections: ChatSection[];
  items: ChatItem[];
  /** What the items are, for "… and 3 more reviews". */
  itemNoun: string;
  links: Link[];
  footer: string;
}

const FOOTER = 'Sent by reviewwatch. Review text is quoted as posted on the marketplace.';
/** A listing URL longer than this is not one to put behind a button: it would crowd out the message. */
const MAX_LINK_URL = 1_000;

function shortLinks(links: readonly Link[]): Link[] {
  return links.filter((l) => l.url.length <= MAX_LINK_URL);
}

export function alertChatDoc(notification: Notification, source: DataSource): ChatDoc {
  const doc = emailDocOf(notification, source);
  const sections = doc.reasons.length === 0 ? [] : [{ label: doc.reasonsLabel ?? 'Why', lines: doc.reasons }];
  return {
    title: tagSimulated(doc.title, source),
    priority: doc.priority,
    simulated: source.simulated === true,
    ...(doc.summary === undefined ? {} : { summary: doc.summary }),
    facts: doc.facts,
    ...(doc.quote === undefined ? {} : { quote: doc.quote }),
    sections,
    items: doc.reviews.map((r) => ({
      heading: r.heading,
      details: [...r.details, ...(r.reasons.length > 0 ? [`Why: ${r.reasons.join(' · ')}`] : [])].join(' · '),
      text: r.content,
    })),
    itemNoun: 'review',
    links: shortLinks(doc.links),
    footer: FOOTER,
  };
}

/** "★ 4.62 ▼0.1 vs last week · 12 new reviews (avg 3.92) · 3 low", plain. */
function appDetails(app: DigestApp, data: DigestData): string {
  const parts = [ratingBrief(app)];
  if (app.drops.length > 0) parts.push(`▼ ${dropsSentence(app.drops, data.period.timezone)}`);
  if (!data.quiet) {
    const { count, low } = app.reviews;
    parts.push(count === 0 ? newReviewsBrief(app) : `${newReviewsBrief(app)}, ${low} low`);
  }
  return parts.join(' · ');
}

function appItem(app: DigestApp, data: DigestData): ChatItem {
  const worst = quotedWorst(app, data.maxRating);
  const content = worst === undefined ? '' : reviewContent(worst);
  return {
    heading: `${appTitle(app)}${app.role === 'competitor' ? ' (competitor)' : ''}`,
    details: appDetails(app, data),
    text:
      worst === undefined
        ? ''
        : `${reviewerName(worst)} (${severityLabel(worst.severity)}): ${content === '' ? '(no text)' : excerpt(content, 300)}`,
  };
}

/** The digest as a chat card: the compact summary Slack gets, one item per app. */
export function digestChatDoc(data: DigestData, options: DigestRenderOptions): ChatDoc {
  const product = productName(options);
  const { period } = data;
  const title = `${digestTitle(data, product)} · ${period.label}`;
  const note = coverageNote(data.coverage, period.timezone, product);
  const triage = [openSentence(data.triage), acknowledgedSentence(data.triage, period)];
  if (data.totals.failedAlerts > 0) triage.push(`⚠ ${failedSentence(data.totals.failedAlerts)}.`);
  const sections: ChatSection[] = [{ label: 'Triage', lines: triage }];
  if (data.market !== null) {
    const lines = marketText(data.market, period.timezone)
      .split('\n')
      .slice(1)
      .map((line) => line.trim().replace(/^- /, ''))
      .filter((line) => line !== '');
    sections.push({ label: 'Market', lines });
  }
  const { main, rest } = summaryApps(data);
  const open = triageLinks(data, options);
  return {
    title: tagSimulated(title, options),
    priority: 'low',
    simulated: options.simulated === true,
    summary: [note, summarySentence(data)].filter((s) => s !== undefined).join(' '),
    facts: [],
    sections,
    items: [...main, ...rest].map((app) => appItem(app, data)),
    itemNoun: 'app',
    links: open && data.triage.openTotal > 0 ? [{ label: 'Open reviews in the inbox', url: open.open }] : [],
    footer: `Weeks run Monday to Sunday in ${period.timezone}. ${FOOTER}`,
  };
}

export function testChatDoc(channel: string, at: Date): ChatDoc {
  const { title, body } = testWording(channel, at);
  return {
    title,
    priority: 'low',
    simulated: false,
    summary: body,
    facts: [],
    sections: [],
    items: [],
    itemNoun: 'item',
    links: [],
    footer: 'Sent by reviewwatch.',
  };
}

/**
 * The renderers of a chat type whose every message is a chat document fitted to its limits: one function
 * from document to message makes them all. Every alert kind goes through `alertChatDoc`, whose email
 * document has a case for each kind, so a new kind cannot reach a chat type unrendered.
 */
export function chatRenderers<M>(toMessage: (doc: ChatDoc) => M): ChannelRenderers<M> {
  const single = (alert: Alert, source: DataSource) =>
    toMessage(alertChatDoc({ kind: 'single', alert }, source));
  const alerts = Object.fromEntries(ALERT_KIND_NAMES.map((kind) => [kind, single])) as AlertRenderers<M>;
  return {
    alerts,
    group: (notification, source) => toMessage(alertChatDoc(notification, source)),
    digest: (data, options) => toMessage(digestChatDoc(data, options)),
    test: (channel, at) => toMessage(testChatDoc(channel, at)),
  };
}
