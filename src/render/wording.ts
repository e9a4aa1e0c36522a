/**
 * What the messages say, in plain unescaped text, shared by every channel so Slack and email tell the
 * same story. Untrusted input is cleaned (control characters, line breaks in names) and capped here;
 * escaping is the channel's job.
 */
import type {
  AppRef,
  IncidentAlert,
  Priority,
  RatingDropAlert,
  ReviewAlert,
  ReviewRef,
  Severity,
} from '../alerts/types.js';
import { PRIORITIES } from '../alerts/types.js';
import { cleanText, oneLine, truncate } from './escape.js';

const MAX_APP_NAME = 100;
const MAX_REVIEWER = 100;
const MAX_LOCATION = 60;

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** 1204 → "1,204", independent of the machine's locale. */
export function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function starsLabel(rating: number): string {
  return plural(rating, 'star');
}

export function appName(app: AppRef): string {
  return truncate(oneLine(app.name) || oneLine(app.handle) || 'unnamed app', MAX_APP_NAME);
}

/** The short tag subjects use: the handle (validated by the config), else the name. */
export function appTag(app: AppRef): string {
  return truncate(oneLine(app.handle) || appName(app), MAX_APP_NAME);
}

export function reviewerName(review: ReviewRef): string {
  return truncate(oneLine(review.reviewer), MAX_REVIEWER) || 'Anonymous';
}

export function reviewerLocation(review: ReviewRef): string {
  return truncate(oneLine(review.location), MAX_LOCATION);
}

/** "Jane's Shop (Canada)", or just the name when the location is not shown. */
export function reviewerLine(review: ReviewRef): string {
  const location = reviewerLocation(review);
  return location === '' ? reviewerName(review) : `${reviewerName(review)} (${location})`;
}

/** The review text with unsafe characters removed; '' when the review has none. */
export function reviewContent(review: ReviewRef): string {
  return cleanText(review.content).trim();
}

/** The start of a text on one line, cut on a word when one ends late enough: for lists and subjects. */
export function excerpt(text: string, max: number): string {
  const line = oneLine(text);
  if (line.length <= max) return line;
  const cut = truncate(line, max);
  const lastSpace = cut.lastIndexOf(' ');
  return lastSpace >= max / 2 ? `${cut.slice(0, lastSpace).replace(/[\s,;:.-]+$/, '')}…` : cut;
}

/**
 * The API's dates are ISO 8601 derived from a day ("2025-03-31T00:00:00+00:00"): the day as written is
 * the review's day, whatever the offset. Anything else is shown as sent, so nothing depends on the time
 * zone of the machine rendering it.
 */
export function formatDate(text: string): string {
  const raw = oneLine(text);
  if (raw === '') return 'unknown';
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ]|$)/.exec(raw);
  const month = MONTHS[Number(match?.[2]) - 1];
  if (!match || month === undefined) return truncate(raw, 60);
  return `${month} ${Number(match[3])}, ${match[1]}`;
}

/** Our own timestamps (snapshots): the date and, when there is one, the UTC time. */
export function formatTimestamp(text: string): string {
  const raw = oneLine(text);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(raw)) return formatDate(raw);
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) return truncate(raw, 60);
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

/** "2 months", from "2 months using the app"; undefined when the marketplace gave nothing. */
export function tenureOf(timeUsingApp: string): string | undefined {
  const text = oneLine(timeUsingApp).replace(/\s*using\s+the\s+app\.?$/i, '');
  return text === '' ? undefined : truncate(text, 60);
}

/** For a labelled field ("Using the app: 2 months"). */
export function tenureText(timeUsingApp: string): string {
  return tenureOf(timeUsingApp) ?? 'not shown';
}

/** For a line of details ("2 months using the app"). */
export function tenureSentence(timeUsingApp: string): string {
  const tenure = tenureOf(timeUsingApp);
  return tenure === undefined ? 'time using the app not shown' : `${tenure} using the app`;
}

export function priorityLabel(priority: Priority): string {
  return priority.toUpperCase();
}

/** "HIGH · 72/100" */
export function severityLabel(severity: Severity): string {
  return `${priorityLabel(severity.priority)} · ${severity.score}/100`;
}

/** Reasons may quote matched words from the review: they are cleaned like any untrusted text. */
export function reasonsOf(severity: Severity): string[] {
  return severity.reasons.map((r) => truncate(oneLine(r), 300)).filter((r) => r !== '');
}

export function reviewHeadline(alert: ReviewAlert): string {
  const { review } = alert;
  if (review.previousRating !== undefined && review.previousRating > review.rating) {
    return `Review of ${appName(alert.app)} re-rated from ${review.previousRating} to ${starsLabel(review.rating)}`;
  }
  return `New ${review.rating}-star review of ${appName(alert.app)}`;
}

/** Most severe first, ties in the order given: the order a support agent should read them in. */
export function bySeverity(alerts: readonly ReviewAlert[]): ReviewAlert[] {
  return [...alerts].sort((a, b) => b.severity.score - a.severity.score);
}

/** The highest priority among alerts (low when there are none). */
export function topPriority(priorities: readonly Priority[]): Priority {
  return PRIORITIES.find((p) => priorities.includes(p)) ?? 'low';
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

export interface Fact {
  label: string;
  value: string;
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

export interface Link {
  label: string;
  url: string;
}

/** Only http(s) URLs become links: a `javascript:` listing URL would be a link we vouch for. */
export function safeUrl(url: string): URL | undefined {
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The listing and its reviews page. */
export function appLinks(app: AppRef): Link[] {
  const listing = safeUrl(app.url);
  if (listing === undefined) return [];
  const reviews = new URL(listing.href);
  reviews.pathname = `${reviews.pathname.replace(/\/+$/, '')}/reviews`;
  return [
    { label: 'Open listing', url: listing.href },
    { label: 'All reviews', url: reviews.href },
  ];
}
