/**
 * The topic-spike alert of a poll: the engine's rule (topics/spike.ts) over the app's low reviews of the
 * last day against its own four weeks before, told with quotes and what changed around it. Runs in the
 * poll's transaction, like the other alerts: a retried poll finds the same spike, whose dedupe key the
 * alerts table refuses twice, and a spike that fired keeps its key quiet for the rule's cooldown.
 */

import { describeChange } from '../market/change-text.js';
import type { ListingChange } from '../market/index.js';
import type { Db, StoreDb } from '../store/db.js';
import { countLowReviewsSince } from '../store/history.js';
import {
  alertedListingChangesSince,
  alertsOfKindsSince,
  lowReviewsAround,
  type SpikeSourceReview,
} from '../store/topic-spikes.js';
import type { Taxonomy } from '../topics/index.js';
import {
  DEFAULT_SPIKE_RULE,
  detectSpikes,
  type SpikeRule,
  spikeBaseline,
  type TopicSpike,
  topicNamesOf,
} from '../topics/index.js';
import type {
  AppRef,
  Priority,
  RatingDropAlert,
  SpikeContext,
  SpikeQuote,
  TopicSpikeAlert,
} from './types.js';

const DAY = 24 * 3_600_000;
/** What changed this long before a spike's first review is told with it: a price change last week. */
const CONTEXT_DAYS = 7;
const MAX_CONTEXT = 6;

export interface SpikeCheck {
  handle: string;
  app: () => AppRef;
  at: Date;
  maxRating: number;
  taxonomy: Taxonomy;
  /** Row ids of the low reviews this poll stored: a spike must hold one (the window sliding is no news). */
  fresh: ReadonlySet<number>;
  /** The app's competitors, when it is an own app: their moves are told with its spike. */
  competitors: readonly string[];
  /** Names of the competitors, by handle. */
  names: ReadonlyMap<string, string>;
  rule?: SpikeRule;
}

export interface RaisedSpike {
  alert: TopicSpikeAlert;
  dedupeKey: string;
  /** Row ids of its reviews. */
  rowIds: number[];
}

/** The spikes this poll completes, each with its quotes and context; none on a quiet poll. */
export function topicSpikeAlerts(db: StoreDb, check: SpikeCheck): RaisedSpike[] {
  const rule = check.rule ?? DEFAULT_SPIKE_RULE;
  const windowStart = check.at.getTime() - rule.windowMs;
  // A spike holds at least `minCount` of the window's low reviews, history aside: a poll's new low review
  // is mostly one of fewer, and counting them (an index's range, `minCount` rows at most) spares the
  // month of reviews read and weighed below.
  const inWindow = countLowReviewsSince(
    db,
    check.handle,
    new Date(windowStart),
    check.maxRating,
    rule.minCount,
  );
  if (inWindow < rule.minCount) return [];
  const since = new Date(windowStart - rule.baselineDays * DAY);
  const rows = lowReviewsAround(db, check.handle, since, check.maxRating);
  const withTopics = rows.map((r) => ({ ...r, topics: topicNamesOf(r, check.taxonomy) }));
  // History imported by the baseline is not news: it counts in the baseline only.
  const recent = withTopics.filter((r) => r.at.getTime() >= windowStart && !r.fromBaseline);
  if (!recent.some((r) => check.fresh.has(r.id))) return [];
  const baseline = spikeBaseline(
    withTopics.filter((r) => r.at.getTime() < windowStart),
    rule.baselineDays,
  );
  const fired = alertsOfKindsSince(
    db,
    [check.handle],
    ['topic-spike'],
    new Date(check.at.getTime() - rule.cooldownMs),
  ).flatMap((row) =>
    keysOf(row.payload as Partial<TopicSpikeAlert>).map((key) => ({ key, firedAt: row.createdAt })),
  );
  const byRowId = new Map(rows.map((r) => [String(r.id), r]));
  const spikes = detectSpikes(
    {
      app: check.handle,
      now: check.at,
      recent: recent.map((r) => ({
        id: String(r.id),
        reviewer: r.reviewer,
        content: r.content,
        at: r.at,
        topics: r.topics,
      })),
      baseline,
      fired,
    },
    rule,
  ).filter((s) => s.reviewIds.some((id) => check.fresh.has(Number(id))));
  if (spikes.length === 0) return [];
  const waves = oneMessagePerWave(spikes, rule.phraseOverlap);
  const context = contextOf(db, check, new Date(spikes[0]?.since.getTime() ?? check.at.getTime()));
  return waves.map(({ spike, also }) => ({
    alert: alertOf(spike, also, check, rule, byRowId, context),
    dedupeKey: spike.dedupeKey,
    rowIds: spike.reviewIds.map(Number),
  }));
}

/**
 * The keys a stored spike told: its own, the topics told with it and its phrases. None for a payload the
 * retention prune emptied (store/retention.ts), or one an older version wrote without them.
 */
function keysOf(alert: Partial<TopicSpikeAlert>): string[] {
  if (alert.spike === undefined) return [];
  const { type, name, also, phrases } = alert.spike;
  return [
    `${type}:${name}`,
    ...(also ?? []).map((t) => `topic:${t}`),
    ...(phrases ?? []).map((p) => `phrase:${p}`),
  ];
}

/**
 * One wave, one message: a spike whose reviews are mostly (`overlap`) those of a stronger one found
 * with it ("bugs" inside a wave about a Klaviyo integration) is told in the stronger one's message, a
 * topic as `also`, a phrase among its phrases; its key is then cooling like the message's own.
 */
function oneMessagePerWave(spikes: readonly TopicSpike[], overlap: number) {
  const kept: Array<{ spike: TopicSpike; also: string[]; ids: Set<string> }> = [];
  for (const spike of spikes) {
    const host = kept.find(
      (k) => spike.reviewIds.filter((id) => k.ids.has(id)).length >= overlap * spike.reviewIds.length,
    );
    if (host === undefined)
      kept.push({
        spike: { ...spike, phrases: [...spike.phrases] },
        also: [],
        ids: new Set(spike.reviewIds),
      });
    else if (spike.kind === 'topic') host.also.push(spike.name);
    else if (!host.spike.phrases.includes(spike.name)) host.spike.phrases.push(spike.name);
  }
  return kept;
}

function alertOf(
  spike: TopicSpike,
  also: string[],
  check: SpikeCheck,
  rule: SpikeRule,
  rows: ReadonlyMap<string, SpikeSourceReview>,
  context: SpikeContext[],
): TopicSpikeAlert {
  const quotes: SpikeQuote[] = spike.quotes.flatMap((q) => {
    const row = rows.get(q.reviewId);
    return row ? [{ reviewId: row.reviewId, reviewer: row.reviewer, rating: row.rating, text: q.text }] : [];
  });
  // Twice what makes a spike, or a one-star wave, is as urgent as an incident at its worst.
  const priority: Priority = spike.count >= rule.minCount * 2 ? 'critical' : 'high';
  return {
    kind: 'topic-spike',
    app: check.app(),
    priority,
    spike: {
      type: spike.kind,
      name: spike.name,
      count: spike.count,
      reviewers: spike.reviewers,
      expected: spike.expected,
      windowHours: Math.round(rule.windowMs / 360_000) / 10,
      baselineDays: rule.baselineDays,
      phrases: spike.phrases,
      ...(also.length > 0 ? { also } : {}),
      since: spike.since.toISOString(),
    },
    quotes,
    context,
    reviewIds: spike.reviewIds.flatMap((id) => {
      const row = rows.get(id);
      return row ? [row.reviewId] : [];
    }),
  };
}

/**
 * What changed in the week before the spike and since: the app's listing changes that alerted and its
 * rating drops, and its competitors' listing changes and rating drops. Newest first, a handful.
 */
function contextOf(db: Db, check: SpikeCheck, spikeSince: Date): SpikeContext[] {
  const since = new Date(spikeSince.getTime() - CONTEXT_DAYS * DAY);
  const handles = [check.handle, ...check.competitors];
  const nameOf = (handle: string) =>
    handle === check.handle ? check.app().name : (check.names.get(handle) ?? handle);
  const whatOf = (handle: string): SpikeContext['what'] =>
    handle === check.handle ? 'listing' : 'competitor';
  const changes: SpikeContext[] = alertedListingChangesSince(db, handles, since).map((row) => ({
    what: whatOf(row.appHandle),
    app: nameOf(row.appHandle),
    at: row.at.toISOString(),
    text: describeChange(row.change as ListingChange),
  }));
  // A wave's own reviews pull the rating down poll after poll: one line per app, from first to last.
  const drops = new Map<string, SpikeContext & { first: number; last: number }>();
  for (const row of alertsOfKindsSince(db, handles, ['rating-drop'], since)) {
    const drop = row.payload as Partial<RatingDropAlert>;
    if (drop.from === undefined || drop.to === undefined) continue;
    const seen = drops.get(row.appHandle);
    // Newest first: the first row seen gives the latest level, the last one the level before them all.
    const first = drop.from.average;
    const last = seen?.last ?? drop.to.average;
    drops.set(row.appHandle, {
      what: row.appHandle === check.handle ? 'rating-drop' : 'competitor',
      app: nameOf(row.appHandle),
      at: seen?.at ?? row.createdAt.toISOString(),
      text: `fell from ${first.toFixed(2)} to ${last.toFixed(2)}`,
      first,
      last,
    });
  }
  const dropLines = [...drops.values()].map(({ first: _first, last: _last, ...line }) => line);
  return [...changes, ...dropLines].sort((a, b) => b.at.localeCompare(a.at)).slice(0, MAX_CONTEXT);
}
