/**
 * How the word-form handling was chosen (docs/stack-notes.md, "Topics"): the same topic rules matched
 * four ways on the dev split of the labelled set, with accuracy and throughput each.
 *
 *  - rules: the shipped matcher, forms written out per rule word (src/topics/forms.ts);
 *  - porter: every rule word and review word reduced to its Porter stem (npm `stemmer`);
 *  - wink: every word reduced to its lemma by wink-nlp with wink-eng-lite-web-model;
 *  - compromise: every word reduced to its root by compromise.
 *
 * The three libraries are not dependencies of reviewwatch. To run this, install them in a scratch
 * folder and point CANDIDATES at its node_modules:
 *
 *   (cd /tmp/c && npm i stemmer@2.0.1 wink-nlp@2.4.0 wink-eng-lite-web-model@1.8.1 compromise@14.17.0)
 *   CANDIDATES=/tmp/c/node_modules npx tsx bench/topics-candidates.mjs
 */
import { join } from 'node:path';
import { BUILT_IN_TOPIC_NAMES, BUILT_IN_TOPICS, compileTaxonomy, topicsOf } from '../src/topics/index.ts';
import { evaluate, readLabelled } from './topics-eval.ts';

const modules = process.env.CANDIDATES ?? '/tmp/topic-cands/node_modules';
const load = async (name, file) => import(join(modules, name, file));

const { stemmer } = await load('stemmer', 'index.js');
const winkNlp = (await load('wink-nlp', 'src/wink-nlp.js')).default;
const model = (await load('wink-eng-lite-web-model', 'dist/model.js')).default;
const nlp = winkNlp(model);
const its = nlp.its;
const nlpc = (await load('compromise', 'src/three.js')).default;

const WORD = /[\p{L}\p{N}]+(?:['\u2019][\p{L}]+)*/gu;

/** Rewrites every plain rule word through `reduce`, matched exactly; prefixes and vetoes alike. */
function reducedTopics(reduce) {
  const rewrite = (rule) =>
    rule
      .split(/(\s+)/)
      .map((part) =>
        /^\s+$/.test(part) || part === '...'
          ? part
          : part
              .split('|')
              .map((alt) => {
                const lead = alt.match(/^[!~^]*/)[0];
                const word = alt.slice(lead.length).replace(/^=/, '');
                if (word.endsWith('*') || !/^[a-z'-]+$/.test(word)) return alt;
                return `${lead}=${reduce(word)}`;
              })
              .join('|'),
      )
      .join('');
  return BUILT_IN_TOPICS.map((t) => ({
    ...t,
    words: t.words.map(rewrite),
    unless: (t.unless ?? []).map(rewrite),
  }));
}

const candidates = {
  rules: { text: (t) => t, topics: BUILT_IN_TOPICS },
  porter: { text: (t) => t.replace(WORD, (w) => stemmer(w.toLowerCase())), topics: reducedTopics(stemmer) },
  wink: {
    text: (t) => nlp.readDoc(t).tokens().out(its.lemma).join(' '),
    topics: reducedTopics((w) => nlp.readDoc(w).tokens().out(its.lemma)[0] ?? w),
  },
  compromise: {
    text: (t) => nlpc(t).compute('root').text('root'),
    topics: reducedTopics((w) => nlpc(w).compute('root').text('root') || w),
  },
};

const dev = readLabelled().filter((r) => r.split === 'dev');
for (const [name, c] of Object.entries(candidates)) {
  const taxonomy = compileTaxonomy(c.topics);
  const reduced = dev.map((r) => ({ ...r, content: c.text(r.content) }));
  const { micro } = evaluate(reduced, taxonomy, BUILT_IN_TOPIC_NAMES);
  let done = 0;
  const started = performance.now();
  while (performance.now() - started < 2_000) {
    for (const r of dev) topicsOf(c.text(r.content), taxonomy);
    done += dev.length;
  }
  const perSecond = Math.round(done / ((performance.now() - started) / 1_000));
  console.log(
    `${name.padEnd(11)} P ${micro.precision.toFixed(2)}  R ${micro.recall.toFixed(2)}  F1 ${micro.f1.toFixed(2)}  ${perSecond.toLocaleString('en')} reviews/s`,
  );
}
