/**
 * A realistic digest without a database: two own apps and a competitor over 16–22 November 2026 in
 * Berlin. For documentation screenshots and for trying the renderers; the numbers agree with each other
 * because they go through the same functions collect.ts uses.
 */
import { DEFAULT_SCORING_RULES } from '../scoring/index.js';
import { previousWeek, trailingWeeks } from './period.js';
import { comparisonRows, digestTotals, rankWorst, ratingHistory, reviewStats } from './summarize.js';
import type { DigestApp, DigestData, DigestReview, Distribution, FailedAlert, TrendWeek } from './types.js';
import { TREND_WEEKS } from './types.js';

const NOW = new Date('2026-11-23T08:00:00Z');
const TIMEZONE = 'Europe/Berlin';

function review(
  id: string,
  day: number,
  rating: number,
  reviewer: string,
  location: string,
  timeUsingApp: string,
  content: string,
  previousRating?: number,
): DigestReview {
  const date = `2026-11-${String(day).padStart(2, '0')}T00:00:00+00:00`;
  return {
    reviewId: id,
    reviewer,
    location,
    rating,
    content,
    createdDate: date,
    timeUsingApp,
    at: new Date(date),
    ...(previousRating === undefined ? {} : { previousRating }),
  };
}

function trend(weeks: TrendWeek[], ratings: Array<number | null>, reviews: number[]): TrendWeek[] {
  return weeks.map((w, i) => ({
    start: w.start,
    end: w.end,
    rating: ratings[i] ?? null,
    reviews: reviews[i] ?? 0,
  }));
}

function at(iso: string): Date {
  return new Date(iso);
}

export function sampleDigestData(): DigestData {
  const period = previousWeek(NOW, TIMEZONE);
  const weeks = trailingWeeks(period, TREND_WEEKS).map((w) => ({
    start: w.start,
    end: w.end,
    rating: null,
    reviews: 0,
  }));
  const maxRating = 3;

  const bundleLow = [
    review(
      '8812301',
      18,
      1,
      'Maple & Oak Goods',
      'Canada',
      'Over 1 year using the app',
      'After the update on Tuesday our bundles stopped showing at checkout and customers were charged full price for every item. Two days of orders affected, we had to refund 37 of them by hand. Support has not replied to three emails. Looking at alternatives now.',
    ),
    review(
      '8812377',
      19,
      1,
      'Nordlicht Tees',
      'Germany',
      '5 months using the app',
      'Bundle prices are wrong since the last update. Crashes the product page on mobile.',
    ),
    review(
      '8812402',
      20,
      1,
      'sunny-side-shop',
      'United States',
      '2 weeks using the app',
      'Does not work with my theme.',
    ),
    review(
      '8812455',
      21,
      1,
      'Atelier Rose',
      'France',
      'about 2 years using the app',
      'Used to love it. The new version broke our discount stacking and billing doubled this month.',
      4,
    ),
    review(
      '8812490',
      21,
      2,
      'The Tackle Box',
      'United Kingdom',
      '3 months using the app',
      'Setup was slow and the bundle editor freezes with more than 20 products.',
    ),
    review(
      '8812511',
      22,
      2,
      'Green Leaf Co',
      'Australia',
      '1 month using the app',
      'Okay app but support is slow.',
    ),
    review(
      '8812530',
      17,
      3,
      'Casa Bonita',
      'Spain',
      '8 months using the app',
      'Does the job, pricey for what it is.',
    ),
    review('8812544', 16, 3, 'Pixel Petals', 'Netherlands', '', 'Fine. Would like more layout options.'),
  ];
  const bundleBest = [
    review(
      '8812600',
      17,
      5,
      'Wild Coast Surf',
      'Portugal',
      'Over 1 year using the app',
      'We sell surf kits as bundles and this app made our average order value go up by a third. The mix-and-match builder is easy for customers, and when we found an edge case with our currency converter the team fixed it within a day. Cannot recommend it enough.',
    ),
    review(
      '8812633',
      19,
      5,
      'Bean There Coffee',
      'United States',
      '7 months using the app',
      'Subscription boxes plus bundles in one place. Setup took ten minutes and it just works.',
    ),
    review('8812650', 20, 5, 'Hygge Home', 'Denmark', '4 months using the app', 'Great support, great app.'),
  ];
  const bundleFailed: FailedAlert[] = [
    {
      kind: 'review',
      priority: 'critical',
      channel: 'support-slack',
      reason: 'Slack answered 404 no_service: the webhook was removed',
      about: '1-star review by Maple & Oak Goods',
      alertAt: at('2026-11-18T09:12:00Z'),
      inPeriod: true,
    },
    {
      kind: 'rating-drop',
      priority: 'high',
      channel: 'support-slack',
      reason: 'Slack answered 404 no_service: the webhook was removed',
      about: '4.66 → 4.60',
      alertAt: at('2026-11-21T15:40:00Z'),
      inPeriod: true,
    },
  ];
  const bundleDistribution: Distribution = { 1: 4, 2: 2, 3: 2, 4: 6, 5: 28 };
  const bundle: DigestApp = {
    handle: 'bundle-builder',
    title: 'Bundle Builder',
    role: 'own',
    reviews: reviewStats(bundleDistribution, maxRating),
    rating: ratingHistory(
      { average: 4.58, count: 1204, at: at('2026-11-22T22:45:00Z') },
      { average: 4.66, count: 1162, at: at('2026-11-15T22:45:00Z') },
      { average: 4.71, count: 1071, at: at('2026-10-25T22:45:00Z') },
    ),
    trend: trend(weeks, [4.72, 4.72, 4.71, 4.71, 4.7, 4.68, 4.66, 4.58], [31, 35, 29, 38, 33, 36, 40, 42]),
    worst: rankWorst(bundleLow, DEFAULT_SCORING_RULES),
    best: bundleBest,
    failedAlerts: bundleFailed,
    failedAlertsTotal: bundleFailed.length,
  };

  const stock: DigestApp = {
    handle: 'stock-sync',
    title: 'Stock Sync',
    role: 'own',
    reviews: reviewStats({ 1: 1, 2: 0, 3: 0, 4: 2, 5: 6 }, maxRating),
    rating: ratingHistory(
      { average: 4.41, count: 388, at: at('2026-11-22T22:50:00Z') },
      { average: 4.4, count: 379, at: at('2026-11-15T22:50:00Z') },
      { average: 4.37, count: 351, at: at('2026-10-25T22:50:00Z') },
    ),
    trend: trend(weeks, [4.35, 4.36, 4.36, 4.37, 4.38, 4.39, 4.4, 4.41], [6, 8, 5, 9, 7, 8, 9, 9]),
    worst: rankWorst(
      [
        review(
          '5521907',
          20,
          1,
          'Bits & Bolts Hardware',
          'Ireland',
          '9 months using the app',
          'Inventory got wiped for 40 variants during the nightly sync. Had to restore from a CSV.',
        ),
      ],
      DEFAULT_SCORING_RULES,
    ),
    best: [
      review(
        '5521950',
        18,
        5,
        'Paper Crane Studio',
        'Japan',
        'Over 1 year using the app',
        'Keeps three warehouses and two marketplaces in sync without us thinking about it.',
      ),
    ],
    failedAlerts: [],
    failedAlertsTotal: 0,
  };

  const rival: DigestApp = {
    handle: 'shopbundles-pro',
    title: 'ShopBundles Pro',
    role: 'competitor',
    reviews: reviewStats({ 1: 2, 2: 1, 3: 1, 4: 2, 5: 9 }, maxRating),
    rating: ratingHistory(
      { average: 4.35, count: 2310, at: at('2026-11-22T22:55:00Z') },
      { average: 4.37, count: 2296, at: at('2026-11-15T22:55:00Z') },
      { average: 4.36, count: 2251, at: at('2026-10-25T22:55:00Z') },
    ),
    trend: trend(weeks, [4.37, 4.36, 4.36, 4.36, 4.37, 4.38, 4.37, 4.35], [12, 14, 11, 16, 13, 15, 14, 15]),
    worst: rankWorst(
      [
        review(
          '9930411',
          19,
          1,
          'Lumen Candles',
          'Sweden',
          '2 years using the app',
          'Charged twice for the annual plan and no refund after two weeks.',
        ),
        review('9930470', 21, 1, 'Koala Kids', 'Australia', '3 weeks using the app', 'Broke my cart page.'),
      ],
      DEFAULT_SCORING_RULES,
    ),
    best: [],
    failedAlerts: [],
    failedAlertsTotal: 0,
  };

  const apps = [bundle, stock, rival];
  return {
    period,
    generatedAt: NOW,
    maxRating,
    apps,
    comparison: comparisonRows(apps, 1),
    totals: digestTotals(apps),
    quiet: false,
  };
}
