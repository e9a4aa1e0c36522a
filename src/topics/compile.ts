/**
 * Topic rules compiled for matching. The rule language, for built-in and configured topics alike
 * (docs/topics.md, "How words match"):
 *
 * - `refund`: the word and its inflected forms (refunds, refunded, refunding);
 * - `=support`: that form only ("support", never "supports");
 * - `integrat*`: any word starting so (integration, integrates);
 * - `charged twice`: a phrase, word after word within one clause;
 * - `took ... money`: up to three other words where the `...` stands ("took all my money");
 * - `lost|deleted ... orders|products`: alternatives for one word;
 * - `!work`: evidence only after a negation ("doesn't work", "never worked");
 * - `~issue`: evidence unless negated ("issues", but not "no issues");
 * - `^removed`: only at the start of a sentence ("Removed after a day.").
 *
 * A topic's `unless` patterns veto its evidence where they overlap it: "doesn't support" (a missing
 * feature) is not evidence of support.
 */
import { createHash } from 'node:crypto';
import { formsOf } from './forms.js';
import { type Lexicon, lexiconOf } from './lexicon.js';
import { normalizeWord } from './text.js';

/** A topic as written: built in (src/topics/builtin.ts) or from the config's `topics:`. */
export interface TopicDefinition {
  /** Lowercase letters, digits and hyphens: it goes into URLs (`topic=data-loss`). */
  name: string;
  /** Severity points a review with this topic gets (0-100); 0 tags without weighing. */
  weight: number;
  /** Patterns in the rule language above, any of which puts a review in the topic. */
  words: readonly string[];
  /** Patterns whose matches cancel this topic's evidence they overlap. */
  unless?: readonly string[];
}

export type Negation = 'any' | 'required' | 'forbidden';

/** One word of a pattern: forms it accepts, or prefixes a form may start with. */
export interface Slot {
  forms: ReadonlySet<string>;
  prefixes: readonly string[];
  /** The slot's number within its taxonomy, from 0, in pattern order: what a word's role lists (lexicon.ts). */
  id: number;
}

export interface Pattern {
  /** Index of the topic in `Taxonomy.topics`. */
  topic: number;
  slots: readonly Slot[];
  /** Other words allowed before each slot (the first's is 0). */
  gaps: readonly number[];
  negation: Negation;
  /** Matches only at the first word of a clause. */
  clauseStart: boolean;
  /** A veto (`unless`) rather than evidence. */
  veto: boolean;
}

export interface Taxonomy {
  readonly topics: ReadonlyArray<Readonly<TopicDefinition>>;
  /**
   * A hash of every topic's name, weight and rules: stored beside a review's topics, a different one
   * means they were computed under other rules and must be computed again.
   */
  readonly version: string;
  /** The patterns as the matcher reads them. */
  readonly lexicon: Lexicon;
}

/** Words a pattern may skip at a `...`. */
export const GAP_WORDS = 3;

/** Thrown for a rule that cannot match anything; the message names the topic and the rule. */
export class TopicRuleError extends Error {
  constructor(
    readonly topic: string,
    readonly rule: string,
    reason: string,
  ) {
    super(`topic "${topic}": the rule "${rule}" ${reason}`);
    this.name = 'TopicRuleError';
  }
}

function slotOf(text: string, id: number): Slot | undefined {
  const forms = new Set<string>();
  const prefixes: string[] = [];
  for (const alternative of text.split('|')) {
    const word = alternative.trim();
    if (word.endsWith('*')) {
      const prefix = normalizeWord(word.slice(0, -1));
      if (prefix !== '') prefixes.push(prefix);
    } else if (word.startsWith('=')) {
      const exact = normalizeWord(word.slice(1));
      if (exact !== '') forms.add(exact);
    } else if (word !== '') {
      for (const form of formsOf(normalizeWord(word))) forms.add(form);
    }
  }
  return forms.size === 0 && prefixes.length === 0 ? undefined : { forms, prefixes, id };
}

/**
 * A rule as a pattern; throws `TopicRuleError` for one that matches nothing. Its slots are numbered on from
 * `firstSlot`: a taxonomy numbers all of its patterns' slots in one sequence.
 */
export function compilePattern(
  topicName: string,
  topic: number,
  rule: string,
  veto: boolean,
  firstSlot = 0,
): Pattern {
  let body = rule.trim();
  let negation: Negation = 'any';
  if (body.startsWith('!')) negation = 'required';
  if (body.startsWith('~')) negation = 'forbidden';
  if (negation !== 'any') body = body.slice(1);
  const clauseStart = body.startsWith('^');
  if (clauseStart) body = body.slice(1);
  const slots: Slot[] = [];
  const gaps: number[] = [];
  let gap = 0;
  for (const part of body.split(/\s+/).filter((p) => p !== '')) {
    if (part === '...' || part === '\u2026') {
      gap = GAP_WORDS;
      continue;
    }
    // Hyphens and apostrophes inside a word stay: the tokenizer keeps "set-up" and "doesn't" whole.
    const slot = slotOf(part, firstSlot + slots.length);
    if (slot === undefined) throw new TopicRuleError(topicName, rule, 'has a word that matches nothing');
    slots.push(slot);
    gaps.push(slots.length === 1 ? 0 : gap);
    gap = 0;
  }
  if (slots.length === 0) throw new TopicRuleError(topicName, rule, 'matches nothing');
  return { topic, slots, gaps, negation, clauseStart, veto };
}

/**
 * What the matcher itself does with a rule: tokenizing, word forms, negation, clauses (text.ts, forms.ts,
 * lexicon.ts, match.ts). Part of every taxonomy's version, so a release that changes how text matches,
 * with the same rules, still has stored reviews recomputed at start (store/topic-backfill.ts) rather than
 * trusted.
 * Raise it with any change to those files that can change a review's topics or words.
 */
export const MATCHER_VERSION = 2;

function versionOf(topics: readonly TopicDefinition[]): string {
  const canonical = JSON.stringify([
    MATCHER_VERSION,
    topics.map((t) => [t.name, t.weight, [...t.words], [...(t.unless ?? [])]]),
  ]);
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

/** Compiles topics in the order given, which is the order `topicsOf` reports them in. */
export function compileTaxonomy(topics: readonly TopicDefinition[]): Taxonomy {
  const names = new Set<string>();
  const patterns: Pattern[] = [];
  let slots = 0;
  const add = (topic: TopicDefinition, i: number, rule: string, veto: boolean) => {
    const pattern = compilePattern(topic.name, i, rule, veto, slots);
    slots += pattern.slots.length;
    patterns.push(pattern);
  };
  topics.forEach((topic, i) => {
    if (names.has(topic.name)) throw new TopicRuleError(topic.name, '', 'is defined twice');
    names.add(topic.name);
    for (const rule of topic.words) add(topic, i, rule, false);
    for (const rule of topic.unless ?? []) add(topic, i, rule, true);
  });
  const frozen = topics.map((t) =>
    Object.freeze({ ...t, words: [...t.words], ...(t.unless ? { unless: [...t.unless] } : {}) }),
  );
  return Object.freeze({
    topics: frozen,
    version: versionOf(topics),
    lexicon: lexiconOf(
      patterns,
      topics.map((t) => t.name),
    ),
  });
}
