/**
 * What the stored topics add up to: per app, each topic's reviews, share and average stars over a period,
 * with its trend against the periods before under the engine's rule (src/topics/trends.ts: said only when
 * it means something), and per app and week. Counted by periodCounts (src/store/period-counts.ts): whole
 * days from the per-day counts, the days a period's edge cuts through from the reviews' topics column and
 * (app, date) index. A page or a digest reads a few rows per app and day, never a review's text
 * (bench/README.md, Topics).
 */
import { DEFAULT_TREND_RULE, describeTrend, type Trend, topicTrend, weekOf } from '../topics/index.js';
import type { StoreDb } from './db.js';
import { periodCounts } from './period-counts.js';

const WEEK_MS = 7 * 86_400_000;

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

/** One app's topics in the period, with their trends against the periods before. */
export function appTopics(db: StoreDb, app: string, period: TopicPeriod): AppTopics {
  const to = period.to.getTime();
  const length = Math.max(1, to - period.from.getTime());
  const periods = 1 + (period.baselinePeriods ?? DEFAULT_TREND_RULE.baselinePeriods);
  // Oldest first, as the rule reads its history: the period itself is the last.
  const bounds = Array.from({ length: periods + 1 }, (_, i) => to - (periods - i) * length);
  const counts = periodCounts(db, app, bounds);
  const now = counts.at(-1) ?? { reviews: 0, topics: new Map() };
  const history = counts.slice(0, -1);
  const names = new Set(counts.flatMap((c) => [...c.topics.keys()]));
  const topics: TopicFigure[] = [];
  for (const topic of names) {
    const { reviews, stars } = now.topics.get(topic) ?? { reviews: 0, stars: 0 };
    const trend = topicTrend(
      { topicReviews: reviews, appReviews: now.reviews },
      history.map((c) => ({ topicReviews: c.topics.get(topic)?.reviews ?? 0, appReviews: c.reviews })),
    );
    if (reviews === 0 && trend.direction === 'flat') continue;
    topics.push({
      topic,
      reviews,
      share: now.reviews === 0 ? 0 : reviews / now.reviews,
      averageStars: reviews === 0 ? 0 : Math.round((stars / reviews) * 100) / 100,
      trend,
      trendText: describeTrend(topic, trend),
    });
  }
  topics.sort((a, b) => b.reviews - a.reviews || a.topic.localeCompare(b.topic));
  return { app, reviews: now.reviews, topics };
}

export interface TopicWeekRow {
  /** The Monday (UTC) the week starts on, YYYY-MM-DD. */
  week: string;
  topic: string;
  reviews: number;
  share: number;
  averageStars: number;
}

/** The bounds of the weeks (Monday to Monday, UTC) from `from` to `to`, the first and last cut by them. */
function weekBounds(from: number, to: number): number[] {
  const bounds = [from];
  for (let monday = Date.parse(weekOf(new Date(from))) + WEEK_MS; monday < to; monday += WEEK_MS) {
    bounds.push(monday);
  }
  bounds.push(to);
  return bounds;
}

/** One app's topics per week since `from`: reviews, share of the week's reviews, average stars. */
export function appTopicWeeks(db: StoreDb, app: string, from: Date, to: Date): TopicWeekRow[] {
  if (from.getTime() >= to.getTime()) return [];
  const bounds = weekBounds(from.getTime(), to.getTime());
  const rows: TopicWeekRow[] = [];
  periodCounts(db, app, bounds).forEach((counts, i) => {
    const week = weekOf(new Date(bounds[i] as number));
    for (const [topic, cell] of counts.topics) {
      rows.push({
        week,
        topic,
        reviews: cell.reviews,
        share: cell.reviews / counts.reviews,
        averageStars: Math.round((cell.stars / cell.reviews) * 100) / 100,
      });
    }
  });
  return rows.sort(
    (a, b) => a.week.localeCompare(b.week) || b.reviews - a.reviews || a.topic.localeCompare(b.topic),
  );
}
