/**
 * The topic-spike rule: a topic or phrase rising sharply in an app's low reviews within a day, against
 * the app's own baseline. Pure: the caller passes the app's low reviews of the window, its baseline
 * counts and the spikes that already fired; it stores what fires in the same transaction as the alert
 * (docs/topics.md, "Topic spikes", says why each threshold is where it is and how a spike stays one
 * alert).
 */
import {
  DEFAULT_PHRASE_RULE,
  frequentPhrases,
  type PhraseCounts,
  type PhraseQuote,
  type PhraseReview,
  type PhraseRule,
  phraseCounts,
  phrasesOf,
  quotesOf,
  withoutOverlaps,
} from './phrases.js';
import { poissonUpperTail } from './stats.js';

export interface SpikeReview extends PhraseReview {
  at: Date;
  /** Its topics' names (`topicsOf`). */
  topics: readonly string[];
}

/** What the app's low reviews were like before the window. */
export interface SpikeBaseline {
  /** Length of the baseline in days. */
  days: number;
  topicCounts: ReadonlyMap<string, number>;
  phrases: PhraseCounts;
}

export interface SpikeRule {
  windowMs: number;
  baselineDays: number;
  /** At least this many low reviews of the window about it... */
  minCount: number;
  /** ...by this many reviewers... */
  minReviewers: number;
  /** ...this many times the baseline's rate... */
  minRatio: number;
  /** ...and this unlikely under a Poisson at the baseline's rate. */
  alpha: number;
  /** The lowest daily rate a baseline is taken to have: a topic never seen is not infinitely rare. */
  floorPerDay: number;
  /** A key that fired does not fire again within this. */
  cooldownMs: number;
  /** A phrase whose reviews are this share of a topic spike's is told with it, not on its own. */
  phraseOverlap: number;
  phrase: PhraseRule;
}

const HOUR = 3_600_000;

/** Tuned with bench/topics.ts (bench/README.md#topics). */
export const DEFAULT_SPIKE_RULE: SpikeRule = Object.freeze({
  windowMs: 24 * HOUR,
  baselineDays: 28,
  minCount: 5,
  minReviewers: 3,
  minRatio: 3,
  alpha: 0.001,
  floorPerDay: 0.2,
  cooldownMs: 72 * HOUR,
  phraseOverlap: 0.8,
  phrase: DEFAULT_PHRASE_RULE,
});

/** A spike that fired: its key (`topic:billing`, `phrase:dark mode`) and when. */
export interface FiredSpike {
  key: string;
  firedAt: Date;
}

export interface TopicSpike {
  app: string;
  kind: 'topic' | 'phrase';
  /** `topic:NAME` or `phrase:TEXT`: what `FiredSpike.key` holds once stored. */
  key: string;
  /** The topic's name or the phrase. */
  name: string;
  count: number;
  reviewers: number;
  /** Low reviews about it in a window-long stretch of the baseline, on average. */
  expected: number;
  pValue: number;
  reviewIds: string[];
  quotes: PhraseQuote[];
  /** For a topic spike, the phrases its reviews share ("5 of 6 about integrations: 'klaviyo'"). */
  phrases: string[];
  /** When the first review of the spike was written. */
  since: Date;
  /**
   * Stable for one spike across a retried poll: app, key and the first review's time. The alerts
   * table's unique dedupe key refuses a second copy.
   */
  dedupeKey: string;
}

export interface SpikeInput {
  app: string;
  now: Date;
  /** The app's low reviews written within the window before `now`. */
  recent: readonly SpikeReview[];
  baseline: SpikeBaseline;
  fired: readonly FiredSpike[];
}

/** Baseline counts from the app's low reviews of the `days` before the window. */
export function spikeBaseline(
  reviews: Iterable<{ content: string; topics: readonly string[] }>,
  days: number,
): SpikeBaseline {
  const topicCounts = new Map<string, number>();
  const contents: string[] = [];
  for (const review of reviews) {
    contents.push(review.content);
    for (const topic of new Set(review.topics)) topicCounts.set(topic, (topicCounts.get(topic) ?? 0) + 1);
  }
  return { days, topicCounts, phrases: phraseCounts(contents) };
}

interface Candidate {
  kind: 'topic' | 'phrase';
  name: string;
  reviews: SpikeReview[];
  baselineCount: number;
}

function candidatesOf(input: SpikeInput, rule: SpikeRule): Candidate[] {
  const byTopic = new Map<string, SpikeReview[]>();
  for (const review of input.recent) {
    for (const topic of new Set(review.topics)) {
      const list = byTopic.get(topic);
      if (list === undefined) byTopic.set(topic, [review]);
      else list.push(review);
    }
  }
  const topics: Candidate[] = [...byTopic].map(([name, reviews]) => ({
    kind: 'topic',
    name,
    reviews,
    baselineCount: input.baseline.topicCounts.get(name) ?? 0,
  }));
  const phraseRule = { ...rule.phrase, minReviews: rule.minCount, minReviewers: rule.minReviewers };
  const phrases: Candidate[] = frequentPhrases(input.recent, phraseRule).map((c) => ({
    kind: 'phrase',
    name: c.phrase,
    reviews: c.reviews as SpikeReview[],
    baselineCount: input.baseline.phrases.counts.get(c.phrase) ?? 0,
  }));
  return [...topics, ...phrases];
}

function spikeOf(input: SpikeInput, c: Candidate, rule: SpikeRule): TopicSpike | undefined {
  const count = c.reviews.length;
  const reviewers = new Set(c.reviews.map((r) => r.reviewer)).size;
  if (count < rule.minCount || reviewers < rule.minReviewers) return undefined;
  const windowDays = rule.windowMs / (24 * HOUR);
  const perDay = Math.max(c.baselineCount / Math.max(input.baseline.days, 1), rule.floorPerDay);
  const expected = perDay * windowDays;
  if (count < rule.minRatio * expected) return undefined;
  const pValue = poissonUpperTail(count, expected);
  if (pValue >= rule.alpha) return undefined;
  const key = `${c.kind}:${c.name}`;
  const sorted = [...c.reviews].sort((a, b) => a.at.getTime() - b.at.getTime() || a.id.localeCompare(b.id));
  const since = (sorted[0] as SpikeReview).at;
  return {
    app: input.app,
    kind: c.kind,
    key,
    name: c.name,
    count,
    reviewers,
    expected: Math.round(expected * 100) / 100,
    pValue,
    reviewIds: sorted.map((r) => r.id),
    quotes: quotesOf(sorted, c.kind === 'phrase' ? c.name : '', rule.phrase),
    phrases: [],
    since,
    dedupeKey: `topic-spike:${input.app}:${key}:${since.toISOString()}`,
  };
}

function cooling(input: SpikeInput, key: string, rule: SpikeRule): boolean {
  return input.fired.some(
    (f) => f.key === key && input.now.getTime() - f.firedAt.getTime() < rule.cooldownMs,
  );
}

/**
 * The spikes to alert on now, topics first. A phrase whose reviews mostly belong to a topic spike is
 * named in it rather than alerting alone; of overlapping phrases ("dark", "dark mode") one stays. A
 * key that fired within the cooldown stays silent, and so do the phrases of its reviews: the same wave
 * is never told twice.
 */
export function detectSpikes(input: SpikeInput, rule: SpikeRule = DEFAULT_SPIKE_RULE): TopicSpike[] {
  const spikes = candidatesOf(input, rule)
    .map((c) => spikeOf(input, c, rule))
    .filter((s) => s !== undefined);
  const topics = spikes.filter((s) => s.kind === 'topic').sort((a, b) => a.pValue - b.pValue);
  const phrases = withoutOverlaps(
    spikes
      .filter((s) => s.kind === 'phrase')
      .sort((a, b) => a.pValue - b.pValue || b.count - a.count)
      .map((s) => ({ ...s, phrase: s.name, reviews: s.count })),
  );
  const alone: TopicSpike[] = [];
  for (const { phrase: _phrase, reviews: _reviews, ...spike } of phrases) {
    const ids = new Set(spike.reviewIds);
    const host = topics.find(
      (t) => t.reviewIds.filter((id) => ids.has(id)).length >= rule.phraseOverlap * spike.count,
    );
    if (host !== undefined) host.phrases.push(spike.name);
    else alone.push(spike);
  }
  // A topic spike's quotes show what its reviews share, when a phrase says it.
  const byId = new Map(input.recent.map((r) => [r.id, r]));
  for (const spike of topics) {
    const phrase = spike.phrases[0];
    if (phrase === undefined) continue;
    const holding = spike.reviewIds.map((id) => byId.get(id) as SpikeReview);
    spike.quotes = quotesOf(
      holding.filter((r) => phrasesOf(r.content).has(phrase)),
      phrase,
      rule.phrase,
    );
  }
  return [...topics, ...alone].filter((spike) => !cooling(input, spike.key, rule));
}
