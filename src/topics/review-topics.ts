/**
 * The topics of a stored review as its readers take them (the alerts, the severity score): its stored
 * topics when the config's taxonomy computed them (store/schema.ts, `topics_version`), else its text matched
 * now (a review stored before the backfill reached it, or one whose stored topics are not at hand). One rule,
 * so an alert and a score never disagree on whether a row's topics are current.
 */
import type { Taxonomy } from './compile.js';
import { type ReviewTopic, topicsOf } from './match.js';

/** A review with, when the caller has them, its stored topics and the taxonomy version that computed them. */
export interface TopicSource<T extends { name: string } = ReviewTopic> {
  content: string;
  topics?: readonly T[] | undefined;
  topicsVersion?: string | null | undefined;
}

/** Its stored topics when `taxonomy` computed them; undefined when absent or stale. */
function currentStored<T extends { name: string }>(
  review: TopicSource<T>,
  taxonomy: Taxonomy,
): readonly T[] | undefined {
  return review.topics !== undefined && review.topicsVersion === taxonomy.version ? review.topics : undefined;
}

/**
 * The review's topics with their words, as `topicsOf` gives them for its text under `taxonomy`: read from
 * the stored ones when current. The caller must not change them (they may be the row's own).
 */
export function reviewTopicsOf(review: TopicSource, taxonomy: Taxonomy): readonly ReviewTopic[] {
  return currentStored(review, taxonomy) ?? topicsOf(review.content, taxonomy);
}

/** The names of the review's topics, in the taxonomy's order. */
export function topicNamesOf(review: TopicSource<{ name: string }>, taxonomy: Taxonomy): string[] {
  return (currentStored(review, taxonomy) ?? topicsOf(review.content, taxonomy)).map((t) => t.name);
}
