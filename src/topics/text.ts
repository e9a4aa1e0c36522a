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

/** A "." between digits or letters joins a token ("2.3", "judge.me"); at a token's end it breaks. */
export function tokenize(text: string): Token[] {
  return asciiTokens(text) ?? unicodeTokens(text);
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
 * WORD's tokens of an ASCII text (one typed without curly apostrophes, accents or emoji, as most reviews
 * are), which NFKC leaves as it is and which lowercases letter for letter, read character by character: a
 * regular expression's match for every word costs more (bench/README.md). Undefined at the first character
 * past ASCII in the lowercased text, found where the loop reads it: unicodeTokens reads such a text. The one
 * character that lowercases into ASCII, the Kelvin sign, gives "k" on both paths.
 */
function asciiTokens(text: string): Token[] | undefined {
  const tokens: Token[] = [];
  const lower = text.toLowerCase();
  const length = lower.length;
  let clause = 0;
  let last = 0;
  let at = 0;
  while (at < length) {
    const code = lower.charCodeAt(at);
    // "$" starts a word only before a letter or digit: "$5".
    const start = at;
    if (code === 0x24 && at + 1 < length && isWordCode(lower.charCodeAt(at + 1))) at += 1;
    else if (!isWordCode(code)) {
      if (code > 0x7f) return undefined;
      at += 1;
      continue;
    }
    let end = at + 1;
    while (end < length) {
      const next = lower.charCodeAt(end);
      if (isWordCode(next)) end += 1;
      // ' - . join a word only when a letter or digit follows: "doesn't", "set-up", "2.3"; not a final dot.
      else if (
        (next === 0x27 || next === 0x2d || next === 0x2e) &&
        end + 1 < length &&
        isWordCode(lower.charCodeAt(end + 1))
      )
        end += 2;
      else break;
    }
    if (start > last && breaksClause(text, last, start)) clause += 1;
    // possessiveDropped, without a call for every word: "app's" is "app".
    const possessive =
      end - start > 2 && lower.charCodeAt(end - 1) === 0x73 && lower.charCodeAt(end - 2) === 0x27;
    tokens.push({ norm: lower.slice(start, possessive ? end - 2 : end), start, end, clause });
    last = end;
    at = end;
  }
  return tokens;
}

/** The text between two tokens as written, whitespace collapsed: what a reader finds in the review. */
export function spanText(text: string, from: Token, to: Token): string {
  // A token holds no whitespace: a one-word span, most evidence, is its text as it is.
  const written = text.slice(from.start, to.end);
  return from === to ? written : written.replace(/\s+/g, ' ');
}
