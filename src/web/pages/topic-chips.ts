import type { StoredTopic } from '../../store/schema.js';
import { html, type SafeHtml } from '../html.js';

/** The inbox listing every review with this topic (whatever its stars, over every period). */
export function topicListUrl(topic: string, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ view: 'all', topic, stars: '1,2,3,4,5', period: 'all', ...extra });
  return `/?${query.toString().replaceAll('%2C', ',')}`;
}

/**
 * A review's topics, as stored (src/topics found them in its text), as chips that do not pass for tags:
 * labelled "topic" for the eye and for a screen reader, drawn apart from the tags people add (inbox.css),
 * each a link to the list of every review with that topic, its tooltip quoting the words that put it there.
 */
export function topicChips(topics: readonly StoredTopic[]): SafeHtml {
  if (topics.length === 0) return html``;
  return html`<span class="topics">${topics.map(
    (t) =>
      html`<a class="topic-chip" href="${topicListUrl(t.name)}" title="Topic, from the words: ${[...new Set(t.words)].join(', ')}. Lists every review with it."><span class="chip-kind">topic</span> ${t.name}</a>`,
  )}</span>`;
}
