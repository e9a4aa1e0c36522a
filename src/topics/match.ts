import type { Pattern, Slot, Taxonomy, TopicDefinition } from './compile.js';
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
function negationBefore(words: Words, at: number): number {
  const { tokens, roles } = words;
  const clause = tokens[at]?.clause;
  for (let i = at - 1; i >= 0 && i >= at - NEGATION_REACH; i -= 1) {
    if ((tokens[i] as Token).clause !== clause) return -1;
    if ((roles[i] as WordRole).negation) return i;
  }
  return -1;
}

/** Whether a word fits a slot: one of its forms, or starting with one of its prefixes (its role knows). */
function fits(slot: Slot, role: WordRole): boolean {
  return role.slots.includes(slot.id);
}

/**
 * The index of the last token of the pattern matched from `at`, or -1. At a gap the nearest fitting
 * word wins, but for the last word the farthest does: "lost all my data" rather than "lost all".
 */
function endOf(pattern: Pattern, words: Words, at: number): number {
  const { tokens, roles } = words;
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
      if (fits(slot, roles[i] as WordRole)) {
        found = i;
        if (!lastSlot) break;
      }
    }
    if (found < 0) return -1;
    position = found;
  }
  return position;
}

interface Span {
  topic: number;
  from: number;
  to: number;
  veto: boolean;
}

/** What a word may start: the patterns to try where it stands. */
interface WordRole {
  starts: readonly Pattern[];
  /**
   * Patterns whose second word must follow it directly (no gap, no prefix), by that word: most phrases, and
   * most of the patterns a common word starts ("support ...", "works ..."), tried only when the next word
   * is one of theirs (bench/README.md, "Stored topics").
   */
  next: ReadonlyMap<string, readonly Pattern[]> | undefined;
  /** Whether the word turns what follows into its opposite: asked of the words before most matches. */
  negation: boolean;
  /**
   * The ids of the slots the word fits (`Slot.id`), of every pattern at every place: whether a word fits
   * is then one look in a short list, most often empty, not a set's hash and a test of each prefix.
   */
  slots: readonly number[];
}

/** A review's tokens, the role of each, and the slots they fit (`MatchState`). */
interface Words {
  tokens: readonly Token[];
  roles: readonly WordRole[];
  present: Int32Array;
  stamp: number;
}

/** What matching keeps per taxonomy from one review to the next. */
interface MatchState {
  /**
   * The roles of words seen: a review's words are mostly words other reviews used, and a word that has
   * none is most of them. Forgotten all at once when full.
   */
  roles: Map<string, WordRole>;
  /**
   * The slots some word of the review being matched fits: `present[id] === stamp`, the stamp new for each
   * review, so that nothing is cleared between them. A pattern whose later words the review lacks is not
   * tried: most tries fail so (bench/README.md, "Stored topics").
   */
  present: Int32Array;
  stamp: number;
}

const STATES = new WeakMap<Taxonomy, MatchState>();
const ROLE_WORDS = 20_000;
const NONE: readonly Pattern[] = [];
const NO_SLOTS: readonly number[] = [];
/** The role of most words: one object for all of them. */
const NO_ROLE: WordRole = { starts: NONE, next: undefined, negation: false, slots: NO_SLOTS };

/**
 * The ids of the slots `word` fits, ascending and distinct. Most words fit no prefix: their form's list in
 * the index, already so, is the answer (a new word costs the first reviews holding it; real reviews bring
 * thousands).
 */
function slotsOf(taxonomy: Taxonomy, word: string): readonly number[] {
  const { slotsByForm, slotsByPrefix, longestPrefix } = taxonomy.index;
  const ids = slotsByForm.get(word) ?? NO_SLOTS;
  let merged: number[] | undefined;
  for (let length = Math.min(word.length, longestPrefix); length > 0; length -= 1) {
    const more = slotsByPrefix.get(word.slice(0, length));
    if (more !== undefined) merged = [...(merged ?? ids), ...more];
  }
  return merged === undefined ? ids : [...new Set(merged)].sort((a, b) => a - b);
}

function roleOf(taxonomy: Taxonomy, word: string): WordRole {
  const { byForm, byPrefix } = taxonomy.index;
  const slots = slotsOf(taxonomy, word);
  const negation = isNegation(word);
  if (slots.length === 0 && !negation) return NO_ROLE;
  const exact = byForm.get(word) ?? NONE;
  const prefixed = byPrefix.filter((p) => (p.slots[0] as Slot).prefixes.some((x) => word.startsWith(x)));
  const starts: Pattern[] = [];
  const next = new Map<string, Pattern[]>();
  for (const pattern of prefixed.length === 0 ? exact : [...exact, ...prefixed]) {
    const second = pattern.slots[1];
    if (second === undefined || pattern.gaps[1] !== 0 || second.prefixes.length > 0) {
      starts.push(pattern);
      continue;
    }
    for (const form of second.forms) {
      const list = next.get(form);
      if (list === undefined) next.set(form, [pattern]);
      else list.push(pattern);
    }
  }
  return { starts, next: next.size === 0 ? undefined : next, negation, slots };
}

/** The role of each word of `tokens`, and every slot they fit marked present under a new stamp. */
function wordsIn(taxonomy: Taxonomy, tokens: readonly Token[]): Words {
  let state = STATES.get(taxonomy);
  if (state === undefined) {
    state = { roles: new Map(), present: new Int32Array(taxonomy.index.slotCount), stamp: 0 };
    STATES.set(taxonomy, state);
  }
  if (state.stamp === 0x7fffffff) {
    state.present.fill(0);
    state.stamp = 0;
  }
  const stamp = ++state.stamp;
  const { roles: known, present } = state;
  const roles: WordRole[] = [];
  for (const token of tokens) {
    let role = known.get(token.norm);
    if (role === undefined) {
      if (known.size >= ROLE_WORDS) known.clear();
      role = roleOf(taxonomy, token.norm);
      known.set(token.norm, role);
    }
    roles.push(role);
    const { slots } = role;
    for (let k = 0; k < slots.length; k += 1) present[slots[k] as number] = stamp;
  }
  return { tokens, roles, present, stamp };
}

/**
 * Adds the pattern's span to `spans` when it matches at `at`. A pattern that needs a negation starts its
 * evidence at it: "never replied", "doesn't work". Here rather than a closure in spansOf: a closure is made
 * anew at each call, and a poll matches every new review.
 */
function tryAt(pattern: Pattern, words: Words, at: number, spans: Span[]): void {
  const { slots } = pattern;
  for (let s = 1; s < slots.length; s += 1) {
    if (words.present[(slots[s] as Slot).id] !== words.stamp) return;
  }
  const to = endOf(pattern, words, at);
  if (to < 0) return;
  let from = at;
  if (pattern.negation !== 'any') {
    const negation = negationBefore(words, at);
    if (pattern.negation === 'forbidden') {
      if (negation >= 0) return;
    } else if (negation < 0) return;
    else from = negation;
  }
  spans.push({ topic: pattern.topic, from, to, veto: pattern.veto });
}

function spansOf(tokens: readonly Token[], taxonomy: Taxonomy): Span[] {
  const words = wordsIn(taxonomy, tokens);
  const { roles } = words;
  const spans: Span[] = [];
  for (let at = 0; at < tokens.length; at += 1) {
    const { starts, next } = roles[at] as WordRole;
    const following = tokens[at + 1];
    const nextOnes =
      next === undefined || following === undefined ? NONE : (next.get(following.norm) ?? NONE);
    // One loop over both lists, so that tryAt has one call site: V8 compiles a copy of it per site.
    for (let k = 0, count = starts.length + nextOnes.length; k < count; k += 1) {
      const pattern = (k < starts.length ? starts[k] : nextOnes[k - starts.length]) as Pattern;
      tryAt(pattern, words, at, spans);
    }
  }
  return spans;
}

/** By topic, in the taxonomy's order, then by start and longest first: what wordsOf reads. */
function bySpanOrder(a: Span, b: Span): number {
  return a.topic - b.topic || a.from - b.from || b.to - a.to;
}

/**
 * Sorts a review's spans by bySpanOrder, stably as Array.prototype.sort does. By insertion: a review has a
 * handful, and the built-in sort's call of a comparator costs more than the comparing (bench/README.md).
 */
function sortSpans(spans: Span[]): void {
  for (let i = 1; i < spans.length; i += 1) {
    const span = spans[i] as Span;
    let j = i - 1;
    for (; j >= 0 && bySpanOrder(spans[j] as Span, span) > 0; j -= 1) spans[j + 1] = spans[j] as Span;
    spans[j + 1] = span;
  }
}

/** Whether a veto among `spans[from..to)` overlaps `span`. */
function vetoed(spans: readonly Span[], from: number, to: number, span: Span): boolean {
  for (let k = from; k < to; k += 1) {
    const veto = spans[k] as Span;
    if (veto.veto && veto.from <= span.to && span.from <= veto.to) return true;
  }
  return false;
}

/**
 * The distinct words of one topic's spans, `spans[from..to)` sorted by start and longest first: those its
 * vetoes overlap and those a longer one of its own contains left out.
 */
function wordsOf(
  text: string,
  tokens: readonly Token[],
  spans: readonly Span[],
  from: number,
  to: number,
): string[] {
  const words: string[] = [];
  const keys: string[] = [];
  let reach = -1;
  for (let k = from; k < to; k += 1) {
    const span = spans[k] as Span;
    if (span.veto || span.to <= reach || vetoed(spans, from, to, span)) continue;
    reach = span.to;
    const written = spanText(text, tokens[span.from] as Token, tokens[span.to] as Token);
    const key = written.toLowerCase();
    if (keys.includes(key)) continue;
    keys.push(key);
    words.push(written);
  }
  return words;
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
  const tokens = tokenize(text);
  if (tokens.length === 0) return [];
  const spans = spansOf(tokens, taxonomy);
  sortSpans(spans);
  const result: ReviewTopic[] = [];
  for (let from = 0; from < spans.length; ) {
    const topic = (spans[from] as Span).topic;
    let to = from + 1;
    while (to < spans.length && (spans[to] as Span).topic === topic) to += 1;
    const words = wordsOf(text, tokens, spans, from, to);
    if (words.length > 0) result.push({ name: (taxonomy.topics[topic] as TopicDefinition).name, words });
    from = to;
  }
  return result;
}
