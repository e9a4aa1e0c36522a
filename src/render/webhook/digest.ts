/**
 * The weekly digest as the webhook's `digest.weekly` data: the figures the Slack digest shows, as
 * fields. Dates are ISO 8601 strings.
 */
import type { DigestTopics } from '../../digest/topics.js';
import type { DigestApp, DigestData } from '../../digest/types.js';
import type { DigestRenderOptions } from '../digest/digest-wording.js';

const iso = (at: Date | null | undefined) => (at ? at.toISOString() : null);

function appOf(app: DigestApp) {
  const { current, changeVsLastWeek, changeVsFourWeeksAgo } = app.rating;
  return {
    handle: app.handle,
    name: app.title,
    role: app.role,
    reviews: { count: app.reviews.count, average: app.reviews.average, low: app.reviews.low },
    rating: {
      average: current?.average ?? null,
      count: current?.count ?? null,
      changeVsLastWeek,
      changeVsFourWeeksAgo,
    },
    worst: app.worst.map((r) => ({
      id: r.reviewId,
      rating: r.rating,
      reviewer: r.reviewer,
      content: r.content,
      at: r.at.toISOString(),
      priority: r.severity.priority,
    })),
    failedAlerts: app.failedAlertsTotal,
    // The period's rating drops: a competitor's, by default, are said nowhere else.
    drops: app.drops.map((d) => ({ from: d.from, to: d.to, at: d.at.toISOString() })),
  };
}

/** The section's fields; a trend with no baseline has a null ratio (new), not a missing one. */
function topicsData(topics: DigestTopics) {
  return {
    apps: topics.apps.map(({ shares: _shares, ...app }) => ({
      ...app,
      topics: app.topics.map((t) => ({ ...t, ratio: t.ratio ?? null })),
      phrases: app.phrases.map((p) => ({ ...p })),
    })),
    versus: topics.versus.map((v) => ({ topic: v.topic, apps: v.apps.map((a) => ({ ...a })) })),
  };
}

export function digestEventData(data: DigestData, options: DigestRenderOptions): Record<string, unknown> {
  const { period, coverage, totals, triage } = data;
  return {
    period: {
      start: period.start.toISOString(),
      end: period.end.toISOString(),
      label: period.label,
      timezone: period.timezone,
    },
    coverage:
      coverage.kind === 'full'
        ? { kind: 'full' }
        : coverage.kind === 'partial'
          ? { kind: 'partial', watchedSince: iso(coverage.watchedSince), days: coverage.days }
          : { kind: 'none', watchedSince: iso(coverage.watchedSince) },
    quiet: data.quiet,
    maxRating: data.maxRating,
    totals,
    triage: { ...triage, open: { ...triage.open } },
    apps: data.apps.map(appOf),
    // Dates become ISO strings, as everywhere in the payload.
    market: data.market === null ? null : JSON.parse(JSON.stringify(data.market)),
    topics: data.topics === null ? null : topicsData(data.topics),
    simulated: options.simulated === true,
  };
}
