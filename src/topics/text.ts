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
  /** Increments at . ! ? ; : and blank lines, and at ", but" (and however, though, although). */
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
  return word.endsWith("'s") ? word.slice(0, -2) : word;
}

/** A "." between digits or letters joins a token ("2.3", "judge.me"); at a token's end it breaks. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let clause = 0;
  let last = 0;
  for (const match of text.matchAll(WORD)) {
    const start = match.index;
    if (CLAUSE_BREAK.test(text.slice(last, start))) clause += 1;
    tokens.push({ norm: normalizeWord(match[0]), start, end: start + match[0].length, clause });
    last = start + match[0].length;
  }
  return tokens;
}

/** The text between two tokens as written, whitespace collapsed: what a reader finds in the review. */
export function spanText(text: string, from: Token, to: Token): string {
  return text.slice(from.start, to.end).replace(/\s+/g, ' ');
}
