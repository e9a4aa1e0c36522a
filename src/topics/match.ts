import type { Pattern, Slot, Taxonomy } from './compile.js';
import { spanText, type Token, tokenize } from './text.js';

/** A topic of a review and the review's own words that put it there, as written. */
export interface ReviewTopic {
  name: string;
  words: string[];
}

/**
 * Words that turn what follows into its opposite. Contractions appear with and without the
 * apostrophe, because reviews are typed on phones.
 */
const NEGATIONS = new Set([
  'not',
  'no',
  'never',
  'nothing',
  'none',
  'zero',
  'without',
  'cannot',
  'unable',
  'hardly',
  'barely',
  'nor',
  'dont',
  'doesnt',
  'didnt',
  'isnt',
  'wasnt',
  'wont',
  'cant',
  'couldnt',
  'wouldnt',
  'arent',
  'werent',
  'havent',
  'hasnt',
  'hadnt',
  'aint',
]);

/** How many words before a pattern a negation may stand: "doesn't even really work". */
const NEGATION_REACH = 3;

function isNegation(word: string): boolean {
  return NEGATIONS.has(word) || word.endsWith("n't");
}

/** The index of the negation standing before `at` within reach and in its clause, or -1. */
function negationBefore(tokens: readonly Token[], at: number): number {
  const clause = tokens[at]?.clause;
  for (let i = at - 1; i >= 0 && i >= at - NEGATION_REACH; i -= 1) {
    const token = tokens[i] as Token;
    if (token.clause !== clause) return -1;
    if (isNegation(token.norm)) return i;
  }
  return -1;
}

function fits(slot: Slot, word: string): boolean {
  return slot.forms.has(word) || slot.prefixes.some((p) => word.startsWith(p));
}

/**
 * The index of the last token of the pattern matched from `at`, or -1. At a gap the nearest fitting
 * word wins, but for the last word the farthest does: "lost all my data" rather than "lost all".
 */
function endOf(pattern: Pattern, tokens: readonly Token[], at: number): number {
  const clause = (tokens[at] as Token).clause;
  if (pattern.clauseStart && at > 0 && (tokens[at - 1] as Token).clause === clause) return -1;
  let position = at;
  for (let s = 1; s < pattern.slots.length; s += 1) {
    const slot = pattern.slots[s] as Slot;
    const lastSlot = s === pattern.slots.length - 1;
    const last = Math.min(tokens.length - 1, position + 1 + (pattern.gaps[s] ?? 0));
    let found = -1;
    for (let i = position + 1; i <= last; i += 1) {
      const token = tokens[i] as Token;
      if (token.clause !== clause) break;
      if (fits(slot, token.norm)) {
        found = i;
        if (!lastSlot) break;
      }
    }
    if (found < 0) return -1;
    position = found;
  }
  return position;
}

/**
 * Where the pattern's evidence runs when it matches at `at`, or undefined. A pattern that needs a
 * negation starts its evidence at it: "never replied", "doesn't work".
 */
function matchAt(pattern: Pattern, tokens: readonly Token[], at: number): [number, number] | undefined {
  const to = endOf(pattern, tokens, at);
  if (to < 0) return undefined;
  if (pattern.negation === 'any') return [at, to];
  const negation = negationBefore(tokens, at);
  if (pattern.negation === 'forbidden') return negation < 0 ? [at, to] : undefined;
  return negation < 0 ? undefined : [negation, to];
}

interface Span {
  topic: number;
  from: number;
  to: number;
  veto: boolean;
}

/**
 * The patterns that may start at a word, remembered per taxonomy: a review's words are mostly words other
 * reviews used, and a word that starts none is most of them. Forgotten all at once when full.
 */
const CANDIDATES = new WeakMap<Taxonomy, Map<string, readonly Pattern[]>>();
const CANDIDATE_WORDS = 20_000;
const NONE: readonly Pattern[] = [];

function candidatesOf(taxonomy: Taxonomy, word: string): readonly Pattern[] {
  const { byForm, byPrefix } = taxonomy.index;
  const exact = byForm.get(word) ?? NONE;
  const prefixed = byPrefix.filter((p) => (p.slots[0] as Slot).prefixes.some((x) => word.startsWith(x)));
  return prefixed.length === 0 ? exact : [...exact, ...prefixed];
}

function candidates(taxonomy: Taxonomy, word: string): readonly Pattern[] {
  let known = CANDIDATES.get(taxonomy);
  if (known === undefined) {
    known = new Map();
    CANDIDATES.set(taxonomy, known);
  }
  let found = known.get(word);
  if (found === undefined) {
    if (known.size >= CANDIDATE_WORDS) known.clear();
    found = candidatesOf(taxonomy, word);
    known.set(word, found);
  }
  return found;
}

function spansOf(tokens: readonly Token[], taxonomy: Taxonomy): Span[] {
  const spans: Span[] = [];
  for (let at = 0; at < tokens.length; at += 1) {
    for (const pattern of candidates(taxonomy, (tokens[at] as Token).norm)) {
      const match = matchAt(pattern, tokens, at);
      if (match) spans.push({ topic: pattern.topic, from: match[0], to: match[1], veto: pattern.veto });
    }
  }
  return spans;
}

/** A topic's evidence spans without those its vetoes overlap or a longer one of its own contains. */
function evidenceOf(spans: readonly Span[]): Span[] {
  const vetoes = spans.filter((s) => s.veto);
  const kept = spans
    .filter((s) => !s.veto && !vetoes.some((v) => v.from <= s.to && s.from <= v.to))
    .sort((a, b) => a.from - b.from || b.to - a.to);
  const result: Span[] = [];
  for (const span of kept) {
    const previous = result[result.length - 1];
    if (previous !== undefined && span.to <= previous.to) continue;
    result.push(span);
  }
  return result;
}

/**
 * The last texts matched under each taxonomy, with their topics. A poll matches a new review twice within
 * a few milliseconds, once to store its topics and once to score it if it is low, and an inbox page scores
 * the rows it shows again on every view: the second match is a lookup (bench/README.md, "Stored topics").
 */
const RECENT = new WeakMap<Taxonomy, Map<string, readonly ReviewTopic[]>>();
const RECENT_TEXTS = 512;

function copied(topics: readonly ReviewTopic[]): ReviewTopic[] {
  return topics.map((t) => ({ name: t.name, words: [...t.words] }));
}

/**
 * The topics of a review, in the taxonomy's order, each with the distinct words that put it there
 * (as written, whitespace collapsed, in order of appearance). Pure and deterministic; the stars are
 * not read: a topic says what a review is about, never whether it is praise or complaint. Each call
 * returns arrays of its own: a caller may change them.
 */
export function topicsOf(text: string, taxonomy: Taxonomy): ReviewTopic[] {
  let recent = RECENT.get(taxonomy);
  const known = recent?.get(text);
  if (known !== undefined) return copied(known);
  const topics = matchTopics(text, taxonomy);
  if (recent === undefined) {
    recent = new Map();
    RECENT.set(taxonomy, recent);
  }
  // A Map iterates in insertion order: the first key is the oldest.
  if (recent.size >= RECENT_TEXTS) recent.delete(recent.keys().next().value as string);
  recent.set(text, copied(topics));
  return topics;
}

/** `topicsOf` without its memory of recent texts: what a throughput bench measures. */
export function matchTopics(text: string, taxonomy: Taxonomy): ReviewTopic[] {
  // No topics (`topics` turned off, say): nothing to read the text for.
  if (taxonomy.topics.length === 0) return [];
  const tokens = tokenize(text);
  if (tokens.length === 0) return [];
  const byTopic = new Map<number, Span[]>();
  for (const span of spansOf(tokens, taxonomy)) {
    const list = byTopic.get(span.topic);
    if (list === undefined) byTopic.set(span.topic, [span]);
    else list.push(span);
  }
  const result: ReviewTopic[] = [];
  for (const [i, topic] of taxonomy.topics.entries()) {
    const spans = byTopic.get(i);
    if (spans === undefined) continue;
    const seen = new Set<string>();
    const words: string[] = [];
    for (const span of evidenceOf(spans)) {
      const written = spanText(text, tokens[span.from] as Token, tokens[span.to] as Token);
      const key = written.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      words.push(written);
    }
    if (words.length > 0) result.push({ name: topic.name, words });
  }
  return result;
}
