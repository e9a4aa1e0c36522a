import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The shape of the hand-labelled sets the topic matcher is tuned on, so a bench reading them can trust
 * every line: reviews.jsonl, holdout-2.jsonl and holdout-3.jsonl, each of which joined the tuning set once it
 * had been measured (bench/README.md, "Topics"), and holdout-4.jsonl, held out: its shape is checked here, but
 * no figure of the tuning set counts it. How the labels were chosen is in test/fixtures/topics/LABELLING.md.
 */
const DIR = join(import.meta.dirname, '..', 'fixtures', 'topics');

/** The built-in taxonomy of issue 24, written out here so the set does not lean on the matcher's code. */
const TOPICS = [
  'billing',
  'bugs',
  'performance',
  'support',
  'setup',
  'integrations',
  'features',
  'data-loss',
  'uninstall',
  'usability',
] as const;

const MIN_REVIEWS = 1_000;
/** Enough reviews per topic that tuning its rules reads more than a handful of ways to say it. */
const MIN_PER_TOPIC = 60;
/** Enough of each topic in the held-out set that its per-topic figure is more than a handful. */
const MIN_HOLDOUT_PER_TOPIC = 20;

interface Labelled {
  id: string;
  rating: number;
  content: string;
  topics: string[];
  split: string;
}

function parse(file: string, line: string, index: number): Labelled {
  try {
    return JSON.parse(line) as Labelled;
  } catch (error) {
    throw new Error(`${file} line ${index + 1} is not JSON: ${(error as Error).message}`);
  }
}

function read(file: string): Labelled[] {
  return readFileSync(join(DIR, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => parse(file, line, index));
}

const first = read('reviews.jsonl');
const second = read('holdout-2.jsonl');
const third = read('holdout-3.jsonl');
const fourth = read('holdout-4.jsonl');
const reviews = [...first, ...second, ...third];
/** Every labelled line, the held-out file's included: what the shape checks read. */
const everyLine = [...reviews, ...fourth];
const withTopic = (topic: string, among: Labelled[] = reviews) =>
  among.filter((review) => review.topics.includes(topic)).length;

describe('the labelled topic set', () => {
  it('has one well-formed review per line', () => {
    const malformed = everyLine.filter(
      (r) =>
        Object.keys(r).sort().join(',') !== 'content,id,rating,split,topics' ||
        !/^[rhkm]\d{4}$/.test(r.id) ||
        !Number.isInteger(r.rating) ||
        r.rating < 1 ||
        r.rating > 5 ||
        typeof r.content !== 'string' ||
        r.content.trim() === '' ||
        !Array.isArray(r.topics) ||
        !['dev', 'holdout', 'holdout2', 'holdout3', 'holdout4'].includes(r.split),
    );
    expect(malformed.map((r) => r.id)).toEqual([]);
  });

  it('gives every review a unique id, and unique text within its file', () => {
    const ids = everyLine.map((r) => r.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    // Files written blind by different people share a few one-liners ("Scam.", "AVOID AVOID AVOID"),
    // as real review streams do; a text repeated within one file would be a copying slip.
    for (const file of [first, second, third, fourth]) {
      const texts = file.map((r) => r.content.trim().toLowerCase());
      expect(file.filter((_, i) => texts.indexOf(texts[i] as string) !== i).map((r) => r.id)).toEqual([]);
    }
  });

  it('uses only the ten built-in topics, each at most once per review', () => {
    const known = new Set<string>(TOPICS);
    const wrong = everyLine.filter(
      (r) => r.topics.some((t) => !known.has(t)) || new Set(r.topics).size !== r.topics.length,
    );
    expect(wrong.map((r) => `${r.id}: ${r.topics.join(', ')}`)).toEqual([]);
  });

  it(`holds at least ${MIN_REVIEWS} reviews, ${MIN_PER_TOPIC} per topic, and some with no topic`, () => {
    expect(reviews.length).toBeGreaterThanOrEqual(MIN_REVIEWS);
    const short = TOPICS.filter((t) => withTopic(t) < MIN_PER_TOPIC).map((t) => `${t}: ${withTopic(t)}`);
    expect(short).toEqual([]);
    expect(reviews.filter((r) => r.topics.length === 0).length).toBeGreaterThan(0);
  });

  it('keeps a held-out set that covers every topic', () => {
    const thin = TOPICS.filter((t) => withTopic(t, fourth) < MIN_HOLDOUT_PER_TOPIC).map(
      (t) => `${t}: ${withTopic(t, fourth)}`,
    );
    expect(thin).toEqual([]);
  });

  it("keeps each file's reviews apart by id and split, so the half and per-file figures can be told apart", () => {
    expect(second.every((r) => r.split === 'holdout2' && r.id.startsWith('h'))).toBe(true);
    expect(third.every((r) => r.split === 'holdout3' && r.id.startsWith('k'))).toBe(true);
    expect(fourth.every((r) => r.split === 'holdout4' && r.id.startsWith('m'))).toBe(true);
    expect(first.some((r) => (r.split !== 'dev' && r.split !== 'holdout') || /^[hkm]/.test(r.id))).toBe(
      false,
    );
  });
});
