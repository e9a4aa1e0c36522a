/**
 * How far two labellings of the same reviews agree: the second labeller's topics against the first's, as
 * precision and recall of one against the other, Cohen's kappa per topic, and how many reviews get the
 * same set. What the matcher's quality figures are measured against is only as good as this agreement.
 *
 *   npx tsx bench/topics-agreement.ts [--first PATH] [--second PATH]
 *
 * Defaults: holdout-2.jsonl and holdout-2.second-labeller.jsonl, labelled by two teammates from
 * test/fixtures/topics/LABELLING.md without seeing each other's labels (bench/README.md, "Holdout-3, measured once").
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BUILT_IN_TOPIC_NAMES } from '../src/topics/index.js';
import { readLabelled } from './topics-eval.js';

const FIXTURES = resolve(import.meta.dirname, '../test/fixtures/topics');
const { values: args } = parseArgs({
  options: {
    first: { type: 'string', default: resolve(FIXTURES, 'holdout-2.jsonl') },
    second: { type: 'string', default: resolve(FIXTURES, 'holdout-2.second-labeller.jsonl') },
  },
});

const first = new Map(readLabelled(args.first).map((r) => [r.id, new Set(r.topics)]));
const second = new Map(readLabelled(args.second).map((r) => [r.id, new Set(r.topics)]));
const missing = [...first.keys()].filter((id) => !second.has(id));
if (missing.length > 0 || first.size !== second.size) {
  throw new Error(`the two files label different reviews (${missing.length} of the first's ids missing)`);
}

const fixed = (x: number) => x.toFixed(2);
let both = 0;
let onlySecond = 0;
let onlyFirst = 0;
console.log('topic          P     R     kappa  both  only 2nd  only 1st');
for (const topic of BUILT_IN_TOPIC_NAMES) {
  const c = { both: 0, onlySecond: 0, onlyFirst: 0, neither: 0 };
  for (const [id, a] of first) {
    const inFirst = a.has(topic);
    const inSecond = (second.get(id) as Set<string>).has(topic);
    if (inFirst && inSecond) c.both += 1;
    else if (inSecond) c.onlySecond += 1;
    else if (inFirst) c.onlyFirst += 1;
    else c.neither += 1;
  }
  const n = first.size;
  const observed = (c.both + c.neither) / n;
  const chance =
    ((c.both + c.onlyFirst) / n) * ((c.both + c.onlySecond) / n) +
    ((c.neither + c.onlySecond) / n) * ((c.neither + c.onlyFirst) / n);
  const kappa = chance === 1 ? 1 : (observed - chance) / (1 - chance);
  console.log(
    `${topic.padEnd(13)} ${fixed(c.both / (c.both + c.onlySecond))}  ${fixed(c.both / (c.both + c.onlyFirst))}  ${fixed(kappa).padStart(5)}  ${String(c.both).padStart(4)}  ${String(c.onlySecond).padStart(8)}  ${String(c.onlyFirst).padStart(8)}`,
  );
  both += c.both;
  onlySecond += c.onlySecond;
  onlyFirst += c.onlyFirst;
}
console.log(
  `micro         ${fixed(both / (both + onlySecond))}  ${fixed(both / (both + onlyFirst))}         ${String(both).padStart(4)}  ${String(onlySecond).padStart(8)}  ${String(onlyFirst).padStart(8)}`,
);
const same = [...first].filter(([id, a]) => {
  const b = second.get(id) as Set<string>;
  return a.size === b.size && [...a].every((t) => b.has(t));
}).length;
console.log(`the same topics on ${same} of ${first.size} reviews`);
