/**
 * Gathers one period's digest from the store: the reads in queries.ts, the arithmetic in summarize.ts.
 */
import type { Config } from '../config/index.js';
import { DEFAULT_SCORING_RULES, mergeScoringRules, type ScoringRules } from '../scoring/index.js';
import type { Db } from '../store/db.js';
import { coverageOf, watchedSince } from './coverage.js';
import { collectMarket } from './market.js';
import { type DigestPeriod, periodWeeks, shiftWeeks, trailingWeeks } from './period.js';
import {
  acknowledgements,
  appTitles,
  failedDeliveries,
  longestFiveStar,
  openReviewsByPriority,
  ratingBefore,
  ratingCounts,
  ratingDrops,
  reviewDates,
  reviewsAtMost,
  windowOf,
} from './queries.js';
import { countingTime, type DatedReview } from './review-time.js';
import {
  comparisonRows,
  digestTotals,
  emptyDistribution,
  headlineApps,
  isStarRating,
  ownFirst,
  pickBest,
  rankWorst,
  ratingHistory,
  reviewStats,
} from './summarize.js';
import { collectTopics } from './topics.js';
import { digestTriage } from './triage.js';
import type { AppRole, DigestApp, DigestData, Distribution, TrendWeek } from './types.js';
import { MAX_BEST, MAX_FAILED_LISTED, MAX_WORST, TREND_WEEKS } from './types.js';

/**
 * The worst reviews are the lowest-rated, low or not: a week with one 1-star review also shows its
 * 3- and 4-star ones, where complaints hide behind a decent rating. A 5-star review never counts as bad.
 */
const WORST_CANDIDATE_MAX = 4;

export interface DigestAppInput {
  handle: string;
  /** The config's name for the app, which wins over the listing's title. */
  name?: string;
  role: AppRole;
}

export interface CollectInput {
  apps: DigestAppInput[];
  period: DigestPeriod;
  /** alerts.lowRating.maxRating */
  maxRating: number;
  scoring: ScoringRules;
  now: Date;
  /** The tracked categories (config `categories`), for the Market section; none leaves it out. */
  categories?: readonly string[];
}

/** What the config says a digest covers: its apps, the low-rating cut-off and the scoring rules. */
export function digestInputOf(config: Config, period: DigestPeriod, now: Date): CollectInput {
  return {
    apps: config.apps.map((app) => ({ handle: app.handle, name: app.name, role: app.role })),
    period,
    maxRating: config.alerts.lowRating.maxRating,
    scoring: mergeScoringRules(DEFAULT_SCORING_RULES, config.alerts.scoring, config.topics),
    now,
    categories: config.categories.map((c) => c.handle),
  };
}

function distributions(
  rows: Array<{ handle: string; rating: number; n: number }>,
): Map<string, Distribution> {
  const byApp = new Map<string, Distribution>();
  for (const row of rows) {
    // The API's ratings are 1..5; anything else cannot be placed on a bar and is left out.
    if (!isStarRating(row.rating)) continue;
    const distribution = byApp.get(row.handle) ?? emptyDistribution();
    distribution[row.rating] += row.n;
    byApp.set(row.handle, distribution);
  }
  return byApp;
}

/** Reviews per app and trend week; the weeks are contiguous, oldest first. */
function weeklyCounts(
  dated: Array<DatedReview & { handle: string }>,
  weeks: DigestPeriod[],
  timezone: string,
): Map<string, number[]> {
  const byApp = new Map<string, number[]>();
  for (const review of dated) {
    const { handle } = review;
    const at = countingTime(review, timezone).getTime();
    const i = weeks.findIndex((w) => at >= w.start.getTime() && at < w.end.getTime());
    if (i < 0) continue;
    const counts = byApp.get(handle) ?? weeks.map(() => 0);
    counts[i] = (counts[i] ?? 0) + 1;
    byApp.set(handle, counts);
  }
  return byApp;
}

/**
 * One consistent read (a single SQLite read transaction, so a poll committing meanwhile cannot make the
 * counts disagree with the lists) of everything the digest of `input.period` shows.
 */
export function collectDigest(db: Db, input: CollectInput): DigestData {
  const { period, maxRating } = input;
  const configured = ownFirst(input.apps);
  const handles = configured.map((a) => a.handle);
  // Triage is the team's work on its own apps, as the headline counts them.
  const triaged = headlineApps(configured).map((a) => a.handle);
  const weeks = trailingWeeks(period, TREND_WEEKS);
  const periodWindow = windowOf(period, period.timezone);
  const trendWindow = windowOf({ start: weeks[0]?.start ?? period.start, end: period.end }, period.timezone);
  const lastWeekEnd = shiftWeeks(period.end, -1, period.timezone);
  const fourWeeksAgoEnd = shiftWeeks(period.end, -4, period.timezone);

  return db.transaction(
    (tx) => {
      const titles = appTitles(tx, handles);
      const stats = distributions(ratingCounts(tx, handles, periodWindow));
      const weekly = weeklyCounts(reviewDates(tx, handles, trendWindow), weeks, period.timezone);
      const worstCandidates = reviewsAtMost(tx, handles, periodWindow, WORST_CANDIDATE_MAX);
      const failed = failedDeliveries(tx, handles, periodWindow);
      const drops = ratingDrops(tx, handles, periodWindow);

      const apps: DigestApp[] = configured.map((app) => {
        const counts = weekly.get(app.handle);
        // The trend's week ends include the period's end, a week and four weeks before: read each once.
        const ratings = new Map<number, ReturnType<typeof ratingBefore>>();
        const ratingAt = (end: Date) => {
          let rating = ratings.get(end.getTime());
          if (rating === undefined) {
            rating = ratingBefore(tx, app.handle, end);
            ratings.set(end.getTime(), rating);
          }
          return rating;
        };
        const trend: TrendWeek[] = weeks.map((week, i) => ({
          start: week.start,
          end: week.end,
          rating: ratingAt(week.end)?.average ?? null,
          reviews: counts?.[i] ?? 0,
        }));
        const failedAlerts = failed.get(app.handle) ?? [];
        return {
          handle: app.handle,
          title: app.name?.trim() || titles.get(app.handle)?.trim() || app.handle,
          role: app.role,
          reviews: reviewStats(stats.get(app.handle) ?? emptyDistribution(), maxRating),
          rating: ratingHistory(ratingAt(period.end), ratingAt(lastWeekEnd), ratingAt(fourWeeksAgoEnd)),
          trend,
          worst: rankWorst(worstCandidates.get(app.handle) ?? [], input.scoring, MAX_WORST),
          best: pickBest(longestFiveStar(tx, app.handle, periodWindow, MAX_BEST), MAX_BEST),
          failedAlerts: failedAlerts.slice(0, MAX_FAILED_LISTED),
          failedAlertsTotal: failedAlerts.length,
          drops: drops.get(app.handle) ?? [],
        };
      });

      return {
        period,
        coverage: coverageOf(period, watchedSince(tx, handles)),
        generatedAt: input.now,
        maxRating,
        apps,
        comparison: apps.some((a) => a.role === 'competitor')
          ? comparisonRows(apps, periodWeeks(period))
          : null,
        totals: digestTotals(apps),
        triage: digestTriage(openReviewsByPriority(tx, triaged), acknowledgements(tx, triaged, period)),
        market: collectMarket(tx, { categories: input.categories ?? [], apps, period }),
        topics: collectTopics(tx, { apps, period, maxRating }),
        quiet: apps.every((a) => a.reviews.count === 0),
      };
    },
    { behavior: 'deferred' },
  );
}
