/**
 * The webhook channel's messages: an event `type` and its `data`, the fields of what the Slack message
 * says (no prose to parse, no markup, no escaping: the receiver's JSON parser is the only reader). The
 * transport (notify/webhook.ts) wraps them as `{ type, id, createdAt, data }` and signs them. Every type
 * has a JSON Schema in docs/webhooks/schemas/ (docs/webhooks.md); a field added here goes there too.
 */
import type {
  Alert,
  AlertKind,
  AppRef,
  IncidentAlert,
  MarketAlert,
  RatingDropAlert,
  ReviewAlert,
  ReviewRef,
  TopicSpikeAlert,
} from '../../alerts/types.js';
import type { DigestData } from '../../digest/types.js';
import { changeTone, describeChange } from '../../market/change-text.js';
import { assertNever } from '../../util/never.js';
import { bySeverity, groupAbout } from '../alert/alert-wording.js';
import { marketDoc, rankReasons } from '../alert/market-wording.js';
import { spikeHeadline } from '../alert/spike-wording.js';
import type { AlertRenderers, ChannelRenderers, GroupNotification } from '../renderers.js';
import { appLinks, type DataSource, inboxLinks, type Link } from '../wording.js';
import { digestEventData } from './digest.js';

/** The event type of each alert kind: a kind added to src/kinds.ts fails to compile here until named. */
export const WEBHOOK_EVENT_OF_KIND = {
  review: 'review.low',
  'rating-drop': 'rating.drop',
  incident: 'incident',
  'topic-spike': 'topic.spike',
  rank: 'market.rank',
  reshuffle: 'market.reshuffle',
  entrants: 'market.entrants',
  listing: 'market.listing',
  developer: 'market.developer',
} as const satisfies Record<AlertKind, string>;

/** Every type a receiver may get: the alerts', the digest and the test. */
export const WEBHOOK_EVENT_TYPES = [
  ...Object.values(WEBHOOK_EVENT_OF_KIND),
  'digest.weekly',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** What the renderers make; the transport adds the id and the time. */
export interface WebhookEvent {
  type: WebhookEventType;
  data: Record<string, unknown>;
}

function appData(app: AppRef) {
  return { handle: app.handle, name: app.name, url: app.url };
}

function reviewData(review: ReviewRef) {
  return {
    id: review.reviewId,
    reviewer: review.reviewer,
    location: review.location,
    rating: review.rating,
    previousRating: review.previousRating ?? null,
    content: review.content,
    createdDate: review.createdDate,
    timeUsingApp: review.timeUsingApp,
  };
}

function linksData(links: readonly Link[]) {
  return links.map((l) => ({ label: l.label, url: l.url }));
}

function reviewAlertData(alert: ReviewAlert, source: DataSource) {
  return {
    ...reviewData(alert.review),
    severity: { ...alert.severity, reasons: [...alert.severity.reasons] },
    foundLate: alert.foundLate === true,
    links: linksData([...inboxLinks(alert, source), ...appLinks(alert.app)]),
  };
}

/**
 * One review or a group of one app's: `reviews` holds one or more, most severe first. `rating` is the
 * fall these reviews explain ("Rating now 4.2 (was 4.3)"): no rating.drop event says it then.
 */
function lowReviews(app: AppRef, alerts: readonly ReviewAlert[], source: DataSource): WebhookEvent {
  const sorted = bySeverity(alerts);
  const rating = sorted.find((a) => a.rating !== undefined)?.rating;
  return {
    type: 'review.low',
    data: {
      app: appData(app),
      priority: sorted[0]?.severity.priority ?? 'low',
      about: groupAbout(sorted) ?? null,
      reviews: sorted.map((a) => reviewAlertData(a, source)),
      rating: rating ? { now: rating.now, was: rating.was } : null,
      simulated: source.simulated === true,
    },
  };
}

/** A rating drop or an incident: its app and priority, its own fields, then its links. */
function appEvent(
  alert: RatingDropAlert | IncidentAlert,
  source: DataSource,
  fields: Record<string, unknown>,
): WebhookEvent {
  return {
    type: WEBHOOK_EVENT_OF_KIND[alert.kind],
    data: {
      app: appData(alert.app),
      priority: alert.priority,
      ...fields,
      links: linksData([...inboxLinks(alert, source), ...appLinks(alert.app)]),
      simulated: source.simulated === true,
    },
  };
}

const ratingDrop = (alert: RatingDropAlert, source: DataSource) =>
  appEvent(alert, source, { from: alert.from, to: alert.to, explanation: alert.explanation });

const incident = (alert: IncidentAlert, source: DataSource) =>
  appEvent(alert, source, {
    windowHours: alert.windowHours,
    about: alert.about ?? null,
    reviews: alert.reviews.map(reviewData),
  });

function topicSpike(alert: TopicSpikeAlert, source: DataSource): WebhookEvent {
  return {
    type: 'topic.spike',
    data: {
      app: appData(alert.app),
      priority: alert.priority,
      title: spikeHeadline(alert),
      spike: { ...alert.spike, phrases: [...alert.spike.phrases], also: [...(alert.spike.also ?? [])] },
      quotes: alert.quotes.map((q) => ({ ...q })),
      context: alert.context.map((c) => ({ ...c })),
      incident: alert.incident ?? null,
      links: linksData([...inboxLinks(alert, source), ...appLinks(alert.app)]),
      simulated: source.simulated === true,
    },
  };
}

/** The fields of each market kind, beside what they share (priority, title, links). */
function marketFields(alert: MarketAlert): Record<string, unknown> {
  switch (alert.kind) {
    case 'rank': {
      const { kind, topN, from, to, previous, band, ownMove } = alert.move;
      const move = { kind, topN, from, to, previous, band, ownMove };
      return { app: appData(alert.app), category: alert.category, move, reasons: rankReasons(alert) };
    }
    case 'reshuffle': {
      const { compared, moved, ownApps } = alert.reshuffle;
      return { category: alert.category, compared, moved, ownApps };
    }
    case 'entrants':
      return { category: alert.category, apps: alert.apps };
    case 'listing': {
      const changes = alert.changes.map((c) => ({ ...c, text: describeChange(c), tone: changeTone(c) }));
      return { app: appData(alert.app), role: alert.role, changes };
    }
    case 'developer':
      return {
        developer: alert.developer,
        apps: alert.apps.map(appData),
        published: alert.published,
        removed: alert.removed,
      };
    default:
      return assertNever(alert, 'market alert kind');
  }
}

function market(alert: MarketAlert, source: DataSource): WebhookEvent {
  const doc = marketDoc(alert, source);
  return {
    type: WEBHOOK_EVENT_OF_KIND[alert.kind],
    data: {
      title: doc.title,
      priority: alert.priority,
      ...marketFields(alert),
      links: linksData(doc.links),
      simulated: source.simulated === true,
    },
  };
}

const review = (alert: ReviewAlert, source: DataSource) => lowReviews(alert.app, [alert], source);

export const WEBHOOK_ALERTS = {
  review,
  'rating-drop': ratingDrop,
  incident,
  'topic-spike': topicSpike,
  rank: market,
  reshuffle: market,
  entrants: market,
  listing: market,
  developer: market,
} satisfies AlertRenderers<WebhookEvent>;

export const WEBHOOK_RENDERERS: ChannelRenderers<WebhookEvent> = {
  alerts: WEBHOOK_ALERTS,
  // A program gets an event per alert: no incident carries reviews on a webhook (src/kinds.ts, readers).
  group: (notification: GroupNotification, source) =>
    lowReviews(notification.app, notification.alerts, source),
  digest: (data: DigestData, options) => ({ type: 'digest.weekly', data: digestEventData(data, options) }),
  test: (channel, at) => ({
    type: 'webhook.test',
    data: {
      channel,
      sentAt: at.toISOString(),
      message: 'A test from `reviewwatch notify test`, not an alert.',
    },
  }),
};

/** The event type of an alert; for tests and docs. */
export function eventTypeOf(alert: Alert): WebhookEventType {
  return WEBHOOK_EVENT_OF_KIND[alert.kind];
}
