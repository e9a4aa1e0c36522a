/**
 * What a burst of low reviews shares, for the incident alert and a poll's grouped alert: "5 of 6 about
 * integrations: 'klaviyo'". Only what at least half of them share is said, so two reviews of six that
 * both mention billing do not make the burst "about billing".
 */
import { phrasesOf } from './phrases.js';

export interface BurstReview {
  content: string;
  /** Its topics' names. */
  topics: readonly string[];
}

export interface SharedTopic {
  name: string;
  count: number;
}

export interface BurstSummary {
  total: number;
  /** Topics at least half the reviews have (and at least two), most shared first. */
  topics: SharedTopic[];
  /** Phrases at least two reviews and half the reviews of the top topic hold, most shared first. */
  phrases: string[];
  /** "5 of 6 about integrations: 'klaviyo'", or undefined when nothing is shared. */
  text: string | undefined;
}

const MAX_PHRASES = 2;

function counted<T>(items: Iterable<T>): Map<T, number> {
  const counts = new Map<T, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
}

/** Of nested phrases held by as many reviews ("klaviyo", "klaviyo sync"), the longer says more. */
function mostSaying(phrases: Array<[string, number]>): string[] {
  return phrases
    .filter(([p, n]) => !phrases.some(([q, m]) => q !== p && m >= n && ` ${q} `.includes(` ${p} `)))
    .map(([p]) => p);
}

export function summarizeBurst(reviews: readonly BurstReview[]): BurstSummary {
  const total = reviews.length;
  const half = Math.max(2, Math.ceil(total / 2));
  const topics = [...counted(reviews.flatMap((r) => [...new Set(r.topics)]))]
    .filter(([, count]) => count >= half)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([name, count]) => ({ name, count }));
  const top = topics[0];
  const pool = top === undefined ? reviews : reviews.filter((r) => r.topics.includes(top.name));
  const phraseHalf = Math.max(2, Math.ceil(pool.length / 2));
  const shared = [...counted(pool.flatMap((r) => [...phrasesOf(r.content)]))]
    .filter(([, count]) => count >= phraseHalf)
    .sort((a, b) => b[1] - a[1] || b[0].length - a[0].length);
  const phrases = mostSaying(shared).slice(0, MAX_PHRASES);
  const quoted = phrases.map((p) => `'${p}'`).join(', ');
  let text: string | undefined;
  if (top !== undefined) text = `${top.count} of ${total} about ${top.name}${quoted ? `: ${quoted}` : ''}`;
  else if (phrases.length > 0) text = `${shared[0]?.[1]} of ${total} mention ${quoted}`;
  return { total, topics, phrases, text };
}
