/**
 * The digest email's outline: its parts in order, each with its headings and sentences in plain text. The
 * HTML (digest-email-html.ts) and the plain-text alternative (digest-email-text.ts) each render every part
 * in their own markup, so they carry the same parts in the same order, worded alike.
 */
import type { DigestMarket } from '../../digest/market.js';
import { headlineApps } from '../../digest/summarize.js';
import type { DigestTopics } from '../../digest/topics.js';
import { type ComparisonRow, type DigestApp, type DigestData, STAR_RATINGS } from '../../digest/types.js';
import type { Priority } from '../../scoring/priority.js';
import { formatCount } from '../../util/plural.js';
import type { ReviewItem } from '../wording.js';
import {
  appTitle,
  capitalize,
  changeSentence,
  coverageNote,
  dayLabel,
  digestReviewItem,
  digestTitle,
  dropsSentence,
  failedAbout,
  failedKind,
  failedReason,
  failedSentence,
  formatChange,
  formatRating,
  lowLabel,
  percent,
  periodNoun,
  perWeek,
  ratingWithCount,
  reviewsSentence,
  roleLabel,
  summarySentence,
  weekLabel,
} from './digest-wording.js';

/** A part of the digest, top to bottom. Headings are as the HTML shows them; the text capitalises some. */
export type DigestPart =
  | { kind: 'head'; title: string; subtitle: string }
  | { kind: 'note'; text: string }
  | { kind: 'summary'; text: string }
  | { kind: 'failed-total'; text: string }
  | { kind: 'triage'; heading: string }
  | ({ kind: 'glance'; heading: string } & Table)
  | ({ kind: 'failed'; heading: string } & FailedList)
  | ({ kind: 'comparison'; heading: string } & Table)
  | { kind: 'topics'; topics: DigestTopics }
  | { kind: 'market'; market: DigestMarket }
  | { kind: 'app'; app: DigestApp; title: string; subtitle: string; facts: AppFact[]; parts: AppPart[] }
  | { kind: 'footer'; text: string };

/** A cell of a table, in plain text: the HTML styles it by its flags, the text shows `text` and `note`. */
export interface Cell {
  text: string;
  /** Said after the text, lighter: "(competitor)". */
  note?: string;
  /** Stands for no value ("—", "no rating"): muted. */
  missing?: boolean;
  /** A change, coloured by its direction (a fall red, a rise green). */
  change?: number;
  strong?: boolean;
}

/** A table of apps: the first column names the app, the others are figures (right-aligned). */
export interface Table {
  columns: string[];
  /** `highlight`: an own app among competitors. */
  rows: Array<{ cells: Cell[]; highlight?: boolean }>;
}

/** One star rating's share of the period's reviews. */
export interface StarBar {
  stars: number;
  share: number;
  /** "12" and "40%" */
  count: string;
  percent: string;
}

/** One week of the trend: its label, its closing rating (changed from the week before), its reviews. */
export interface WeekPoint {
  label: string;
  rating: Cell;
  reviews: number;
  count: string;
}

/** A line of an app's facts; `change`, when present, is what colours it (a fall red, a rise green). */
export interface AppFact {
  label: string;
  value: string;
  change?: number | null;
}

/** A part of one app's section, under its facts. */
export type AppPart =
  | { kind: 'distribution'; heading: string; bars: StarBar[] }
  | { kind: 'trend'; heading: string; weeks: WeekPoint[] }
  | { kind: 'reviews'; heading: string; reviews: DigestReviewItem[] }
  | ({ kind: 'failed'; heading: string } & FailedList);

/** A review as the digest lists it; a worst review has the priority that colours its card. */
export interface DigestReviewItem extends ReviewItem {
  priority?: Priority;
}

/** An app's failed alerts, as many as the digest lists, and how many more there are. */
export interface FailedList {
  alerts: FailedLine[];
  /** "… and 3 more: see reviewwatch status."; absent when none was left out. */
  more?: string;
}

/** A failed alert: when it was raised, what it was, where to, and why it failed. */
export interface FailedLine {
  raised: string;
  /** Raised before the period and still not delivered. */
  stillFailed: boolean;
  kind: string;
  about: string;
  channel: string;
  reason: string;
}

export function digestOutline(data: DigestData, product: string): DigestPart[] {
  const { period } = data;
  const parts: DigestPart[] = [
    { kind: 'head', title: digestTitle(data, product), subtitle: `${period.label} · ${period.timezone}` },
  ];
  const note = coverageNote(data.coverage, period.timezone, product);
  if (note !== undefined) parts.push({ kind: 'note', text: note });
  parts.push({ kind: 'summary', text: summarySentence(data) });
  if (data.totals.failedAlerts > 0)
    parts.push({ kind: 'failed-total', text: `⚠ ${failedSentence(data.totals.failedAlerts)}.` });
  parts.push({ kind: 'triage', heading: 'Triage' });
  if (data.quiet) {
    parts.push({ kind: 'glance', heading: 'Current ratings', ...glanceTable(data.apps, true) });
    for (const app of data.apps.filter((a) => a.failedAlertsTotal > 0))
      parts.push({
        kind: 'failed',
        heading: `${appTitle(app)}: alerts that failed to deliver`,
        ...failedList(app, period.timezone),
      });
    if (data.market !== null) parts.push({ kind: 'market', market: data.market });
  } else {
    const heading = data.apps.some((a) => a.role === 'own') ? 'Your apps' : 'Apps';
    parts.push({ kind: 'glance', heading, ...glanceTable(headlineApps(data.apps), false) });
    if (data.comparison !== null) {
      const heading = `Against competitors, ${periodNoun(period)}`;
      parts.push({ kind: 'comparison', heading, ...comparisonTable(data.comparison, data.maxRating) });
    }
    if (data.topics !== null) parts.push({ kind: 'topics', topics: data.topics });
    if (data.market !== null) parts.push({ kind: 'market', market: data.market });
    for (const app of data.apps) parts.push(appOutline(app, data));
  }
  parts.push({
    kind: 'footer',
    text: `Sent by ${product}. Weeks run from Monday to Sunday in ${period.timezone}; a review counts in the week of its date. Review text is quoted as posted on the marketplace.`,
  });
  return parts;
}

function appOutline(app: DigestApp, data: DigestData): Extract<DigestPart, { kind: 'app' }> {
  const noun = periodNoun(data.period);
  const { timezone } = data.period;
  const { rating } = app;
  const facts: AppFact[] = [
    { label: 'Rating', value: ratingWithCount(rating.current) },
    {
      label: 'vs last week',
      value: changeSentence(rating.changeVsLastWeek, 'last week'),
      change: rating.changeVsLastWeek,
    },
    {
      label: 'vs 4 weeks ago',
      value: changeSentence(rating.changeVsFourWeeksAgo, '4 weeks ago'),
      change: rating.changeVsFourWeeksAgo,
    },
    { label: capitalize(noun), value: reviewsSentence(app) },
  ];
  if (app.drops.length > 0) facts.push({ label: 'Rating drops', value: dropsSentence(app.drops, timezone) });
  const parts: AppPart[] = [];
  if (app.reviews.count > 0)
    parts.push({ kind: 'distribution', heading: `Ratings ${noun}`, bars: starBars(app) });
  parts.push({ kind: 'trend', heading: `Last ${app.trend.length} weeks`, weeks: weekPoints(app, timezone) });
  if (app.worst.length > 0) {
    const reviews = app.worst.map((r) => ({
      ...digestReviewItem(r, timezone, r.severity),
      priority: r.severity.priority,
    }));
    parts.push({ kind: 'reviews', heading: `Worst reviews ${noun}`, reviews });
  }
  if (app.best.length > 0) {
    const reviews = app.best.map((r) => digestReviewItem(r, timezone));
    parts.push({ kind: 'reviews', heading: `Best reviews ${noun}`, reviews });
  }
  if (app.failedAlertsTotal > 0)
    parts.push({ kind: 'failed', heading: 'Alerts that failed to deliver', ...failedList(app, timezone) });
  const subtitle = `${app.handle} · ${roleLabel(app.role)}`;
  return { kind: 'app', app, title: appTitle(app), subtitle, facts, parts };
}

function ratingCell(average: number | null): Cell {
  return average === null ? { text: 'no rating', missing: true } : { text: formatRating(average) };
}

function changeCell(delta: number | null): Cell {
  return delta === null ? { text: '—', missing: true } : { text: formatChange(delta), change: delta };
}

/** Apps at a glance: rating, change, and this period's reviews (on a quiet week, the change over 4 weeks). */
function glanceTable(apps: readonly DigestApp[], quiet: boolean): Table {
  const columns = ['App', 'Rating', 'vs last week'];
  columns.push(...(quiet ? ['vs 4 weeks ago'] : ['New reviews', 'Low']));
  const rows = apps.map((app) => {
    const cells: Cell[] = [
      { text: appTitle(app), strong: true, ...(app.role === 'competitor' ? { note: '(competitor)' } : {}) },
      ratingCell(app.rating.current?.average ?? null),
      changeCell(app.rating.changeVsLastWeek),
    ];
    if (quiet) cells.push(changeCell(app.rating.changeVsFourWeeksAgo));
    else cells.push({ text: formatCount(app.reviews.count) }, { text: formatCount(app.reviews.low) });
    return { cells };
  });
  return { columns, rows };
}

function comparisonTable(comparison: readonly ComparisonRow[], maxRating: number): Table {
  const columns = ['App', 'Rating', 'vs last week', 'Reviews / week', `Low (${lowLabel(maxRating)})`];
  const rows = comparison.map((r) => {
    const own = r.role === 'own';
    const cells: Cell[] = [
      { text: appTitle(r), strong: own, note: `(${roleLabel(r.role)})` },
      ratingCell(r.rating),
      changeCell(r.changeVsLastWeek),
      { text: perWeek(r.reviewsPerWeek) },
      r.lowShare === null ? { text: '—', missing: true } : { text: percent(r.lowShare) },
    ];
    return { cells, highlight: own };
  });
  return { columns, rows };
}

function starBars(app: DigestApp): StarBar[] {
  const { distribution, count } = app.reviews;
  return STAR_RATINGS.map((stars) => {
    const share = count === 0 ? 0 : distribution[stars] / count;
    return { stars, share, count: formatCount(distribution[stars]), percent: percent(share) };
  });
}

function weekPoints(app: DigestApp, timezone: string): WeekPoint[] {
  return app.trend.map((week, i) => {
    const before = app.trend[i - 1]?.rating ?? null;
    const rating: Cell =
      week.rating === null
        ? { text: '—' }
        : before === null
          ? { text: formatRating(week.rating) }
          : { text: formatRating(week.rating), change: week.rating - before };
    return {
      label: weekLabel(week.start, timezone),
      rating,
      reviews: week.reviews,
      count: formatCount(week.reviews),
    };
  });
}

function failedList(app: DigestApp, timezone: string): FailedList {
  const alerts = app.failedAlerts.map((a) => ({
    raised: dayLabel(a.alertAt, timezone),
    stillFailed: !a.inPeriod,
    kind: failedKind(a.kind),
    about: failedAbout(a),
    channel: a.channel,
    reason: failedReason(a),
  }));
  const more = app.failedAlertsTotal - alerts.length;
  return more > 0 ? { alerts, more: `… and ${formatCount(more)} more: see reviewwatch status.` } : { alerts };
}

/**
 * A markup's renderers of a kind of part (DigestPart, AppPart), one per kind, each given the part of its
 * kind: an outline with a kind no renderer draws does not compile.
 */
export type PartRenderers<P extends { kind: string }, C, T> = {
  readonly [K in P['kind']]: (part: Extract<P, { kind: K }>, context: C) => T[];
};

/** The parts in order, each drawn by the renderer of its kind. */
export function renderParts<P extends { kind: string }, C, T>(
  parts: readonly P[],
  renderers: PartRenderers<P, C, T>,
  context: C,
): T[] {
  // As in renderAlert (renderers.ts): TypeScript cannot tie `part.kind` to the renderer it picks (a
  // correlated union); PartRenderers' mapped type is what guarantees each takes the part of its kind.
  return parts.flatMap((part) => {
    const render = renderers[part.kind as P['kind']] as (part: P, context: C) => T[];
    return render(part, context);
  });
}
