/**
 * The digest email's outline: its parts in order, each with its headings and sentences in plain text. The
 * HTML (digest-email-html.ts) and the plain-text alternative (digest-email-text.ts) each render every part
 * in their own markup, so they carry the same parts in the same order, worded alike.
 */
import type { DigestMarket } from '../../digest/market.js';
import { headlineApps } from '../../digest/summarize.js';
import type { DigestTopics } from '../../digest/topics.js';
import type { ComparisonRow, DigestApp, DigestData } from '../../digest/types.js';
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
  periodNoun,
  ratingWithCount,
  reviewsSentence,
  roleLabel,
  summarySentence,
} from './digest-wording.js';

/** A part of the digest, top to bottom. Headings are as the HTML shows them; the text capitalises some. */
export type DigestPart =
  | { kind: 'head'; title: string; subtitle: string }
  | { kind: 'note'; text: string }
  | { kind: 'summary'; text: string }
  | { kind: 'failed-total'; text: string }
  | { kind: 'triage'; heading: string }
  | { kind: 'glance'; heading: string; apps: DigestApp[]; quiet: boolean }
  | ({ kind: 'failed'; heading: string } & FailedList)
  | { kind: 'comparison'; heading: string; rows: ComparisonRow[] }
  | { kind: 'topics'; topics: DigestTopics }
  | { kind: 'market'; market: DigestMarket }
  | { kind: 'app'; app: DigestApp; title: string; subtitle: string; facts: AppFact[]; parts: AppPart[] }
  | { kind: 'footer'; text: string };

/** A line of an app's facts; `change`, when present, is what colours it (a fall red, a rise green). */
export interface AppFact {
  label: string;
  value: string;
  change?: number | null;
}

/** A part of one app's section, under its facts. */
export type AppPart =
  | { kind: 'distribution'; heading: string }
  | { kind: 'trend'; heading: string }
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
    parts.push({ kind: 'glance', heading: 'Current ratings', apps: data.apps, quiet: true });
    for (const app of data.apps.filter((a) => a.failedAlertsTotal > 0))
      parts.push({
        kind: 'failed',
        heading: `${appTitle(app)}: alerts that failed to deliver`,
        ...failedList(app, period.timezone),
      });
    if (data.market !== null) parts.push({ kind: 'market', market: data.market });
  } else {
    const heading = data.apps.some((a) => a.role === 'own') ? 'Your apps' : 'Apps';
    parts.push({ kind: 'glance', heading, apps: headlineApps(data.apps), quiet: false });
    if (data.comparison !== null) {
      const heading = `Against competitors, ${periodNoun(period)}`;
      parts.push({ kind: 'comparison', heading, rows: data.comparison });
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
  if (app.reviews.count > 0) parts.push({ kind: 'distribution', heading: `Ratings ${noun}` });
  parts.push({ kind: 'trend', heading: `Last ${app.trend.length} weeks` });
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
