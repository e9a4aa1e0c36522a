/**
 * A review's topics: its words read as numbers against the taxonomy's lexicon (lexicon.ts), the patterns
 * each word may start tried where it stands, and the evidence put together from the spans they match. A
 * few loops over arrays reused from review to review, allocating nothing but the answer: a poll does much
 * else between two reviews, so each review is matched with little of the lexicon in the caches, and what
 * it costs is mostly how many places in memory its words touch (bench/README.md, "Stored topics").
 */
import type { Taxonomy } from './compile.js';
import {
  CLAUSE_START,
  type Lexicon,
  NEGATION_FORBIDDEN,
  NEGATION_REQUIRED,
  PREFIX_SYMBOL,
  RECORD,
  SYMBOL_COUNT,
  VETO,
} from './lexicon.js';
import { type ScannedWords, scannedWords, scanWords, spanText } from './text.js';

/** A topic of a review and the review's own words that put it there, as written. */
export interface ReviewTopic {
  name: string;
  words: string[];
}

/** How many words before a pattern a negation may stand: "doesn't even really work". */
const NEGATION_REACH = 3;

/**
 * The review being matched, in arrays kept from one review to the next (matching is synchronous, one
 * review at a time): its tokens, each token's role, entry (-1 for none) and whether it negates, and the
 * spans its patterns matched, four numbers each (topic, first token, last token, veto).
 */
class Review {
  words: ScannedWords = scannedWords();
  role = new Int32Array(64);
  entry = new Int32Array(64);
  negation = new Uint8Array(64);
  spans = new Int32Array(64);
  spanCount = 0;
  order = new Int32Array(16);

  reserve(count: number): void {
    if (count <= this.role.length) return;
    this.role = new Int32Array(count * 2);
    this.entry = new Int32Array(count * 2);
    this.negation = new Uint8Array(count * 2);
  }

  addSpan(topic: number, from: number, to: number, veto: number): void {
    const at = this.spanCount * 4;
    if (at === this.spans.length) {
      const wider = new Int32Array(at * 2);
      wider.set(this.spans);
      this.spans = wider;
    }
    this.spans[at] = topic;
    this.spans[at + 1] = from;
    this.spans[at + 2] = to;
    this.spans[at + 3] = veto;
    this.spanCount += 1;
  }
}

const REVIEW = new Review();

/**
 * The slots some word of the review being matched fits, per lexicon: `present[slot] === stamp`, the stamp
 * new for each review, so that they are cleared once in 65,535 reviews. A pattern whose later words the
 * review lacks is not tried: most tries fail so. Two bytes a slot: a review marks about ten slots a word, and the
 * fewer cache lines they fall in, the less a review costs in a poll.
 */
const PRESENT = new WeakMap<Lexicon, { present: Uint16Array; stamp: number }>();

/**
 * The entry and role of the word `lower[from..to)` of an ASCII text, written at token `t`: its entry found by
 * its hash, else the role of the longest prefix it starts with, walking the trie.
 */
function lookUpAscii(
  lexicon: Lexicon,
  lower: string,
  from: number,
  to: number,
  hash: number,
  t: number,
): void {
  const { table, mask, chars } = lexicon;
  const review = REVIEW;
  for (let at = hash & mask; ; at = (at + 1) & mask) {
    const record = at * RECORD;
    const charsAt = (table[record + 1] as number) - 1;
    if (charsAt < 0) break;
    const lengthAndNegation = table[record + 3] as number;
    if (table[record] !== hash || lengthAndNegation >> 1 !== to - from) continue;
    let same = true;
    for (let i = 0; same && i < to - from; i += 1) same = chars[charsAt + i] === lower.charCodeAt(from + i);
    if (!same) continue;
    review.entry[t] = at;
    review.role[t] = table[record + 2] as number;
    review.negation[t] = lengthAndNegation & 1;
    return;
  }
  const { trie, trieRole } = lexicon;
  let role = 0;
  // The scan's words hold only the trie's symbols: a-z, 0-9, $ ' - .
  for (let i = from, state = 0; i < to && state >= 0; i += 1) {
    state = trie[state * SYMBOL_COUNT + (PREFIX_SYMBOL[lower.charCodeAt(i)] as number)] as number;
    if (state >= 0 && trieRole[state] !== 0) role = trieRole[state] as number;
  }
  review.entry[t] = -1;
  review.role[t] = role;
  // Any word ending in "n't" negates. Each test made for every such word, within the word: optimized code
  // that meets a test it has never seen made is thrown away and compiled again (bench/README.md).
  review.negation[t] =
    Number(to - from >= 3) &
    Number(lower.charCodeAt(to - 1) === 0x74) &
    Number(lower.charCodeAt(Math.max(from, to - 2)) === 0x27) &
    Number(lower.charCodeAt(Math.max(from, to - 3)) === 0x6e);
}

/** The entry and role of a word of a text that is not ASCII, by its norm, written at token `t`. */
function lookUpNorm(lexicon: Lexicon, norm: string, t: number): void {
  const entry = lexicon.entryOf.get(norm) ?? -1;
  let role = 0;
  if (entry >= 0) role = lexicon.table[entry * RECORD + 2] as number;
  for (let length = Math.min(norm.length, lexicon.longestPrefix); entry < 0 && length > 0; length -= 1) {
    const prefixRole = lexicon.prefixRoleOf.get(norm.slice(0, length));
    if (prefixRole === undefined) continue;
    role = prefixRole;
    break;
  }
  REVIEW.entry[t] = entry;
  REVIEW.role[t] = role;
  const negates =
    entry >= 0 ? ((lexicon.table[entry * RECORD + 3] as number) & 1) === 1 : norm.endsWith("n't");
  REVIEW.negation[t] = negates ? 1 : 0;
}

/** Reads the text's tokens into REVIEW, the slots their roles fit marked present under a new stamp. */
function readWords(text: string, lexicon: Lexicon, marks: { present: Uint16Array; stamp: number }): number {
  const review = REVIEW;
  const { words } = review;
  scanWords(text, words);
  const { count, start, normEnd, hash, lower, norms } = words;
  review.reserve(count);
  if (marks.stamp === 0xffff) {
    marks.present.fill(0);
    marks.stamp = 0;
  }
  const stamp = ++marks.stamp;
  const { present } = marks;
  const { roles } = lexicon;
  for (let t = 0; t < count; t += 1) {
    if (norms === undefined) {
      lookUpAscii(lexicon, lower, start[t] as number, normEnd[t] as number, hash[t] as number, t);
    } else lookUpNorm(lexicon, norms[t] as string, t);
    const role = review.role[t] as number;
    const last = role + (roles[role] as number);
    for (let k = role + 1; k <= last; k += 1) present[roles[k] as number] = stamp;
  }
  return count;
}

/** Whether a word of `role` fits `slot`: one look in the role's short list of slots, ascending. */
function fits(roles: Int32Array, slot: number, role: number): boolean {
  const last = role + (roles[role] as number);
  for (let k = role + 1; k <= last; k += 1) {
    const id = roles[k] as number;
    if (id >= slot) return id === slot;
  }
  return false;
}

/** The index of the negation standing before `at` within reach and in its clause, or -1. */
function negationBefore(at: number): number {
  const { clause } = REVIEW.words;
  for (let i = at - 1; i >= 0 && i >= at - NEGATION_REACH; i -= 1) {
    if (clause[i] !== clause[at]) return -1;
    if (REVIEW.negation[i] === 1) return i;
  }
  return -1;
}

/**
 * Adds the span of the pattern at offset `p` to the review's when it matches at token `at`. At a gap the
 * nearest fitting word wins, but for the last word the farthest does: "lost all my data" rather than "lost
 * all". A pattern that needs a negation starts its evidence at it: "never replied", "doesn't work".
 */
function tryAt(
  lexicon: Lexicon,
  p: number,
  at: number,
  count: number,
  present: Uint16Array,
  stamp: number,
): void {
  const { patterns, roles } = lexicon;
  // Slot s of the pattern: its id at p + 3 + 2s, and next to it the other words allowed before it.
  const last = p + 1 + 2 * (patterns[p + 2] as number);
  for (let s = p + 5; s <= last; s += 2) if (present[patterns[s] as number] !== stamp) return;
  const review = REVIEW;
  const { clause } = review.words;
  const own = clause[at];
  const flags = patterns[p + 1] as number;
  if ((flags & CLAUSE_START) !== 0 && at > 0 && clause[at - 1] === own) return;
  let position = at;
  for (let s = p + 5; s <= last; s += 2) {
    const reach = Math.min(count - 1, position + 1 + (patterns[s + 1] as number));
    const slot = patterns[s] as number;
    let found = -1;
    for (let i = position + 1; i <= reach && clause[i] === own; i += 1) {
      if (!fits(roles, slot, review.role[i] as number)) continue;
      found = i;
      if (s < last) break;
    }
    if (found < 0) return;
    position = found;
  }
  let from = at;
  if ((flags & (NEGATION_REQUIRED | NEGATION_FORBIDDEN)) !== 0) {
    const before = negationBefore(at);
    if ((flags & NEGATION_FORBIDDEN) !== 0) {
      if (before >= 0) return;
    } else if (before < 0) return;
    else from = before;
  }
  review.addSpan(patterns[p] as number, from, position, flags & VETO);
}

/** Where the patterns that `role` starts when the next word is `entry` stand in `roles`, or -1. */
function nextPatterns(roles: Int32Array, pairs: number, entry: number): number {
  let low = 0;
  let high = (roles[pairs] as number) - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const found = roles[pairs + 1 + middle * 2] as number;
    if (found === entry) return roles[pairs + 2 + middle * 2] as number;
    if (found < entry) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** Every span the taxonomy's patterns match in the review's `count` words. */
function findSpans(lexicon: Lexicon, count: number, present: Uint16Array, stamp: number): void {
  const { roles } = lexicon;
  const { role, entry } = REVIEW;
  REVIEW.spanCount = 0;
  for (let at = 0; at < count; at += 1) {
    const own = role[at] as number;
    const startsAt = own + 1 + (roles[own] as number);
    const starts = roles[startsAt] as number;
    const pairs = startsAt + 1 + starts;
    let listAt = -1;
    if (roles[pairs] !== 0 && at + 1 < count && (entry[at + 1] as number) >= 0) {
      listAt = nextPatterns(roles, pairs, entry[at + 1] as number);
    }
    const listed = listAt < 0 ? 0 : (roles[listAt] as number);
    // One loop over both lists, so that tryAt has one call site: V8 compiles a copy of it per site.
    for (let k = 0; k < starts + listed; k += 1) {
      const p = k < starts ? roles[startsAt + 1 + k] : roles[listAt + 1 + k - starts];
      tryAt(lexicon, p as number, at, count, present, stamp);
    }
  }
}

/** Whether span `a` sorts after span `b`: by topic, in the taxonomy's order, then by start, longest first. */
function after(spans: Int32Array, a: number, b: number): boolean {
  const topic = (spans[a * 4] as number) - (spans[b * 4] as number);
  if (topic !== 0) return topic > 0;
  const from = (spans[a * 4 + 1] as number) - (spans[b * 4 + 1] as number);
  if (from !== 0) return from > 0;
  return (spans[b * 4 + 2] as number) - (spans[a * 4 + 2] as number) > 0;
}

/** More spans than a review of a few sentences has: sorted by the built-in sort, whose cost is n log n. */
const FEW_SPANS = 32;

/**
 * The review's spans in order (`after`), stable, as indexes. By insertion when they are few, as a review's
 * are: the built-in sort's call of a comparator costs more than the comparing (bench/README.md). A long
 * review's spans interleave their topics, which would cost insertion the square of their count.
 */
function sortedSpans(): Int32Array {
  const review = REVIEW;
  const count = review.spanCount;
  if (review.order.length < count) review.order = new Int32Array(count * 2);
  const { order, spans } = review;
  if (count > FEW_SPANS) {
    const sorted = Array.from({ length: count }, (_, i) => i).sort((a, b) =>
      after(spans, a, b) ? 1 : after(spans, b, a) ? -1 : 0,
    );
    order.set(sorted);
    return order;
  }
  for (let i = 0; i < count; i += 1) {
    let j = i - 1;
    for (; j >= 0 && after(spans, order[j] as number, i); j -= 1) order[j + 1] = order[j] as number;
    order[j + 1] = i;
  }
  return order;
}

/**
 * The distinct words of one topic's spans, `order[from..to)`, sorted by start and longest first: those its
 * vetoes overlap and those a longer one of its own contains left out.
 */
function wordsOf(text: string, order: Int32Array, from: number, to: number): string[] {
  const { spans } = REVIEW;
  const { start, end } = REVIEW.words;
  const vetoes = vetoesOf(order, from, to);
  const words: string[] = [];
  const keys: string[] = [];
  let reach = -1;
  for (let k = from; k < to; k += 1) {
    const span = (order[k] as number) * 4;
    const first = spans[span + 1] as number;
    const last = spans[span + 2] as number;
    if (spans[span + 3] === 1 || last <= reach || (vetoes !== undefined && vetoed(vetoes, first, last)))
      continue;
    reach = last;
    const written = spanText(text, start[first] as number, end[last] as number, first === last);
    const key = written.toLowerCase();
    if (keys.includes(key)) continue;
    keys.push(key);
    words.push(written);
  }
  return words;
}

/** A topic's vetoes, by start: their starts, and the farthest end of each and those before it. */
interface Vetoes {
  starts: number[];
  reach: number[];
}

/** The vetoes among the spans `order[from..to)`, which are sorted by start; undefined when none, as most. */
function vetoesOf(order: Int32Array, from: number, to: number): Vetoes | undefined {
  const { spans } = REVIEW;
  let vetoes: Vetoes | undefined;
  for (let k = from; k < to; k += 1) {
    const span = (order[k] as number) * 4;
    if (spans[span + 3] !== 1) continue;
    vetoes ??= { starts: [], reach: [] };
    const farthest = Math.max(spans[span + 2] as number, vetoes.reach.at(-1) ?? -1);
    vetoes.starts.push(spans[span + 1] as number);
    vetoes.reach.push(farthest);
  }
  return vetoes;
}

/**
 * Whether a veto overlaps the span from token `first` to `last`: one that starts by `last` and reaches
 * `first`. Found by bisection, so that a long review of many spans and vetoes costs no square of them.
 */
function vetoed({ starts, reach }: Vetoes, first: number, last: number): boolean {
  let low = 0;
  let high = starts.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((starts[middle] as number) <= last) low = middle + 1;
    else high = middle - 1;
  }
  return high >= 0 && (reach[high] as number) >= first;
}

/**
 * The topics of a review, in the taxonomy's order, each with the distinct words that put it there
 * (as written, whitespace collapsed, in order of appearance). Pure and deterministic; the stars are
 * not read: a topic says what a review is about, never whether it is praise or complaint. Each call
 * returns arrays of its own: a caller may change them.
 */
export function topicsOf(text: string, taxonomy: Taxonomy): ReviewTopic[] {
  // No topics (`topics` turned off, say): nothing to read the text for.
  if (taxonomy.topics.length === 0) return [];
  const { lexicon } = taxonomy;
  let marks = PRESENT.get(lexicon);
  if (marks === undefined) {
    marks = { present: new Uint16Array(lexicon.slotCount), stamp: 0 };
    PRESENT.set(lexicon, marks);
  }
  const count = readWords(text, lexicon, marks);
  if (count === 0) return [];
  findSpans(lexicon, count, marks.present, marks.stamp);
  const order = sortedSpans();
  const { spans, spanCount } = REVIEW;
  const result: ReviewTopic[] = [];
  for (let from = 0; from < spanCount; ) {
    const topic = spans[(order[from] as number) * 4] as number;
    let to = from + 1;
    while (to < spanCount && spans[(order[to] as number) * 4] === topic) to += 1;
    const words = wordsOf(text, order, from, to);
    if (words.length > 0) result.push({ name: lexicon.topicNames[topic] as string, words });
    from = to;
  }
  return result;
}
