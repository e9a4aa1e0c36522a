/**
 * Every watched app's topics over a period, with their trends, and the own apps' share of each topic
 * against each competitor's ("billing: 8% of your reviews, 22% of Rival Bundles'"): what /topics,
 * /api/topics and `reviewwatch topics` show (docs/inbox.md, "Topics").
 */
import type { Config } from '../config/index.js';
import type { StoreDb } from './db.js';
import { type AppTopics, appTopics, type TopicPeriod } from './topic-summary.js';

export interface OverviewApp extends AppTopics {
  name: string;
  role: 'own' | 'competitor';
}

export interface ShareOf {
  reviews: number;
  /** Of all the reviews counted (0 to 1); 0 when there were none. */
  share: number;
}

export interface TopicComparison {
  topic: string;
  /** The own apps' reviews together. */
  own: ShareOf;
  competitors: Array<ShareOf & { app: string; name: string }>;
}

export interface TopicsOverview {
  from: Date;
  to: Date;
  apps: OverviewApp[];
  /** Each topic any app has in the period; empty without both own apps and competitors. */
  comparisons: TopicComparison[];
}

function shareOf(reviews: number, of: number): ShareOf {
  return { reviews, share: of === 0 ? 0 : reviews / of };
}

function compare(apps: readonly OverviewApp[]): TopicComparison[] {
  const own = apps.filter((a) => a.role === 'own');
  const rivals = apps.filter((a) => a.role === 'competitor');
  if (own.length === 0 || rivals.length === 0) return [];
  const ownTotal = own.reduce((sum, a) => sum + a.reviews, 0);
  const countIn = (app: OverviewApp, topic: string) =>
    app.topics.find((t) => t.topic === topic)?.reviews ?? 0;
  const names = [...new Set(apps.flatMap((a) => a.topics.filter((t) => t.reviews > 0).map((t) => t.topic)))];
  return names
    .map((topic) => ({
      topic,
      own: shareOf(
        own.reduce((sum, a) => sum + countIn(a, topic), 0),
        ownTotal,
      ),
      competitors: rivals.map((a) => ({
        app: a.app,
        name: a.name,
        ...shareOf(countIn(a, topic), a.reviews),
      })),
    }))
    .sort((a, b) => b.own.reviews - a.own.reviews || a.topic.localeCompare(b.topic));
}

/** The overview of `handles` (the config's apps, or the one asked for) over the period. */
export function topicsOverview(
  db: StoreDb,
  config: Config,
  period: TopicPeriod,
  handles: readonly string[] = config.apps.map((a) => a.handle),
): TopicsOverview {
  const configured = new Map(config.apps.map((a) => [a.handle, a]));
  const apps = handles.map((handle): OverviewApp => {
    const app = configured.get(handle);
    return {
      ...appTopics(db, handle, period),
      name: app?.name ?? handle,
      role: app?.role === 'competitor' ? 'competitor' : 'own',
    };
  });
  return { from: period.from, to: period.to, apps, comparisons: compare(apps) };
}

/** "8%": a share as a reader says it. */
export function percentOf(share: number): string {
  const pct = share * 100;
  return pct > 0 && pct < 1 ? '<1%' : `${Math.round(pct)}%`;
}

/** "Rival Bundles'", "Acme's". */
function possessive(name: string): string {
  return name.endsWith('s') ? `${name}'` : `${name}'s`;
}

/** "billing: 8% of your reviews, 22% of Rival Bundles'". */
export function comparisonText(comparison: TopicComparison): string {
  const rivals = comparison.competitors.map((c) => `${percentOf(c.share)} of ${possessive(c.name)}`);
  return `${comparison.topic}: ${percentOf(comparison.own.share)} of your reviews, ${rivals.join(', ')}`;
}

/** The overview as JSON: dates as ISO strings, shares rounded to 4 places. */
export function overviewJson(overview: TopicsOverview) {
  const round = (n: number) => Math.round(n * 10_000) / 10_000;
  return {
    from: overview.from.toISOString(),
    to: overview.to.toISOString(),
    apps: overview.apps.map((a) => ({
      app: a.app,
      name: a.name,
      role: a.role,
      reviews: a.reviews,
      topics: a.topics.map((t) => ({
        topic: t.topic,
        reviews: t.reviews,
        share: round(t.share),
        averageStars: t.averageStars,
        trend: t.trend.direction,
        ratio: t.trend.ratio === undefined ? null : round(t.trend.ratio),
        baselineShare: round(t.trend.baselineShare),
        trendText: t.trendText ?? null,
      })),
    })),
    comparisons: overview.comparisons.map((c) => ({
      topic: c.topic,
      own: { reviews: c.own.reviews, share: round(c.own.share) },
      competitors: c.competitors.map((r) => ({
        app: r.app,
        name: r.name,
        reviews: r.reviews,
        share: round(r.share),
      })),
      text: comparisonText(c),
    })),
  };
}
