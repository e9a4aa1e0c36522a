/**
 * What an alert says, in plain unescaped text: its headline, a group's order and counts, a rating
 * drop's facts and explanation. Slack, email and the console all word an alert from here.
 */

import { sameReview } from '../../alerts/incident.js';
import type {
  AppRef,
  IncidentAlert,
  Notification,
  RatingDropAlert,
  ReviewAlert,
  ReviewRef,
  SpikeQuote,
  TopicSpikeAlert,
} from '../../alerts/types.js';
import { PRIORITIES, type Priority } from '../../scoring/priority.js';
import { summarizeBurst } from '../../topics/index.js';
import { formatCount, plural, starsLabel } from '../../util/plural.js';
import type { GroupNotification } from '../renderers.js';
import { appName, type Fact, formatTimestamp, priorityLabel } from '../wording.js';

export function reviewHeadline(alert: ReviewAlert): string {
  const { review } = alert;
  if (review.previousRating !== undefined && review.previousRating > review.rating) {
    return `Review of ${appName(alert.app)} re-rated from ${review.previousRating} to ${starsLabel(review.rating)}${lateMark(alert)}`;
  }
  return `New ${review.rating}-star review of ${appName(alert.app)}${lateMark(alert)}`;
}

/**
 * " (found late)" for a review a reconciliation found after the polls missed it, else nothing: a reader
 * should know it is not as fresh as an alert usually is.
 */
export function lateMark(alert: Pick<ReviewAlert, 'foundLate'>): string {
  return alert.foundLate ? ' (found late)' : '';
}

/** Most severe first, ties in the order given: the order a support agent should read them in. */
export function bySeverity(alerts: readonly ReviewAlert[]): ReviewAlert[] {
  return [...alerts].sort((a, b) => b.severity.score - a.severity.score);
}

/** The highest priority among alerts (low when there are none). */
export function topPriority(priorities: readonly Priority[]): Priority {
  return PRIORITIES.find((p) => priorities.includes(p)) ?? 'low';
}

/** How urgent a notification is: a group is as urgent as its most urgent review, or what leads it. */
export function notificationPriority(notification: Notification): Priority {
  if (notification.kind === 'group') {
    const { alerts, incident, spike } = notification;
    const leads = [incident, spike].flatMap((lead) => (lead ? [lead.priority] : []));
    return topPriority([...alerts.map((a) => a.severity.priority), ...leads]);
  }
  const { alert } = notification;
  return alert.kind === 'review' ? alert.severity.priority : alert.priority;
}

/** "2 critical · 3 high · 1 low" */
function priorityCounts(alerts: readonly ReviewAlert[]): string {
  return PRIORITIES.map((p) => [p, alerts.filter((a) => a.severity.priority === p).length] as const)
    .filter(([, n]) => n > 0)
    .map(([p, n]) => `${n} ${p}`)
    .join(' · ');
}

/**
 * What most of a group's reviews share, "5 of 6 about integrations: 'klaviyo'", from the topics the poll
 * gave each; undefined when nothing is shared or the alerts predate topics.
 */
export function groupAbout(alerts: readonly ReviewAlert[]): string | undefined {
  if (!alerts.some((a) => a.topics !== undefined)) return undefined;
  return summarizeBurst(alerts.map((a) => ({ content: a.review.content, topics: a.topics ?? [] }))).text;
}

function groupHeadline(app: AppRef, count: number): string {
  return `${plural(count, 'new low review')} of ${appName(app)}`;
}

/** How a topic spike's message introduces the review alerts of its poll that ride in it. */
export const NEW_IN_POLL = 'New in this poll';

/** What a topic spike's message lists, on every channel that carries its poll's review alerts. */
export interface SpikeList {
  /** The review alerts riding in it, most severe first. */
  riders: ReviewAlert[];
  /** "1 critical · 1 medium", of the riders. */
  counts: string;
  /** Its quotes of the reviews that do not ride in it: a rider quoted again would be said twice. */
  quotes: SpikeQuote[];
}

export function spikeList(spike: TopicSpikeAlert, riders: readonly ReviewAlert[]): SpikeList {
  const sorted = bySeverity(riders);
  return {
    riders: sorted,
    counts: priorityCounts(sorted),
    quotes: spike.quotes.filter((q) => !riders.some((r) => r.review.reviewId === q.reviewId)),
  };
}

/** How a message carrying a possible incident marks its reviews that earlier polls found. */
export const FOUND_EARLIER = 'found earlier';

/** What a group's message leads with, on every channel. */
export interface GroupSummary {
  /** "★", or "⚠" for a possible incident carrying its poll's reviews. */
  icon: string;
  /** Most severe first. */
  alerts: ReviewAlert[];
  /** "6 new low reviews of My App", or the incident's headline. */
  headline: string;
  /** "2 critical · 3 high · 1 low" */
  counts: string;
  /** The rating fall the reviews explain ("Rating now 4.2 (was 4.3)"), if they explain one. */
  rating: string | undefined;
  /** What most of them share, if anything: the incident's reviews, all of them, when it has some. */
  shared: string | undefined;
  /** The incident's other reviews, which earlier polls found: listed after, without their scores. */
  earlier: ReviewRef[];
}

export function groupSummary(notification: GroupNotification): GroupSummary {
  const { app, incident } = notification;
  const sorted = bySeverity(notification.alerts);
  return {
    icon: incident ? '⚠' : '★',
    alerts: sorted,
    headline: incident ? incidentHeadline(incident) : groupHeadline(app, sorted.length),
    counts: priorityCounts(sorted),
    rating: ratingNowLine(sorted),
    shared: incident ? incident.about : groupAbout(sorted),
    earlier: incident ? incident.reviews.filter((r) => !sorted.some((a) => sameReview(a.review, r))) : [],
  };
}

function hours(windowHours: number): string {
  return `${Math.round(windowHours * 10) / 10} h`;
}

export function incidentHeadline(alert: IncidentAlert): string {
  return `Possible incident: ${plural(alert.reviews.length, 'low review')} of ${appName(alert.app)} within ${hours(alert.windowHours)}`;
}

/** The short form subjects use: "4 low reviews in 24 h". */
export function incidentShort(alert: IncidentAlert): string {
  return `${plural(alert.reviews.length, 'low review')} in ${hours(alert.windowHours)}`;
}

/**
 * The ratings as the listing displays them (one decimal); with two decimals when one would hide the
 * change ("4.62 → 4.58" rather than "4.6 → 4.6").
 */
export function ratingChange(alert: RatingDropAlert): { from: string; to: string } {
  const from = alert.from.average.toFixed(1);
  const to = alert.to.average.toFixed(1);
  if (from !== to) return { from, to };
  return { from: alert.from.average.toFixed(2), to: alert.to.average.toFixed(2) };
}

/**
 * The line a review alert (or its group) carries when the poll's reviews explain a fall of the rating:
 * "Rating now 4.2 (was 4.3)", two decimals when one would read the same. Undefined when none does.
 */
export function ratingNowLine(alerts: ReviewAlert | readonly ReviewAlert[]): string | undefined {
  const rating = (Array.isArray(alerts) ? alerts : [alerts]).find((a) => a.rating)?.rating;
  if (!rating) return undefined;
  const [now, was] = [rating.now.toFixed(1), rating.was.toFixed(1)];
  return now !== was
    ? `Rating now ${now} (was ${was})`
    : `Rating now ${rating.now.toFixed(2)} (was ${rating.was.toFixed(2)})`;
}

export function dropHeadline(alert: RatingDropAlert): string {
  const { from, to } = ratingChange(alert);
  return `Rating of ${appName(alert.app)} fell from ${from} to ${to}`;
}

function signed(n: number, digits: number): string {
  const text = Math.abs(n).toFixed(digits);
  if (Number(text) === 0) return `±${text}`;
  return n < 0 ? `−${text}` : `+${text}`;
}

export function dropFacts(alert: RatingDropAlert): Fact[] {
  const { from, to } = alert;
  const [shownFrom, shownTo] = [from.average.toFixed(1), to.average.toFixed(1)];
  return [
    {
      label: 'Average',
      value: `${from.average.toFixed(2)} → ${to.average.toFixed(2)} (${signed(to.average - from.average, 2)})`,
    },
    // "4.4 → 4.4" reads like a mistake: a fall within one displayed value says so.
    {
      label: 'Displayed rating',
      value: shownFrom === shownTo ? `${shownTo}, unchanged` : `${shownFrom} → ${shownTo}`,
    },
    {
      label: 'Reviews',
      value: `${formatCount(from.count)} → ${formatCount(to.count)} (${signed(to.count - from.count, 0)})`,
    },
    { label: 'Since', value: formatTimestamp(from.at) },
    { label: 'Priority', value: priorityLabel(alert.priority) },
  ];
}

/**
 * "3 new low reviews account for about 60% of the drop; 2 reviews vanished (archived or removed); …"
 * Every part is made of numbers: nothing here comes from a review.
 */
export function dropExplanation(alert: RatingDropAlert): string {
  const { newLowReviews, lowReviewsShare, vanished, rerated, newBelowAverage, unstored } = alert.explanation;
  const parts: string[] = [];
  if (newLowReviews > 0) {
    parts.push(
      `${plural(newLowReviews, 'new low review')} ${accounts(newLowReviews)} ${aboutShare(lowReviewsShare)}`,
    );
  }
  if (newBelowAverage && newBelowAverage.count > 0) {
    const { count, share, ratings } = newBelowAverage;
    const stars = ratings.length > 0 ? `${[...ratings].sort().join('- or ')}-star ` : '';
    parts.push(
      `${formatCount(count)} new ${stars}${count === 1 ? 'review' : 'reviews'}, below the former average of ${alert.from.average.toFixed(2)}, ${accounts(count)} ${aboutShare(share)}`,
    );
  }
  if (vanished > 0) parts.push(`${plural(vanished, 'review')} vanished (archived or removed)`);
  if (rerated > 0) parts.push(`${plural(rerated, 'review')} ${rerated === 1 ? 'was' : 'were'} re-rated down`);
  if (unstored) parts.push(unstoredPart(unstored));
  if (parts.length === 0)
    return `${capitalised(UNSTORED)}: no new, vanished or re-rated review explains the drop.`;
  return capitalised(parts.join('; '));
}

const UNSTORED = 'the summary moved without a review we store';
const STAR_WORDS = ['one-star', 'two-star', 'three-star', 'four-star', 'five-star'];

function accounts(n: number): string {
  return n === 1 ? 'accounts' : 'account';
}

function aboutShare(share: number): string {
  return `for about ${Math.round(Math.min(1, Math.max(0, share)) * 100)}% of the drop`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * What moved the summary beyond the stored reviews: only more ratings (ratings without text, or the
 * reviews of a burst not read yet), only fewer (reviews archived: the count went down), or both (the
 * marketplace recounted). Lowest stars first: those pull an average down.
 */
function unstoredPart(unstored: NonNullable<RatingDropAlert['explanation']['unstored']>): string {
  const moves = unstored.stars
    .map((n, i) => ({ n, word: STAR_WORDS[i] ?? `${i + 1}-star` }))
    .filter((m) => m.n !== 0);
  const rises = moves.filter((m) => m.n > 0);
  const falls = moves.filter((m) => m.n < 0);
  let what: string;
  if (falls.length === 0) {
    what = unstored.unread
      ? `${tally(rises, 'rating')} more, perhaps among the ${plural(unstored.unread, 'review')} of a burst not read yet`
      : `${tally(rises, 'rating')} without text`;
  } else if (rises.length === 0) {
    what = `${tally(falls, 'review')} archived (the count went down)`;
  } else {
    const each = moves.map((m) => `${m.word} ${m.n > 0 ? '+' : '−'}${formatCount(Math.abs(m.n))}`);
    what = `the marketplace recounted (${each.join(', ')})`;
  }
  const share =
    Math.round(unstored.share * 100) > 0
      ? `, about ${Math.round(Math.min(1, unstored.share) * 100)}% of the drop`
      : '';
  return `${UNSTORED}: ${what}${share}`;
}

/** "1 one-star rating", "3 one-star and 1 two-star ratings". */
function tally(moves: Array<{ n: number; word: string }>, noun: string): string {
  const total = moves.reduce((a, m) => a + Math.abs(m.n), 0);
  const counts = moves.map((m) => `${formatCount(Math.abs(m.n))} ${m.word}`).join(' and ');
  return `${counts} ${total === 1 ? noun : `${noun}s`}`;
}
