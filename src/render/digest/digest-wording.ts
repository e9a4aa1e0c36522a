/**
 * What the digest says, in plain unescaped text, shared by the email (HTML and text) and Slack so they
 * tell the same story. Untrusted strings are cleaned and capped here; escaping is each renderer's job.
 */
import { DateTime } from 'luxon';
import { type DigestPeriod, periodWeeks } from '../../digest/period.js';
import { direction, headlineApps } from '../../digest/summarize.js';
import type {
  AppRole,
  Coverage,
  DigestApp,
  DigestData,
  DigestReview,
  FailedAlert,
  RatingDropNote,
  RatingPoint,
  WorstReview,
} from '../../digest/types.js';
import { ALERT_KINDS } from '../../kinds.js';
import type { Severity } from '../../scoring/priority.js';
import { formatCount, plural } from '../../util/plural.js';
import { oneLine, truncate } from '../escape.js';
import { type DataSource, formatDate, type ReviewItem, reviewItem } from '../wording.js';

const MAX_TITLE = 80;
const MAX_REASON = 200;

export interface DigestRenderOptions extends DataSource {
  /** Names the sender in the subject, the title and Slack's header; default "reviewwatch". */
  product?: string;
}

/** The product name a digest is signed with: one line, capped, never empty. */
export function productName(options: DigestRenderOptions): string {
  return truncate(oneLine(options.product ?? ''), 60) || 'reviewwatch';
}

export function appTitle(app: { title: string; handle: string }): string {
  return truncate(oneLine(app.title) || app.handle, MAX_TITLE);
}

export function roleLabel(role: AppRole): string {
  return role === 'own' ? 'your app' : 'competitor';
}

/** An average as the body shows it: two decimals. */
export function formatRating(average: number): string {
  return average.toFixed(2);
}

/** A change: "▼0.1", "▲0.04", "±0" (two decimals at most, no trailing zeros). */
export function formatChange(delta: number): string {
  const size = String(Number(Math.abs(delta).toFixed(2)));
  switch (direction(delta)) {
    case 'down':
      return `▼${size}`;
    case 'up':
      return `▲${size}`;
    case 'same':
      return '±0';
  }
}

/** "▼0.1 vs last week", or what is missing. */
export function changeSentence(delta: number | null, against: string): string {
  return delta === null ? `no rating ${against} to compare` : `${formatChange(delta)} vs ${against}`;
}

/** "4.62 (1,204 ratings)" */
export function ratingWithCount(point: RatingPoint | null): string {
  if (point === null) return 'no rating yet';
  return point.count === null
    ? formatRating(point.average)
    : `${formatRating(point.average)} (${plural(point.count, 'rating')})`;
}

/** 0.254 → "25%" */
export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** Reviews per week: whole for a weekly digest, one decimal when the period is not a whole week. */
export function perWeek(n: number): string {
  return Number.isInteger(n) ? formatCount(n) : n.toFixed(1);
}

export function lowLabel(maxRating: number): string {
  return maxRating >= 5 ? 'any rating' : maxRating === 1 ? '1 star' : `1–${maxRating} stars`;
}

/** "12 new reviews, average 3.92, 3 low" */
export function reviewsSentence(app: DigestApp): string {
  const { count, average, low } = app.reviews;
  if (count === 0) return 'no new reviews';
  const avg = average === null ? '' : `, average ${average.toFixed(2)}`;
  return `${plural(count, 'new review')}${avg}, ${formatCount(low)} low`;
}

/** The week of a trend column, by its first day: "16 Nov". */
export function weekLabel(start: Date, timezone: string): string {
  return DateTime.fromJSDate(start, { zone: timezone }).setLocale('en').toFormat('d LLL');
}

/** A date in the digest's zone: "22 Nov 2026". */
export function dayLabel(at: Date, timezone: string): string {
  return DateTime.fromJSDate(at, { zone: timezone }).setLocale('en').toFormat('d LLL yyyy');
}

/** The drops a digest lists per app: the latest ones, the others counted. */
const MAX_DROPS_LISTED = 3;

/**
 * "4.4 → 4.2 on 24 Nov; 4.2 → 3.9 on 26 Nov": the period's rating drops, the latest three, the others
 * counted before them. '' when there were none.
 */
export function dropsSentence(drops: readonly RatingDropNote[], timezone: string): string {
  const shown = drops.slice(-MAX_DROPS_LISTED).map((d) => {
    const [from, to] = [d.from.toFixed(1), d.to.toFixed(1)];
    const fell = from === to ? `${d.from.toFixed(2)} → ${d.to.toFixed(2)}` : `${from} → ${to}`;
    return `${fell} on ${weekLabel(d.at, timezone)}`;
  });
  const earlier = drops.length - shown.length;
  return [...(earlier > 0 ? [`${plural(earlier, 'earlier drop')}`] : []), ...shown].join('; ');
}

export function failedKind(kind: FailedAlert['kind']): string {
  return ALERT_KINDS[kind].label;
}

export function failedReason(alert: FailedAlert): string {
  return truncate(oneLine(alert.reason), MAX_REASON) || 'no reason recorded';
}

/** The parts of a stored alert payload (alerts/types.ts) a description reads, none taken for granted. */
interface PayloadShape {
  review?: { rating?: unknown; reviewer?: unknown };
  from?: { average?: unknown };
  to?: { average?: unknown };
  reviews?: unknown;
}

/**
 * What an alert was about, from the payload frozen when it was raised; plain, untrusted text. The payload
 * is JSON from an earlier version of the program, possibly: a field it lacks gives a vaguer description,
 * never a digest that fails to render.
 */
function describeAlert(kind: FailedAlert['kind'], payload: unknown): string {
  const alert: PayloadShape = typeof payload === 'object' && payload !== null ? payload : {};
  switch (kind) {
    case 'review': {
      const rating = alert.review?.rating;
      const who = typeof alert.review?.reviewer === 'string' ? alert.review.reviewer.trim() : '';
      const what = typeof rating === 'number' ? `${rating}-star review` : 'a review';
      return `${what} by ${who || 'Anonymous'}`;
    }
    case 'rating-drop': {
      const from = alert.from?.average;
      const to = alert.to?.average;
      return typeof from === 'number' && typeof to === 'number'
        ? `${from.toFixed(2)} → ${to.toFixed(2)}`
        : 'rating drop';
    }
    case 'incident':
      return Array.isArray(alert.reviews)
        ? plural(alert.reviews.length, 'low review')
        : 'several low reviews';
    default:
      // Market alerts: their kind says what they were about; the payload is not needed to say it.
      return ALERT_KINDS[kind].label.toLowerCase();
  }
}

/** What a failed alert was about: "1-star review by Jane's Shop", "4.66 → 4.60", "4 low reviews". */
export function failedAbout(alert: FailedAlert): string {
  return truncate(oneLine(describeAlert(alert.kind, alert.payload)), MAX_REASON);
}

/** The summary line at the top: what a manager should know first. */
export function summarySentence(data: DigestData): string {
  const { totals } = data;
  const own = data.apps.some((a) => a.role === 'own') ? ' of your apps' : '';
  if (data.quiet) return `A quiet week: no new reviews of any watched app.`;
  const parts = [
    `${plural(totals.newReviews, 'new review')}${own}`,
    `${formatCount(totals.lowReviews)} low (${lowLabel(data.maxRating)})`,
  ];
  if (totals.ratingsFell > 0) {
    parts.push(`the rating fell for ${plural(totals.ratingsFell, 'app')} since last week`);
  }
  return `${parts.join(', ')}.`;
}

/** "reviewwatch weekly digest", or on a quiet week "reviewwatch weekly digest: a quiet week". */
export function digestTitle(data: DigestData, product: string): string {
  return `${product} weekly digest${data.quiet ? ': a quiet week' : ''}`;
}

// The compact summary (Slack, Teams, Discord): a line per app, own apps first.

/**
 * The apps the summary lists, in order: on a quiet week every app, as "the current ratings"; otherwise
 * the headline apps (the own ones, when there are any), then the rest under "Competitors".
 */
export function summaryApps(data: DigestData): { main: DigestApp[]; rest: DigestApp[] } {
  if (data.quiet) return { main: data.apps, rest: [] };
  const main = headlineApps(data.apps);
  return { main, rest: data.apps.filter((a) => !main.includes(a)) };
}

/** "★ 4.62 ▼0.1 vs last week", or "no rating yet". */
export function ratingBrief(app: DigestApp): string {
  const current = app.rating.current;
  const delta = app.rating.changeVsLastWeek;
  return current === null
    ? 'no rating yet'
    : `★ ${formatRating(current.average)}${delta === null ? '' : ` ${formatChange(delta)} vs last week`}`;
}

/** "12 new reviews (avg 3.92)", or "no new reviews". */
export function newReviewsBrief(app: DigestApp): string {
  const { count, average } = app.reviews;
  if (count === 0) return 'no new reviews';
  return `${plural(count, 'new review')}${average === null ? '' : ` (avg ${average.toFixed(2)})`}`;
}

/** The review the summary quotes under an app: an own app's worst, when that is a low one. */
export function quotedWorst(app: DigestApp, maxRating: number): WorstReview | undefined {
  const worst = app.worst[0];
  return app.role === 'own' && worst !== undefined && worst.rating <= maxRating ? worst : undefined;
}

/** "2 alerts failed to deliver and were not retried" */
export function failedSentence(total: number): string {
  return `${plural(total, 'alert')} failed to deliver (retry with \`reviewwatch notify retry\`)`;
}

/** Review text in a digest: whole reviews up to here; a digest lists many, and links to none. */
const MAX_DIGEST_REVIEW = 1_500;
const MAX_DIGEST_BEST_REVIEW = 600;

/**
 * The review's day as the marketplace dated it; a review whose date could not be read says when it was
 * first seen instead, which is also what placed it in this week.
 */
function reviewDate(review: DigestReview, timezone: string): string {
  if (/^\d{4}-\d{2}-\d{2}/.test(oneLine(review.createdDate))) return formatDate(review.createdDate);
  return `date unknown, first seen ${dayLabel(review.at, timezone)}`;
}

/** A worst review (with its severity) or a best one, as the digest lists it. */
export function digestReviewItem(review: DigestReview, timezone: string, severity?: Severity): ReviewItem {
  const max = severity === undefined ? MAX_DIGEST_BEST_REVIEW : MAX_DIGEST_REVIEW;
  return reviewItem(review, reviewDate(review, timezone), max, severity);
}

/** "This week" for a weekly digest, "This period" for a --since/--until one. */
export function periodNoun(period: DigestPeriod): string {
  return periodWeeks(period) === 1 ? 'this week' : 'this period';
}

export function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * What a digest of a period reviewwatch did not watch whole says first; undefined when it watched all
 * of it. Also the reason `digest --send` and the scheduled digest give for sending nothing.
 */
export function coverageNote(
  coverage: Coverage,
  timezone: string,
  product = 'reviewwatch',
): string | undefined {
  switch (coverage.kind) {
    case 'full':
      return undefined;
    case 'partial':
      return `${product} started watching on ${dayLabel(coverage.watchedSince, timezone)}: this digest covers ${plural(coverage.days, 'day')}. Ratings start then; reviews from the days before are the ones its first poll found.`;
    case 'none':
      return coverage.watchedSince === null
        ? `${product} has not completed a poll yet: nothing in this period was watched.`
        : `${product} started watching on ${dayLabel(coverage.watchedSince, timezone)}, after this period ended: nothing in it was watched.`;
  }
}
