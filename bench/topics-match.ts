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
 *
 * `--between N` writes N random cache lines of a 16 MB buffer before each text and times only the matching,
 * as a poll's other work leaves the caches between two reviews (bench/README.md, "Stored topics"):
 *
 *   npx tsx bench/topics-match.ts --reps 8 --between 2000
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { makeReview } from '../src/simulator/data.js';
import { Rng } from '../src/simulator/random.js';
import { BUILT_IN_TAXONOMY, topicsOf } from '../src/topics/index.js';

const { values } = parseArgs({
  options: { reps: { type: 'string', default: '25' }, between: { type: 'string', default: '0' } },
});
const REPS = Number(values.reps);
const BETWEEN = Number(values.between);
const rng = new Rng(42);
const texts: string[] = [];
for (let i = 0; i < 1000; i++) {
  const review = { dayMs: 0, id: String(i), rating: 1 + (i % 5) };
  texts.push(makeReview(rng, { handle: 'app', title: 'App' }, review).review_content);
}
for (const line of readFileSync('test/fixtures/topics/reviews.jsonl', 'utf8').split('\n')) {
  if (line.trim() !== '') texts.push((JSON.parse(line) as { content: string }).content);
}

const junk = new Int32Array(4 * 1024 * 1024);
let state = 1;
/** Writes `lines` random cache lines of `junk`: what else a process does between two reviews. */
function evict(lines: number): void {
  for (let i = 0; i < lines; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const at = (state >>> 4) % junk.length;
    junk[at] = (junk[at] as number) + 1;
  }
}

// Once untimed first: the figures are of the matcher once V8 has optimized it.
for (const text of texts) topicsOf(text, BUILT_IN_TAXONOMY);
let topics = 0;
let ms = 0;
for (let rep = 0; rep < REPS; rep++) {
  for (const text of texts) {
    if (BETWEEN > 0) evict(BETWEEN);
    const started = performance.now();
    topics += topicsOf(text, BUILT_IN_TAXONOMY).length;
    ms += performance.now() - started;
  }
}
const between = BETWEEN > 0 ? `, ${BETWEEN} cache lines written between texts` : '';
console.log(
  `${texts.length} texts x ${REPS}${between}: ${topics} topics, ${((ms * 1000) / (texts.length * REPS)).toFixed(1)} µs a text`,
);
