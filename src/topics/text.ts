/**
 * Reviews as tokens: words with where they sit in the original text, so that the evidence a matcher
 * reports is the review's own words as written, and the clause each sits in, so that a phrase or a
 * negation never reaches across a sentence.
 */

export interface Token {
  /** Lowercased, NFKC, straight apostrophes, a trailing possessive "'s" dropped: "app's" is "app". */
  norm: string;
  start: number;
  end: number;
  /** Increments at . ! ? ; : … and blank lines; not at ", but", though CLAUSE_BREAK names it (breaksClause). */
  clause: number;
}

/** Letters and digits, with apostrophes and hyphens inside a word ("doesn't", "set-up", "2.3"). */
const WORD = /[$€£]?[\p{L}\p{N}]+(?:(?:['\u2019\u02bc]|[-.](?=[\p{L}\p{N}]))[\p{L}\p{N}]+)*/gu;
// A single line break is how a phone wraps a sentence; a blank line ends one.
const CLAUSE_BREAK = /[.!?;:\u2026]|\n\s*\n|,\s*(?:but|however|though|although)\b/iu;

/** Curly apostrophes and full-width letters are how phones type "doesn't" and "ERROR". */
export function normalizeWord(raw: string): string {
  const word = raw
    .normalize('NFKC')
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .toLowerCase();
  return possessiveDropped(word);
}

function possessiveDropped(word: string): string {
  return word.endsWith("'s") ? word.slice(0, -2) : word;
}

/** An ASCII letter or digit, lowercase as the text is lowercased first. */
function isWordCode(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
}

/**
 * Whether the text between two tokens ends a clause. Most gaps are a space: CLAUSE_BREAK runs only on
 * one holding a character it could match. A gap holds no letters, so its ", but" alternative never
 * matches one: "works, but support never replied" is one clause, as the rules were tuned on.
 */
function breaksClause(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i += 1) {
    switch (text.charCodeAt(i)) {
      case 0x0a: // \n
      case 0x21: // !
      case 0x2e: // .
      case 0x3a: // :
      case 0x3b: // ;
      case 0x3f: // ?
      case 0x2026: // …
        return CLAUSE_BREAK.test(text.slice(from, to));
    }
  }
  return false;
}

/** FNV-1a over UTF-16 code units: how the matcher finds a word's entry (src/topics/lexicon.ts). */
const HASH_SEED = 0x811c9dc5 | 0;
const HASH_PRIME = 0x01000193;

export function wordHash(word: string): number {
  let hash = HASH_SEED;
  for (let i = 0; i < word.length; i += 1) hash = Math.imul(hash ^ word.charCodeAt(i), HASH_PRIME);
  return hash;
}

/** A "." between digits or letters joins a token ("2.3", "judge.me"); at a token's end it breaks. */
export function tokenize(text: string): Token[] {
  const unicode = scanWords(text, SCANNED);
  if (unicode !== undefined) return unicode;
  const { count, start, end, normEnd, clause, lower } = SCANNED;
  const tokens: Token[] = [];
  for (let t = 0; t < count; t += 1) {
    const from = start[t] as number;
    tokens.push({
      norm: lower.slice(from, normEnd[t]),
      start: from,
      end: end[t] as number,
      clause: clause[t] as number,
    });
  }
  return tokens;
}

function unicodeTokens(text: string): Token[] {
  const tokens: Token[] = [];
  let clause = 0;
  let last = 0;
  for (const match of text.matchAll(WORD)) {
    const start = match.index;
    const end = start + match[0].length;
    if (start > last && breaksClause(text, last, start)) clause += 1;
    tokens.push({ norm: normalizeWord(match[0]), start, end, clause });
    last = end;
  }
  return tokens;
}

/**
 * A text's tokens as numbers, in arrays reused from text to text: the matcher reads an ASCII text's words
 * where they stand in the lowercased text rather than as strings of their own (src/topics/match.ts).
 */
export interface ScannedWords {
  count: number;
  start: Int32Array;
  end: Int32Array;
  /** Of an ASCII text, where a word's norm ends in `lower`: before a possessive "'s". */
  normEnd: Int32Array;
  clause: Int32Array;
  /** Of an ASCII text, each word's `wordHash`, computed as it is read: what the matcher looks words up by. */
  hash: Int32Array;
  /** The text lowercased: an ASCII text's norms are its slices. */
  lower: string;
  /** The norms of a text that is not ASCII, which NFKC may change; undefined for an ASCII text. */
  norms: string[] | undefined;
}

export function scannedWords(): ScannedWords {
  const ints = () => new Int32Array(64);
  const arrays = { start: ints(), end: ints(), normEnd: ints(), clause: ints(), hash: ints() };
  return { count: 0, ...arrays, lower: '', norms: undefined };
}

const SCANNED = scannedWords();

function reserve(words: ScannedWords, count: number): void {
  if (count <= words.start.length) return;
  const wider = (from: Int32Array) => {
    const to = new Int32Array(Math.max(count, from.length * 2));
    to.set(from);
    return to;
  };
  words.start = wider(words.start);
  words.end = wider(words.end);
  words.normEnd = wider(words.normEnd);
  words.clause = wider(words.clause);
  words.hash = wider(words.hash);
}

/**
 * Fills `into` with the tokens of `text`: by character codes if it is ASCII (and returns undefined), else by
 * WORD, and then returns those tokens too, so that `tokenize` need not build them again.
 */
export function scanWords(text: string, into: ScannedWords): Token[] | undefined {
  const lower = text.toLowerCase();
  into.lower = lower;
  into.norms = undefined;
  if (scanAscii(text, lower, into)) return undefined;
  const tokens = unicodeTokens(text);
  reserve(into, tokens.length);
  tokens.forEach((token, t) => {
    into.start[t] = token.start;
    into.end[t] = token.end;
    into.clause[t] = token.clause;
  });
  into.count = tokens.length;
  into.norms = tokens.map((token) => token.norm);
  return tokens;
}

/**
 * WORD's tokens of an ASCII text (one typed without curly apostrophes, accents or emoji, as most reviews
 * are), which NFKC leaves as it is and which lowercases letter for letter, read character by character from
 * `lower` (the text lowercased) into `into`: a regular expression's match for every word costs more
 * (bench/README.md). False at the first character past ASCII in the lowercased text, found where the loop
 * reads it: unicodeTokens reads such a text. The one character that lowercases into ASCII, the Kelvin
 * sign, gives "k" on both paths.
 */
function scanAscii(text: string, lower: string, into: ScannedWords): boolean {
  const length = lower.length;
  let count = 0;
  let clause = 0;
  let last = 0;
  let at = 0;
  while (at < length) {
    const code = lower.charCodeAt(at);
    // "$" starts a word only before a letter or digit: "$5".
    const start = at;
    if (code === 0x24 && at + 1 < length && isWordCode(lower.charCodeAt(at + 1))) at += 1;
    else if (!isWordCode(code)) {
      if (code > 0x7f) return false;
      at += 1;
      continue;
    }
    // The word's hash, and the hash before its last two characters: a possessive's norm ends there.
    let hash = HASH_SEED;
    let before = hash;
    let beforeThat = hash;
    for (let i = start; i <= at; i += 1) {
      beforeThat = before;
      before = hash;
      hash = Math.imul(hash ^ lower.charCodeAt(i), HASH_PRIME);
    }
    let end = at + 1;
    while (end < length) {
      const next = lower.charCodeAt(end);
      if (isWordCode(next)) {
        beforeThat = before;
        before = hash;
        hash = Math.imul(hash ^ next, HASH_PRIME);
        end += 1;
      }
      // ' - . join a word only when a letter or digit follows: "doesn't", "set-up", "2.3"; not a final dot.
      else if (
        (next === 0x27 || next === 0x2d || next === 0x2e) &&
        end + 1 < length &&
        isWordCode(lower.charCodeAt(end + 1))
      ) {
        beforeThat = hash;
        before = Math.imul(hash ^ next, HASH_PRIME);
        hash = Math.imul(before ^ lower.charCodeAt(end + 1), HASH_PRIME);
        end += 2;
      } else break;
    }
    if (start > last && breaksClause(text, last, start)) clause += 1;
    reserve(into, count + 1);
    into.start[count] = start;
    into.end[count] = end;
    // A possessive is dropped: "app's" is "app". Both ways by the same steps, so that V8's optimized code
    // meets no branch it has not seen taken (bench/README.md, "Stored topics").
    const possessive =
      end - start > 2 && lower.charCodeAt(end - 1) === 0x73 && lower.charCodeAt(end - 2) === 0x27 ? 1 : 0;
    into.normEnd[count] = end - 2 * possessive;
    into.hash[count] = possessive === 1 ? beforeThat : hash;
    into.clause[count] = clause;
    count += 1;
    last = end;
    at = end;
  }
  into.count = count;
  return true;
}

/**
 * The text of tokens from `start` to `end` as written, whitespace collapsed: what a reader finds in the
 * review. A token holds no whitespace: a one-word span, most evidence, is its text as it is.
 */
export function spanText(text: string, start: number, end: number, oneWord: boolean): string {
  const written = text.slice(start, end);
  return oneWord ? written : written.replace(/\s+/g, ' ');
}
