/**
 * Keyword matching for scoring rules: case-insensitive, on word boundaries that know letters beyond
 * ASCII ("Fehler" in "Fehlermeldung" is not a word match; "café" ends at the é).
 */

const NOT_WORD_BEFORE = '(?<![\\p{L}\\p{N}_])';
const NOT_WORD_AFTER = '(?![\\p{L}\\p{N}_])';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** Curly apostrophes and full-width letters are how phones type "doesn't" and "ERROR". */
function normalize(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .toLowerCase();
}

function patternOf(word: string): { pattern: string; length: number } | undefined {
  const normalized = normalize(word.trim());
  const prefix = normalized.endsWith('*');
  const stem = (prefix ? normalized.slice(0, -1) : normalized).trim();
  if (stem === '') return undefined;
  const body = stem.split(/\s+/).map(escapeRegExp).join('\\s+');
  return { pattern: prefix ? `${body}[\\p{L}\\p{N}]*` : body, length: stem.length };
}

/** One regex per word list; longer words first so "charged twice" wins over "charged" at the same place. */
export function compileWords(words: readonly string[]): RegExp | undefined {
  const patterns = words
    .map(patternOf)
    .filter((p) => p !== undefined)
    .sort((a, b) => b.length - a.length)
    .map((p) => p.pattern);
  if (patterns.length === 0) return undefined;
  return new RegExp(`${NOT_WORD_BEFORE}(?:${[...new Set(patterns)].join('|')})${NOT_WORD_AFTER}`, 'gu');
}

/**
 * Word lists come from the config and live as long as it does: each is compiled once, not per review
 * (compiling cost more than matching). matchAll() copies the regex, so sharing one is safe.
 */
const compiled = new WeakMap<readonly string[], RegExp | undefined>();

function compiledFor(words: readonly string[]): RegExp | undefined {
  if (!compiled.has(words)) compiled.set(words, compileWords(words));
  return compiled.get(words);
}

/**
 * The distinct words of `text` that match, as written in the text (lowercased, whitespace collapsed),
 * in order of first appearance: "crashes", not "crash*", is what a reader recognises.
 */
export function matchWords(text: string, words: readonly string[]): string[] {
  const regex = compiledFor(words);
  if (regex === undefined) return [];
  const found = new Set<string>();
  for (const match of normalize(text).matchAll(regex)) found.add(match[0].replace(/\s+/g, ' '));
  return [...found];
}
