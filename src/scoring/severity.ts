import { type ReviewTopic, reviewTopicsOf } from '../topics/index.js';
import { starsLabel } from '../util/plural.js';
import type { Priority, Severity } from './priority.js';
import type { ScoringRules } from './rules.js';
import { describeTenure, parseTimeUsingApp } from './tenure.js';

export interface ScoreInput {
  rating: number;
  content: string;
  /** As the API gives it: "2 months using the app", or ''. */
  timeUsingApp: string;
  /** Set when an edit changed the rating: a drop from here is worse than the same rating new. */
  previousRating?: number;
  /**
   * The review's stored topics and the taxonomy version that computed them, when the caller has the row:
   * used instead of matching the text when that version is the rules' (topics/review-topics.ts), which
   * gives the same topics without the matcher's cost (bench/README.md, "Severity from stored topics").
   */
  topics?: readonly ReviewTopic[] | undefined;
  topicsVersion?: string | null | undefined;
}

/** The rating carries most of the score: a 1-star review is medium on its own. */
export const RATING_POINTS: Readonly<Record<number, number>> = Object.freeze({
  1: 50,
  2: 35,
  3: 20,
  4: 5,
  5: 0,
});
export const DETAILED_REVIEW = { minCharacters: 300, points: 5 } as const;
export const LONG_TIME_USER = [
  { minDays: 365, points: 10 },
  { minDays: 90, points: 5 },
] as const;
export const RERATED_DOWN_POINTS = 10;
/** Matched words listed per reason; the rest are summarised so a reason stays one readable line. */
const MAX_WORDS_LISTED = 5;

interface Factor {
  points: number;
  reason: string;
}

function ratingFactor(rating: number): Factor {
  return { points: RATING_POINTS[rating] ?? 0, reason: starsLabel(rating) };
}

/** Evidence as a reason lists it: lowercase, straight apostrophes, each once. */
function reasonWords(words: readonly string[]): string[] {
  return [...new Set(words.map((w) => w.toLowerCase().replace(/[\u2018\u2019\u02bc]/g, "'")))];
}

/**
 * One factor per topic of the review with a weight: "mentions billing: charged twice, refund". Its weight is
 * found among the taxonomy's few topics, not through a map made for each review scored.
 */
function topicFactors(input: ScoreInput, rules: ScoringRules): Factor[] {
  const factors: Factor[] = [];
  const { topics } = rules.topics;
  for (const topic of reviewTopicsOf(input, rules.topics)) {
    const weight = topics.find((t) => t.name === topic.name)?.weight ?? 0;
    if (weight <= 0) continue;
    const words = reasonWords(topic.words);
    const listed = words.slice(0, MAX_WORDS_LISTED).join(', ');
    const more = words.length > MAX_WORDS_LISTED ? ` and ${words.length - MAX_WORDS_LISTED} more` : '';
    factors.push({ points: weight, reason: `mentions ${topic.name}: ${listed}${more}` });
  }
  return factors;
}

function lengthFactor(content: string): Factor | undefined {
  // Code points, not UTF-16 units: an emoji is one character to the reader.
  const characters = [...content.trim()].length;
  if (characters <= DETAILED_REVIEW.minCharacters) return undefined;
  return { points: DETAILED_REVIEW.points, reason: `detailed review (${characters} characters)` };
}

function tenureFactor(timeUsingApp: string): Factor | undefined {
  const days = parseTimeUsingApp(timeUsingApp);
  if (days === undefined) return undefined;
  const tier = LONG_TIME_USER.find((t) => days >= t.minDays);
  if (tier === undefined) return undefined;
  return { points: tier.points, reason: `long-time user: ${describeTenure(days)} using the app` };
}

function reratedFactor(rating: number, previousRating: number | undefined): Factor | undefined {
  if (previousRating === undefined || !(previousRating > rating)) return undefined;
  return { points: RERATED_DOWN_POINTS, reason: `rerated from ${previousRating} to ${rating}` };
}

export function priorityOf(score: number, priorities: ScoringRules['priorities']): Priority {
  if (score >= priorities.critical) return 'critical';
  if (score >= priorities.high) return 'high';
  if (score >= priorities.medium) return 'medium';
  return 'low';
}

/**
 * How urgent a review is, 0-100, with a reason per factor that contributed, so a support agent can see
 * why it was ranked where it is. Deterministic: the same review and rules always give the same result.
 */
export function scoreReview(input: ScoreInput, rules: ScoringRules): Severity {
  const rating = ratingFactor(input.rating);
  const others = [
    ...topicFactors(input, rules),
    reratedFactor(input.rating, input.previousRating),
    tenureFactor(input.timeUsingApp),
    lengthFactor(input.content),
  ].filter((f) => f !== undefined);
  // Array.prototype.sort is stable: equal weights keep the order above (keyword groups as configured).
  others.sort((a, b) => b.points - a.points);
  const total = [rating, ...others].reduce((sum, f) => sum + f.points, 0);
  const score = Math.round(Math.min(100, Math.max(0, total)));
  return {
    score,
    priority: priorityOf(score, rules.priorities),
    reasons: [rating.reason, ...others.map((f) => f.reason)],
  };
}
