/**
 * The inflected forms of an English word, written out rather than stemmed: "refund" gives refunds,
 * refunded, refunding; "charge" charges, charged, charging; "reply" replies, replied. A stemmer would
 * also fold words a topic must keep apart ("support" and "supports", "install" and "installment"),
 * so forms are generated per word of the rules and irregular ones are written into the rules
 * (docs/topics.md, "How words match"). Overgeneration ("stoped") is harmless: no review text is
 * mistaken for it except its own typo.
 */

const VOWEL = /[aeiou]/;

function endsConsonantVowelConsonant(word: string): boolean {
  const [a, b, c] = word.slice(-3);
  if (a === undefined || b === undefined || c === undefined) return false;
  return !VOWEL.test(a) && VOWEL.test(b) && !VOWEL.test(c) && !'wxy'.includes(c);
}

/** The word itself and its regular -s, -ed, -ing (and -es, -ies, doubled-consonant) forms. */
export function formsOf(word: string): string[] {
  const forms = new Set([word]);
  if (!/^[a-z]{3,}$/.test(word)) return [...forms];
  if (word.endsWith('e')) {
    const stem = word.slice(0, -1);
    forms.add(`${word}s`).add(`${word}d`).add(`${stem}ing`);
  } else if (/[^aeiou]y$/.test(word)) {
    const stem = word.slice(0, -1);
    forms.add(`${stem}ies`).add(`${stem}ied`).add(`${word}ing`);
  } else if (/(?:s|x|z|ch|sh)$/.test(word)) {
    forms.add(`${word}es`).add(`${word}ed`).add(`${word}ing`);
  } else {
    forms.add(`${word}s`).add(`${word}ed`).add(`${word}ing`);
    if (endsConsonantVowelConsonant(word)) {
      const last = word.slice(-1);
      forms.add(`${word}${last}ed`).add(`${word}${last}ing`);
    }
  }
  return [...forms];
}
