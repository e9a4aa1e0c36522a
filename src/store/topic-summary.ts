/**
 * What the stored topics add up to: per app, each topic's reviews, share and average stars over a period,
 * with its trend against the periods before under the engine's rule (src/topics/trends.ts: said only when
 * it means something), and per app and week. Read from review_topics' (app, topic, date) index and the
 * reviews' (app, date) index: a page or a digest reads one app's few hundred index entries per topic,
 * never a review's text (bench/README.md, Topics).
 */
import {
  DEFAULT_TREND_RULE,
  describeTrend,
  type PeriodCount,
  type Trend,
  topicTrend,
  weekOf,
} from '../topics/index.js';
import type { StoreDb } from './db.js';

/** The inbox's date of a review, spelled as in its indexes (drizzle/0008_inbox.sql). */
const AT = 'coalesce(created_at, first_seen_at)';

export interface TopicFigure {
  topic: string;
  reviews: number;
  /** Of the app's reviews in the period, 0 to 1. */
  share: number;
  averageStars: number;
  trend: Trend;
  /** "billing: up 3x", or undefined when the trend is flat (the rule says nothing). */
  trendText: string | undefined;
}

export interface AppTopics {
  app: string;
  /** Every review of the app in the period. */
  reviews: number;
  /** Its topics, most reviews first. */
  topics: TopicFigure[];
}

export interface TopicPeriod {
  from: Date;
  to: Date;
  /** Periods of the same length before `from` that make each trend's baseline. */
  baselinePeriods?: number;
}

interface Cell {
  app: string;
  topic: string;
  p: number;
  n: number;
  stars: number;
}

/** Counts per app, topic and period index (0 the period itself, 1 the one before, …). */
function topicCells(db: StoreDb, app: string, to: number, length: number, periods: number): Cell[] {
  return db.$client
    .prepare<[number, number, string, number, number], Cell>(
      `select app_handle as app, topic, cast((? - 1 - at) / ? as integer) as p, count(*) as n, sum(rating) as stars
       from review_topics where app_handle = ? and at >= ? and at < ? group by topic, p`,
    )
    .all(to, length, app, to - periods * length, to);
}

function appTotals(db: StoreDb, app: string, to: number, length: number, periods: number): number[] {
  const totals = new Array<number>(periods).fill(0);
  const rows = db.$client
    .prepare<[number, number, string, number, number], { p: number; n: number }>(
      `select cast((? - 1 - ${AT}) / ? as integer) as p, count(*) as n from reviews
       where app_handle = ? and ${AT} >= ? and ${AT} < ? group by p`,
    )
    .all(to, length, app, to - periods * length, to);
  for (const row of rows) if (row.p >= 0 && row.p < periods) totals[row.p] = row.n;
  return totals;
}

/** One app's topics in the period, with their trends against the periods before. */
export function appTopics(db: StoreDb, app: string, period: TopicPeriod): AppTopics {
  const to = period.to.getTime();
  const length = Math.max(1, to - period.from.getTime());
  const periods = 1 + (period.baselinePeriods ?? DEFAULT_TREND_RULE.baselinePeriods);
  const totals = appTotals(db, app, to, length, periods);
  const byTopic = new Map<string, { counts: number[]; stars: number }>();
  for (const cell of topicCells(db, app, to, length, periods)) {
    if (cell.p < 0 || cell.p >= periods) continue;
    const entry = byTopic.get(cell.topic) ?? { counts: new Array<number>(periods).fill(0), stars: 0 };
    entry.counts[cell.p] = cell.n;
    if (cell.p === 0) entry.stars = cell.stars;
    byTopic.set(cell.topic, entry);
  }
  const current = totals[0] ?? 0;
  const topics: TopicFigure[] = [];
  for (const [topic, { counts, stars }] of byTopic) {
    const reviews = counts[0] ?? 0;
    // Oldest first, as the rule reads its history.
    const history: PeriodCount[] = counts
      .slice(1)
      .map((n, i) => ({ topicReviews: n, appReviews: totals[i + 1] ?? 0 }))
      .reverse();
    const trend = topicTrend({ topicReviews: reviews, appReviews: current }, history);
    if (reviews === 0 && trend.direction === 'flat') continue;
    topics.push({
      topic,
      reviews,
      share: current === 0 ? 0 : reviews / current,
      averageStars: reviews === 0 ? 0 : Math.round((stars / reviews) * 100) / 100,
      trend,
      trendText: describeTrend(topic, trend),
    });
  }
  topics.sort((a, b) => b.reviews - a.reviews || a.topic.localeCompare(b.topic));
  return { app, reviews: current, topics };
}

export interface TopicWeekRow {
  /** The Monday (UTC) the week starts on, YYYY-MM-DD. */
  week: string;
  topic: string;
  reviews: number;
  share: number;
  averageStars: number;
}

/** One app's topics per week since `from`: reviews, share of the week's reviews, average stars. */
export function appTopicWeeks(db: StoreDb, app: string, from: Date, to: Date): TopicWeekRow[] {
  const weekly = new Map<string, number>();
  const reviews = db.$client
    .prepare<[string, number, number], { at: number }>(
      `select ${AT} as at from reviews where app_handle = ? and ${AT} >= ? and ${AT} < ?`,
    )
    .all(app, from.getTime(), to.getTime());
  for (const { at } of reviews) {
    const week = weekOf(new Date(at));
    weekly.set(week, (weekly.get(week) ?? 0) + 1);
  }
  const cells = new Map<string, { reviews: number; stars: number }>();
  const rows = db.$client
    .prepare<[string, number, number], { topic: string; at: number; rating: number }>(
      'select topic, at, rating from review_topics where app_handle = ? and at >= ? and at < ?',
    )
    .all(app, from.getTime(), to.getTime());
  for (const row of rows) {
    const key = `${weekOf(new Date(row.at))}\u0000${row.topic}`;
    const cell = cells.get(key) ?? { reviews: 0, stars: 0 };
    cell.reviews += 1;
    cell.stars += row.rating;
    cells.set(key, cell);
  }
  return [...cells]
    .map(([key, cell]) => {
      const [week, topic] = key.split('\u0000') as [string, string];
      return {
        week,
        topic,
        reviews: cell.reviews,
        share: cell.reviews / (weekly.get(week) ?? cell.reviews),
        averageStars: Math.round((cell.stars / cell.reviews) * 100) / 100,
      };
    })
    .sort((a, b) => a.week.localeCompare(b.week) || b.reviews - a.reviews || a.topic.localeCompare(b.topic));
}
