/**
 * The matcher's cost in machine instructions, which a busy machine does not change as it changes times:
 * matches 1,000 simulated reviews and the labelled set `--reps` times. Run it under callgrind twice and
 * divide the difference by the texts matched between, so that start-up and compilation cancel out
 * (bench/README.md, "Stored topics"):
 *
 *   npx esbuild bench/topics-match.ts --bundle --platform=node --format=esm --outfile=/tmp/match.mjs
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded --predictable \
 *     /tmp/match.mjs --reps 5      # then --reps 25: (Ir of 25 - Ir of 5) / (20 * 1,458)
 *
 * `--single-threaded --predictable` keep V8 from compiling and collecting on other threads, at moments that
 * differ from run to run.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { makeReview } from '../src/simulator/data.js';
import { Rng } from '../src/simulator/random.js';
import { BUILT_IN_TAXONOMY, topicsOf } from '../src/topics/index.js';

const { values } = parseArgs({ options: { reps: { type: 'string', default: '25' } } });
const rng = new Rng(42);
const texts: string[] = [];
for (let i = 0; i < 1000; i++) {
  const review = { dayMs: 0, id: String(i), rating: 1 + (i % 5) };
  texts.push(makeReview(rng, { handle: 'app', title: 'App' }, review).review_content);
}
for (const line of readFileSync('test/fixtures/topics/reviews.jsonl', 'utf8').split('\n')) {
  if (line.trim() !== '') texts.push((JSON.parse(line) as { content: string }).content);
}
let topics = 0;
const started = performance.now();
for (let rep = 0; rep < Number(values.reps); rep++)
  for (const text of texts) topics += topicsOf(text, BUILT_IN_TAXONOMY).length;
const ms = performance.now() - started;
console.log(
  `${texts.length} texts x ${values.reps}: ${topics} topics, ${((ms * 1000) / (texts.length * Number(values.reps))).toFixed(1)} µs a text`,
);
