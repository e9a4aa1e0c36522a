/**
 * The topic names of a review the alerts read: its stored topics when the config's taxonomy computed
 * them (store/schema.ts, `topics_version`), else its text matched now (a review stored before the
 * backfill reached it, or one being written in this poll's transaction).
 */
import { type Taxonomy, topicsOf } from '../topics/index.js';

export interface TopicSource {
  content: string;
  topics?: ReadonlyArray<{ name: string }>;
  topicsVersion?: string | null;
}

export function topicNamesOf(review: TopicSource, taxonomy: Taxonomy): string[] {
  if (review.topics && review.topicsVersion === taxonomy.version) return review.topics.map((t) => t.name);
  return topicsOf(review.content, taxonomy).map((t) => t.name);
}
