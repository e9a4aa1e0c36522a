/**
 * An email's content, independent of its markup: the HTML and the plain-text alternative are both
 * rendered from this, so they always carry the same information. Every string is plain (unescaped).
 */
import type {
  AppRef,
  Notification,
  ReviewAlert,
  ReviewRef,
  ReviewsAlert,
  TopicSpikeAlert,
} from '../../alerts/types.js';
import type { Priority } from '../../scoring/priority.js';
import { assertNever } from '../../util/never.js';
import { stars } from '../escape.js';
import {
  appLinks,
  type DataSource,
  type Fact,
  formatDate,
  inboxLinks,
  type Link,
  priorityLabel,
  type ReviewItem,
  reasonsOf,
  reviewContent,
  reviewerLine,
  reviewItem,
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
  notificationPriority,
  ratingNowLine,
  reviewHeadline,
  spikeList,
} from './alert-wording.js';
import { isMarketAlert, marketDoc } from './market-wording.js';
import { contextLines, quoteLine, spikeFacts, spikeHeadline } from './spike-wording.js';

/** Email has room for whole reviews; this only keeps one pathological review from bloating a digest. */
export const MAX_EMAIL_REVIEW_CHARACTERS = 5_000;

export interface EmailReviewItem extends ReviewItem {
  priority?: Priority;
}

export interface EmailDoc {
  title: string;
  /** Colours the accent bar. */
  priority: Priority;
  summary?: string;
  facts: Fact[];
  /** The review of a single-review alert ('' when it has no text). */
  quote?: string;
  reasons: string[];
  /** The heading of `reasons`: "Why" for a review, what the lines are for a market alert. */
  reasonsLabel?: string;
  reviews: EmailReviewItem[];
  links: Link[];
  /** Where its data came from: a mail of simulated data says so before anything else. */
  source: DataSource;
}

/** A review in a list, linked to the inbox; `date` says more of when it came ("found earlier"). */
function listed(
  listing: { app: AppRef; source: DataSource },
  review: ReviewRef,
  alert?: ReviewAlert,
  date = `${formatDate(review.createdDate)}${alert ? lateMark(alert) : ''}`,
): EmailReviewItem {
  const item = reviewItem(review, date, MAX_EMAIL_REVIEW_CHARACTERS, alert?.severity);
  const url = inboxLinks({ app: listing.app, review }, listing.source)[0]?.url;
  return {
    ...item,
    ...(url === undefined ? {} : { url }),
    ...(alert === undefined ? {} : { priority: alert.severity.priority }),
  };
}

type Content = Omit<EmailDoc, 'source'>;

function reviewDoc(alert: ReviewAlert): Content {
  const { review, severity } = alert;
  const rating = ratingNowLine(alert);
  return {
    title: `${stars(review.rating)} ${reviewHeadline(alert)}`,
    priority: severity.priority,
    ...(rating ? { summary: `▼ ${rating}` } : {}),
    facts: [
      { label: 'Reviewer', value: reviewerLine(review) },
      { label: 'Date', value: formatDate(review.createdDate) },
      { label: 'Using the app', value: tenureText(review.timeUsingApp) },
      { label: 'Severity', value: severityLabel(severity) },
    ],
    quote: reviewContent(review, MAX_EMAIL_REVIEW_CHARACTERS),
    reasons: reasonsOf(severity),
    reviews: [],
    links: appLinks(alert.app),
  };
}

/**
 * The spike's facts, the review alerts of its poll that ride in it (most severe first), its quotes of the
 * other reviews as listed reviews, and what changed around it as the lines.
 */
function spikeDoc(alert: TopicSpikeAlert, riding: readonly ReviewAlert[], source: DataSource): Content {
  const { riders, counts, quotes } = spikeList(alert, riding);
  return {
    title: `📈 ${spikeHeadline(alert)}`,
    priority: notificationPriority({ kind: 'group', app: alert.app, alerts: riders, spike: alert }),
    ...(riders.length === 0 ? {} : { summary: `${NEW_IN_POLL}: ${counts}, most severe first` }),
    facts: spikeFacts(alert),
    reasons: contextLines(alert),
    reasonsLabel: 'What changed around it',
    reviews: [
      ...riders.map((a) => listed({ app: alert.app, source }, a.review, a)),
      ...quotes.map((q) => {
        const { heading, text } = quoteLine(q);
        return { heading, details: [], reasons: [], content: text };
      }),
    ],
    links: appLinks(alert.app),
  };
}

export function emailDocOf(notification: Notification, source: DataSource = {}): EmailDoc {
  if (notification.kind === 'single' && isMarketAlert(notification.alert)) {
    const doc = marketDoc(notification.alert, source);
    return {
      title: doc.title,
      priority: doc.priority,
      ...(doc.summary === undefined ? {} : { summary: doc.summary }),
      facts: doc.facts,
      reasons: doc.lines,
      reasonsLabel: doc.linesLabel,
      reviews: [],
      links: doc.links,
      source,
    };
  }
  const content = contentOf(notification, source);
  const about =
    notification.kind === 'group' ? { app: notification.app } : (notification.alert as ReviewsAlert);
  return { ...content, links: [...inboxLinks(about, source), ...content.links], source };
}

function contentOf(notification: Notification, source: DataSource): Content {
  if (notification.kind === 'group' && notification.spike)
    return spikeDoc(notification.spike, notification.alerts, source);
  if (notification.kind === 'group') {
    const { icon, alerts, headline, counts, rating, shared, earlier } = groupSummary(notification);
    const listing = { app: notification.app, source };
    return {
      title: `${icon} ${headline}`,
      priority: notificationPriority(notification),
      summary: `${shared ? `${shared} · ` : ''}${counts}${counts === '' ? '' : ' · '}most severe first${rating ? ` · ▼ ${rating}` : ''}`,
      facts: [],
      reasons: [],
      reviews: [
        ...alerts.map((a) => listed(listing, a.review, a)),
        ...earlier.map((r) =>
          listed(listing, r, undefined, `${formatDate(r.createdDate)} · ${FOUND_EARLIER}`),
        ),
      ],
      links: appLinks(notification.app),
    };
  }
  const { alert } = notification;
  if (isMarketAlert(alert)) throw new Error('market alerts have their own document (marketDoc)');
  switch (alert.kind) {
    case 'review':
      return reviewDoc(alert);
    case 'rating-drop':
      return {
        title: `▼ ${dropHeadline(alert)}`,
        priority: alert.priority,
        summary: `What explains it: ${dropExplanation(alert)}`,
        facts: dropFacts(alert),
        reasons: [],
        reviews: [],
        links: appLinks(alert.app),
      };
    case 'incident':
      return {
        title: `⚠ ${incidentHeadline(alert)}`,
        priority: alert.priority,
        ...(alert.about ? { summary: `What they share: ${alert.about}` } : {}),
        facts: [{ label: 'Priority', value: priorityLabel(alert.priority) }],
        reasons: [],
        reviews: alert.reviews.map((r) => listed({ app: alert.app, source }, r)),
        links: appLinks(alert.app),
      };
    case 'topic-spike':
      return spikeDoc(alert, [], source);
    default:
      return assertNever(alert, 'alert kind');
  }
}
