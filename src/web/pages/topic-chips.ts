import { html, type SafeHtml } from '../html.js';

/**
 * A review's topics (today the keyword groups it matches, `alerts.keywords`) as chips that do not pass for
 * tags: labelled "topic" for the eye and for a screen reader, drawn apart from the tags people add
 * (inbox.css), and explained in a tooltip, because the tag filter does not find them.
 */
export function topicChips(topics: readonly string[]): SafeHtml {
  if (topics.length === 0) return html``;
  return html`<span class="topics">${topics.map(
    (t) =>
      html`<span class="topic-chip" title="Topic: the review uses its words. Not a tag: search for its words to find others."><span class="chip-kind">topic</span> ${t}</span>`,
  )}</span>`;
}
