/**
 * The topic matcher against the hand-labelled set: micro precision and recall, and P/R/F1 per topic.
 * The tuning set is reviews.jsonl, holdout-2.jsonl and holdout-3.jsonl, 1,008 reviews (`--set tuning`,
 * the default); a held-out figure comes from another file, measured once (`--file PATH --split NAME`).
 *
 *   npx tsx bench/topics-quality.ts [--set tuning] [--file PATH]... [--split all|dev|holdout|both|NAME]
 *                                   [--half odd|even] [--misses]
 *
 * `--file` may be repeated: the files are measured as one set, with throughput over all their reviews.
 * `--half` keeps the reviews of odd or even id, for tuning on one half and checking on the other.
 * `--misses` prints every wrong (review, topic) pair of the split with the words that put it there:
 * what tuning reads. Goal (issue 24): precision >= 0.85, recall >= 0.80.
 */
import { parseArgs } from 'node:util';
import { BUILT_IN_TAXONOMY, BUILT_IN_TOPIC_NAMES, topicsOf } from '../src/topics/index.js';
import { type Evaluation, evaluate, readLabelledFiles, TUNING_SET } from './topics-eval.js';

const { values: args } = parseArgs({
  options: {
    split: { type: 'string', default: 'all' },
    half: { type: 'string' },
    misses: { type: 'boolean', default: false },
    file: { type: 'string', multiple: true },
    set: { type: 'string' },
  },
});

const SETS: Record<string, readonly string[]> = { tuning: TUNING_SET };
if (args.set !== undefined && SETS[args.set] === undefined) throw new Error('--set is tuning');
const files = [...(args.set === undefined ? [] : (SETS[args.set] ?? [])), ...(args.file ?? [])];

const pct = (x: number) => x.toFixed(2);

function print(name: string, e: Evaluation): void {
  console.log(`\n${name}: ${e.reviews} reviews`);
  console.log('topic          P     R     F1    TP   FP   FN');
  for (const t of [...e.perTopic, e.micro]) {
    console.log(
      `${t.topic.padEnd(13)} ${pct(t.precision)}  ${pct(t.recall)}  ${pct(t.f1)}  ${String(t.tp).padStart(3)}  ${String(t.fp).padStart(3)}  ${String(t.fn).padStart(3)}`,
    );
  }
  const goal = e.micro.precision >= 0.85 && e.micro.recall >= 0.8 ? 'meets' : 'misses';
  console.log(`goal P >= 0.85, R >= 0.80: ${goal}`);
}

const all = readLabelledFiles(files.length === 0 ? TUNING_SET : files);
const parity = { odd: 1, even: 0 }[args.half ?? ''];
if (args.half !== undefined && parity === undefined) throw new Error('--half is odd or even');
const inHalf = (id: string) => parity === undefined || Number(id.slice(1)) % 2 === parity;
const splits = args.split === 'both' ? ['dev', 'holdout'] : [args.split];
for (const split of splits) {
  const reviews = all.filter((r) => (split === 'all' || r.split === split) && inHalf(r.id));
  const result = evaluate(reviews, BUILT_IN_TAXONOMY, BUILT_IN_TOPIC_NAMES);
  print(args.half === undefined ? split : `${split}, ${args.half} ids`, result);
  if (args.misses) {
    for (const m of result.misses) {
      const why = m.kind === 'extra' ? ` <- ${JSON.stringify(m.words)}` : '';
      console.log(`${m.id} ${m.kind === 'extra' ? '+' : '-'}${m.topic}${why}: ${m.content}`);
    }
  }
}

// Throughput: every review of the file, repeated until a second has passed.
const texts = all.map((r) => r.content);
let done = 0;
const started = performance.now();
while (performance.now() - started < 1_000) {
  for (const text of texts) topicsOf(text, BUILT_IN_TAXONOMY);
  done += texts.length;
}
const seconds = (performance.now() - started) / 1_000;
console.log(`\nthroughput: ${Math.round(done / seconds).toLocaleString('en')} reviews/s (one core)`);
