/**
 * Whether a change to the matcher changes any review's topics: matches 41,408 texts with this checkout's
 * matcher and with another checkout's, under the built-in taxonomy and a custom one that uses every form of
 * the rule language, and compares the answers and the tokens. The texts: the labelled sets, 20,000
 * simulated reviews, 20,000 made of their words spliced with curly apostrophes, full-width letters,
 * possessives, "n't", prices, dotted names and every clause break, and 100 long ones made of 30 of those
 * each (bench/README.md, "Stored topics").
 *
 *   git worktree add /tmp/base <commit>      # the matcher to compare with
 *   npx tsx bench/topics-equivalence.ts --against /tmp/base
 *
 * Prints the first differences and their count; exits 1 when there is one. A change that keeps every answer
 * keeps MATCHER_VERSION (src/topics/compile.ts); one that does not must raise it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { makeReview } from '../src/simulator/data.js';
import { Rng } from '../src/simulator/random.js';
import * as ours from '../src/topics/index.js';
import { tokenize } from '../src/topics/text.js';

type Topics = typeof ours;
type Tokenize = typeof tokenize;

const { values } = parseArgs({ options: { against: { type: 'string' } } });
if (values.against === undefined) {
  console.error('usage: npx tsx bench/topics-equivalence.ts --against DIR (another checkout of reviewwatch)');
  process.exit(2);
}
const base = resolve(values.against);
const theirs = (await import(join(base, 'src/topics/index.ts'))) as Topics;
const theirTokenize = ((await import(join(base, 'src/topics/text.ts'))) as { tokenize: Tokenize }).tokenize;

const texts: string[] = [];
for (const file of readdirSync('test/fixtures/topics')) {
  if (!file.endsWith('.jsonl')) continue;
  for (const line of readFileSync(join('test/fixtures/topics', file), 'utf8').split('\n')) {
    if (line.includes('"content"')) texts.push((JSON.parse(line) as { content: string }).content);
  }
}
const labelled = texts.length;
const rng = new Rng(7);
for (let i = 0; i < 20_000; i++) {
  const review = { dayMs: 0, id: String(i), rating: 1 + (i % 5) };
  texts.push(makeReview(rng, { handle: 'a', title: 'Klaviyo Sync' }, review).review_content);
}
const words = texts.join(' ').split(/\s+/);
const ODD_WORDS = [
  ...["don't", 'doesn\u2019t', 'won\u02bct', "shouldn't", "n't", "app's", "APP'S", 's', "'s", "x's"],
  ...[
    '\u0130stanbul',
    'K\u212Aelvin',
    '\u00c9RROR',
    '\uFF25\uFF32\uFF32\uFF2F\uFF32',
    '$5',
    '$',
    '$$9',
    '\u20ac10',
  ],
  ...[
    '\u00a3',
    '2.3',
    'judge.me',
    'set-up',
    '-',
    '--',
    "''",
    '...',
    '\u2026',
    '\n\n',
    '\n',
    ';',
    ':',
    '?',
    '!',
  ],
  ...[', but', ', however', 'CRASH', 'Refunded', 'integrat', 'integrate', 'never', 'not', 'no', 'cant'],
  ...["ca'nt", '\u{1F600}', 'na\u00efve', 'caf\u00e9', 'x.', '.x', 'a-', '-a', "a'", "'a", '3.', '.5'],
];
const SEPARATORS = [
  ' ',
  ' ',
  ' ',
  ', ',
  '. ',
  '! ',
  '? ',
  '\n',
  '\n\n',
  ' - ',
  '; ',
  ': ',
  '\u2026',
  '  ',
  '\t',
];
SEPARATORS.push(',but ', ', but ', '.', '-', "'", '', '(', ')', '"', '/', '$');
const spliced = new Rng(99);
for (let i = 0; i < 20_000; i++) {
  let text = '';
  for (let k = 0, n = 1 + spliced.int(0, 60); k < n; k++) {
    let word = spliced.next() < 0.15 ? spliced.pick(ODD_WORDS) : spliced.pick(words);
    const change = spliced.next();
    if (change < 0.05) word = word.toUpperCase();
    else if (change < 0.08) word = word.replace("'", '\u2019');
    else if (change < 0.1) word = word.slice(0, Math.max(1, word.length - 2));
    else if (change < 0.11) word = `${word}'s`;
    else if (change < 0.12) word = word.replace(/e/g, '\u00e9');
    text += word + spliced.pick(SEPARATORS);
  }
  texts.push(text);
}

// Long reviews, whose spans are many and interleave their topics (sortedSpans and vetoes in match.ts).
const made = texts.length;
for (let i = 0; i < 100; i++) {
  texts.push(Array.from({ length: 30 }, () => texts[spliced.int(labelled, made - 1)] as string).join('\n\n'));
}

/** A taxonomy of every rule form: exact, prefix, nested prefixes, phrases, gaps, negations, clause start, vetoes. */
function custom(topics: Topics) {
  return topics.compileTaxonomy([
    {
      name: 'every-form',
      weight: 5,
      words: ['klaviyo', 'k*', 'integrat*', '=sync', '!work', '~issue', '^removed', 'took ... money'],
      unless: ["doesn't support", 'no ... crash*'],
    },
    {
      name: 'more',
      weight: 0,
      words: [
        'lost|deleted ... orders|products',
        'charged twice',
        'sync ... klaviyo',
        '!crash',
        'never replied',
      ],
    },
    { name: 'odd', weight: 0, words: ["n't", '$5', '2.3', 'judge.me', 'set-up', 'a*', 'ab*', 'abc*', 'app'] },
    ...topics.BUILT_IN_TOPICS.slice(0, 4),
  ]);
}

const started = performance.now();
let differences = 0;
function differ(what: string, text: string, theirAnswer: unknown, ourAnswer: unknown): void {
  const a = JSON.stringify(theirAnswer);
  const b = JSON.stringify(ourAnswer);
  if (a === b) return;
  differences += 1;
  if (differences <= 10) console.log(`${what}: ${JSON.stringify(text)}\n  theirs ${a}\n  ours   ${b}`);
}
const taxonomies = [
  ['built-in', theirs.BUILT_IN_TAXONOMY, ours.BUILT_IN_TAXONOMY],
  ['custom', custom(theirs), custom(ours)],
] as const;
for (const [name, their, our] of taxonomies) {
  if (their.version !== our.version) console.log(`${name}: the taxonomy's version differs`);
  for (const text of texts) differ(name, text, theirs.topicsOf(text, their), ours.topicsOf(text, our));
}
for (const text of texts) differ('tokens', text, theirTokenize(text), tokenize(text));
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `${texts.length} texts (${labelled} labelled) x ${taxonomies.length} taxonomies and tokens: ${differences} differences (${seconds} s)`,
);
process.exitCode = differences === 0 ? 0 : 1;
