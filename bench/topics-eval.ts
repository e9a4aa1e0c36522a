/**
 * Scoring the topic matcher against the labelled set (test/fixtures/topics/reviews.jsonl, written by
 * hand by test/fixtures/topics/LABELLING.md): micro precision and recall over every (review, topic)
 * pair, and precision, recall and F1 per topic. Shared by bench/topics-quality.ts and the test that
 * keeps the dev split above the goal.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Taxonomy, topicsOf } from '../src/topics/index.js';

export interface LabelledReview {
  id: string;
  rating: number;
  content: string;
  topics: string[];
  split: string;
}

const FIXTURES = resolve(import.meta.dirname, '../test/fixtures/topics');

export const LABELLED_SET = resolve(FIXTURES, 'reviews.jsonl');

/**
 * The files the rules are tuned on: reviews.jsonl, then holdout-2.jsonl and holdout-3.jsonl, each of
 * which joined it once measured (bench/README.md, "Topics"). A later held-out set is measured on its
 * own, never added here.
 */
export const TUNING_SET: readonly string[] = [
  LABELLED_SET,
  resolve(FIXTURES, 'holdout-2.jsonl'),
  resolve(FIXTURES, 'holdout-3.jsonl'),
];

export function readLabelled(file = LABELLED_SET): LabelledReview[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as LabelledReview);
}

/** The reviews of several files, in the order given: one labelled set measured as a whole. */
export function readLabelledFiles(files: readonly string[]): LabelledReview[] {
  return files.flatMap((file) => readLabelled(file));
}

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

export interface TopicFigures extends Counts {
  topic: string;
  precision: number;
  recall: number;
  f1: number;
}

export interface Miss {
  id: string;
  topic: string;
  kind: 'extra' | 'missed';
  content: string;
  /** For an extra topic, the words that put it there. */
  words: string[];
}

export interface Evaluation {
  reviews: number;
  micro: TopicFigures;
  perTopic: TopicFigures[];
  misses: Miss[];
}

function figures(topic: string, c: Counts): TopicFigures {
  const precision = c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp);
  const recall = c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { topic, ...c, precision, recall, f1 };
}

export function evaluate(
  reviews: readonly LabelledReview[],
  taxonomy: Taxonomy,
  names: readonly string[],
): Evaluation {
  const counts = new Map(names.map((n) => [n, { tp: 0, fp: 0, fn: 0 }]));
  const misses: Miss[] = [];
  for (const review of reviews) {
    const found = new Map(topicsOf(review.content, taxonomy).map((t) => [t.name, t.words]));
    const wanted = new Set(review.topics);
    for (const name of names) {
      const c = counts.get(name) as Counts;
      const got = found.has(name);
      if (got && wanted.has(name)) c.tp += 1;
      else if (got) {
        c.fp += 1;
        misses.push({
          id: review.id,
          topic: name,
          kind: 'extra',
          content: review.content,
          words: found.get(name) ?? [],
        });
      } else if (wanted.has(name)) {
        c.fn += 1;
        misses.push({ id: review.id, topic: name, kind: 'missed', content: review.content, words: [] });
      }
    }
  }
  const total = { tp: 0, fp: 0, fn: 0 };
  for (const c of counts.values()) {
    total.tp += c.tp;
    total.fp += c.fp;
    total.fn += c.fn;
  }
  return {
    reviews: reviews.length,
    micro: figures('micro', total),
    perTopic: names.map((n) => figures(n, counts.get(n) as Counts)),
    misses,
  };
}
