/**
 * What an alert says, in plain unescaped text: its headline, a group's order and counts, a rating
 * drop's facts and explanation. Slack, email and the console all word an alert from here.
 */
import type {
  AppRef,
  IncidentAlert,
  Notification,
  RatingDropAlert,
  ReviewAlert,
} from '../../alerts/types.js';
import { PRIORITIES, type Priority } from '../../scoring/priority.js';
import { formatCount, plural, starsLabel } from '../../util/plural.js';
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

/** How urgent a notification is: a group is as urgent as its most urgent review. */
export function notificationPriority(notification: Notification): Priority {
  if (notification.kind === 'group') return topPriority(notification.alerts.map((a) => a.severity.priority));
  const { alert } = notification;
  return alert.kind === 'review' ? alert.severity.priority : alert.priority;
}

/** "2 critical · 3 high · 1 low" */
export function priorityCounts(alerts: readonly ReviewAlert[]): string {
  return PRIORITIES.map((p) => [p, alerts.filter((a) => a.severity.priority === p).length] as const)
    .filter(([, n]) => n > 0)
    .map(([p, n]) => `${n} ${p}`)
    .join(' · ');
}

export function groupHeadline(app: AppRef, count: number): string {
  return `${plural(count, 'new low review')} of ${appName(app)}`;
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
  return [
    {
      label: 'Average',
      value: `${from.average.toFixed(2)} → ${to.average.toFixed(2)} (${signed(to.average - from.average, 2)})`,
    },
    { label: 'Displayed rating', value: `${from.average.toFixed(1)} → ${to.average.toFixed(1)}` },
    {
      label: 'Reviews',
      value: `${formatCount(from.count)} → ${formatCount(to.count)} (${signed(to.count - from.count, 0)})`,
    },
    { label: 'Since', value: formatTimestamp(from.at) },
    { label: 'Priority', value: priorityLabel(alert.priority) },
  ];
}

/** "3 new low reviews account for about 60% of the drop; 2 reviews vanished (archived or removed); …" */
export function dropExplanation(alert: RatingDropAlert): string {
  const { newLowReviews, lowReviewsShare, vanished, rerated } = alert.explanation;
  const parts: string[] = [];
  if (newLowReviews > 0) {
    const share = Math.round(Math.min(1, Math.max(0, lowReviewsShare)) * 100);
    const verb = newLowReviews === 1 ? 'accounts' : 'account';
    parts.push(`${plural(newLowReviews, 'new low review')} ${verb} for about ${share}% of the drop`);
  }
  if (vanished > 0) parts.push(`${plural(vanished, 'review')} vanished (archived or removed)`);
  if (rerated > 0) parts.push(`${plural(rerated, 'review')} ${rerated === 1 ? 'was' : 'were'} re-rated down`);
  if (parts.length === 0) return 'No new low, vanished or re-rated review explains the drop.';
  return parts.join('; ');
}
