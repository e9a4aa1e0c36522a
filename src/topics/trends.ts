/**
 * Topics over time: per app, topic and week, how many reviews, what share of the app's reviews, and
 * their average stars; and the rule that says a topic went up or down only when the numbers mean it
 * (docs/topics.md, "Trends").
 */
import { binomialLowerTail, binomialUpperTail } from './stats.js';

/** A review as the trend needs it: its topics already found (`topicsOf`). */
export interface DatedReview {
  app: string;
  /** When it was written (the marketplace's date). */
  at: Date;
  rating: number;
  topics: readonly string[];
}

export interface TopicWeek {
  app: string;
  topic: string;
  /** The Monday (UTC) the week starts on, as YYYY-MM-DD. */
  week: string;
  reviews: number;
  /** `reviews` over every review of the app that week, 0 to 1. */
  share: number;
  averageStars: number;
}

const DAY_MS = 86_400_000;

/** The Monday (UTC) of the week `date` falls in, as YYYY-MM-DD. */
export function weekOf(date: Date): string {
  const day = Math.floor(date.getTime() / DAY_MS);
  // 1970-01-01 was a Thursday: day 0 is weekday 3 counting from Monday 0.
  const monday = day - ((day + 3) % 7);
  return new Date(monday * DAY_MS).toISOString().slice(0, 10);
}

/**
 * Weekly figures per app and topic, sorted by app, week and topic. A store answers the same from SQL
 * at scale; this is the definition the SQL must agree with, and what small callers use directly.
 */
export function topicWeeks(reviews: Iterable<DatedReview>): TopicWeek[] {
  const appWeeks = new Map<string, number>();
  const cells = new Map<string, { reviews: number; stars: number }>();
  for (const review of reviews) {
    const week = weekOf(review.at);
    const appKey = `${review.app}\u0000${week}`;
    appWeeks.set(appKey, (appWeeks.get(appKey) ?? 0) + 1);
    for (const topic of new Set(review.topics)) {
      const key = `${appKey}\u0000${topic}`;
      const cell = cells.get(key) ?? { reviews: 0, stars: 0 };
      cell.reviews += 1;
      cell.stars += review.rating;
      cells.set(key, cell);
    }
  }
  const rows: TopicWeek[] = [];
  for (const [key, cell] of cells) {
    const [app, week, topic] = key.split('\u0000') as [string, string, string];
    const total = appWeeks.get(`${app}\u0000${week}`) ?? cell.reviews;
    rows.push({
      app,
      topic,
      week,
      reviews: cell.reviews,
      share: cell.reviews / total,
      averageStars: Math.round((cell.stars / cell.reviews) * 100) / 100,
    });
  }
  return rows.sort((a, b) =>
    a.app === b.app
      ? a.week === b.week
        ? a.topic.localeCompare(b.topic)
        : a.week.localeCompare(b.week)
      : a.app.localeCompare(b.app),
  );
}

/** A period's count of a topic among the app's reviews in it. */
export interface PeriodCount {
  topicReviews: number;
  appReviews: number;
}

export interface TrendRule {
  /** Periods before the current one that make the baseline. */
  baselinePeriods: number;
  /** One-sided binomial p-value under which a change is said. */
  alpha: number;
  /** "Up" needs at least this many reviews of the topic in the current period. */
  minCount: number;
  /** "Down" needs at least this many expected from the baseline: a fall from 2 to 0 is not news. */
  minExpected: number;
  /** And a change of at least this factor in the topic's share. */
  minRatio: number;
}

/** Tuned with bench/topics.ts: quiet on noise (bench/README.md#topics), loud on a tripled share. */
export const DEFAULT_TREND_RULE: TrendRule = Object.freeze({
  baselinePeriods: 8,
  alpha: 0.01,
  minCount: 5,
  minExpected: 5,
  minRatio: 1.5,
});

export interface Trend {
  direction: 'up' | 'down' | 'flat';
  /** This period's share over the baseline's; undefined when the baseline had none (a new topic). */
  ratio: number | undefined;
  share: number;
  baselineShare: number;
  /** The one-sided p-value of the direction tested (up when the share rose, down when it fell). */
  pValue: number;
}

/**
 * Compares the current period's share of a topic with its share over the periods before (up to
 * `rule.baselinePeriods`), under a binomial test: were the current period's reviews drawn at the
 * baseline's rate, how likely is a count this far out? It says up or down only when that is below
 * `alpha`, the share moved by `minRatio`, and the counts are not tiny. The share rather than the count
 * is tested so that a week with twice the reviews does not make every topic "up 2x".
 */
export function topicTrend(
  current: PeriodCount,
  history: readonly PeriodCount[],
  rule = DEFAULT_TREND_RULE,
): Trend {
  const base = history.slice(-rule.baselinePeriods);
  const baseTopic = base.reduce((s, p) => s + p.topicReviews, 0);
  const baseApp = base.reduce((s, p) => s + p.appReviews, 0);
  const share = current.appReviews === 0 ? 0 : current.topicReviews / current.appReviews;
  const baselineShare = baseApp === 0 ? 0 : baseTopic / baseApp;
  // Half a review of prior keeps a baseline of zero from making any count infinitely unlikely.
  const p = (baseTopic + 0.5) / (baseApp + 1);
  const ratio = baseTopic === 0 ? undefined : share / baselineShare;
  const flat = (pValue: number): Trend => ({ direction: 'flat', ratio, share, baselineShare, pValue });
  if (current.appReviews === 0 || baseApp === 0) return flat(1);
  const expected = p * current.appReviews;
  if (current.topicReviews >= expected) {
    const pValue = binomialUpperTail(current.topicReviews, current.appReviews, p);
    const bigEnough = ratio === undefined || ratio >= rule.minRatio;
    if (pValue < rule.alpha && current.topicReviews >= rule.minCount && bigEnough) {
      return { direction: 'up', ratio, share, baselineShare, pValue };
    }
    return flat(pValue);
  }
  const pValue = binomialLowerTail(current.topicReviews, current.appReviews, p);
  const smallEnough = ratio !== undefined && ratio <= 1 / rule.minRatio;
  if (pValue < rule.alpha && expected >= rule.minExpected && smallEnough) {
    return { direction: 'down', ratio, share, baselineShare, pValue };
  }
  return flat(pValue);
}

/** "billing: up 3x", "billing: new", "billing: down 2x": what a digest or page says of a trend. */
export function describeTrend(topic: string, trend: Trend): string | undefined {
  if (trend.direction === 'flat') return undefined;
  if (trend.ratio === undefined) return `${topic}: new`;
  const factor = trend.direction === 'up' ? trend.ratio : 1 / trend.ratio;
  const shown = factor >= 10 ? Math.round(factor) : Math.round(factor * 10) / 10;
  return `${topic}: ${trend.direction} ${shown}x`;
}
