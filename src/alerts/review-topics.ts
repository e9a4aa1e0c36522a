/**
 * The topic names of a review the alerts read. One function, so that when reviews carry their topics
 * in the store (computed at ingest) this reads the stored column instead of matching the text again;
 * until then it matches the text, which costs microseconds for the few low reviews an alert looks at.
 */
import { type Taxonomy, topicsOf } from '../topics/index.js';

export function topicNamesOf(review: { content: string }, taxonomy: Taxonomy): string[] {
  return topicsOf(review.content, taxonomy).map((t) => t.name);
}
