/**
 * The words every message uses, alert or digest, in plain unescaped text, shared by every channel so
 * Slack and email tell the same story. Untrusted input is cleaned (control characters, line breaks in names) and capped here;
 * escaping is the channel's job.
 */
import type { AppRef, ReviewRef } from '../alerts/types.js';
import type { Priority, Severity } from '../scoring/priority.js';
import { longDate, MONTHS } from '../util/long-date.js';
import { cleanText, oneLine, stars, truncate } from './escape.js';

const MAX_APP_NAME = 100;
const MAX_REVIEWER = 100;
const MAX_LOCATION = 60;

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

/** The review text with unsafe characters removed and cut at `max`; '' when the review has none. */
export function reviewContent(review: ReviewRef, max = Number.POSITIVE_INFINITY): string {
  return truncate(cleanText(review.content).trim(), max);
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
  return `${longDate(d)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
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

/** A review in a list (an email's group or incident, a digest's worst and best), in plain text. */
export interface ReviewItem {
  /** "★☆☆☆☆ Jane's Shop (Canada)" */
  heading: string;
  /** "HIGH · 72/100", "March 31, 2025", "2 months using the app" */
  details: string[];
  reasons: string[];
  /** '' when the review has no text. */
  content: string;
  /** The review in the inbox, when the message lists several and the inbox has an address. */
  url?: string;
}

/**
 * `date` is the review's day as the list words it; `severity`, when given, leads the details and
 * gives the reasons.
 */
export function reviewItem(
  review: ReviewRef,
  date: string,
  maxContent: number,
  severity?: Severity,
): ReviewItem {
  const details = [date, tenureSentence(review.timeUsingApp)];
  return {
    heading: `${stars(review.rating)} ${reviewerLine(review)}`,
    details: severity === undefined ? details : [severityLabel(severity), ...details],
    reasons: severity === undefined ? [] : reasonsOf(severity),
    content: reviewContent(review, maxContent),
  };
}
export interface Fact {
  label: string;
  value: string;
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

/** Where a message's data came from, as every renderer is told it. */
export interface DataSource {
  /**
   * The reviews and ratings are made up by the built-in simulator (`demo`, `catalog.simulator: true`):
   * the message says so at its top, in its subject and in its notification text.
   */
  simulated?: boolean;
  /**
   * Where the triage inbox is (`web.publicUrl`): a review alert then links to the review there, and every
   * other alert to its app's page.
   */
  inboxUrl?: string;
}

/**
 * The inbox's page for what an alert is about: the review (found by its app and review id; one stored
 * without an id has only its app's page to go to), or the app. None without `inboxUrl`.
 */
export function inboxLinks(
  about: { app: AppRef; review?: Pick<ReviewRef, 'reviewId'> },
  source: DataSource,
): Link[] {
  const base = source.inboxUrl ? safeUrl(source.inboxUrl) : undefined;
  if (base === undefined) return [];
  const app = encodeURIComponent(about.app.handle);
  const reviewId = about.review?.reviewId;
  if (reviewId) {
    return [
      {
        label: 'Open in the inbox',
        url: new URL(`/apps/${app}/reviews/${encodeURIComponent(reviewId)}`, base).href,
      },
    ];
  }
  return [{ label: 'Open the app in the inbox', url: new URL(`/apps/${app}`, base).href }];
}

/** Leads the subject, headline and notification text of a message built from simulated data. */
export const SIMULATED_TAG = '[SIMULATED DATA]';

/** The top of a message built from simulated data, in plain text. */
export const SIMULATED_NOTE =
  'SIMULATED DATA: these reviews and ratings were made up by the built-in Catalog API simulator, not read from the marketplace.';

/**
 * `text` led by SIMULATED_TAG when the data is simulated. `max` caps the whole, cutting `text` rather
 * than the tag: a long subject must not lose the one word that says it is not real.
 */
export function tagSimulated(text: string, source: DataSource, max = Number.POSITIVE_INFINITY): string {
  if (source.simulated !== true) return truncate(text, max);
  return `${SIMULATED_TAG} ${truncate(text, max - SIMULATED_TAG.length - 1)}`;
}
