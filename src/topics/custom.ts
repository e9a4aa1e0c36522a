/**
 * Custom topics from the config (`topics:`), compiled into the same taxonomy as the built-in ones:
 *
 * - a new name is a new topic: its `words` (required) in the rule language, its `weight` (default 0:
 *   it tags reviews without weighing their severity);
 * - a built-in name changes that topic: its `words` are added to the built-in rules, its `weight`
 *   replaces the built-in weight.
 *
 * Custom topics come after the built-in ones, in the config's order.
 */
import { BUILT_IN_TOPICS } from './builtin.js';
import {
  compilePattern,
  compileTaxonomy,
  type Taxonomy,
  type TopicDefinition,
  TopicRuleError,
} from './compile.js';

export interface CustomTopic {
  words?: readonly string[];
  weight?: number;
}

/** A problem with the custom topics; `path` is relative to `topics`. */
export interface CustomTopicProblem {
  path: Array<string | number>;
  message: string;
}

export const TOPIC_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_TOPIC_WEIGHT = 100;

/** What is wrong with custom topics; empty when `taxonomyWith` will accept them. */
export function customTopicProblems(
  custom: Readonly<Record<string, CustomTopic>>,
  base: readonly TopicDefinition[] = BUILT_IN_TOPICS,
): CustomTopicProblem[] {
  const problems: CustomTopicProblem[] = [];
  const builtIn = new Set(base.map((t) => t.name));
  for (const [name, topic] of Object.entries(custom)) {
    if (!TOPIC_NAME.test(name)) {
      problems.push({
        path: [name],
        message: 'a topic name is lowercase letters, digits and hyphens (e.g. dark-mode)',
      });
    }
    if (!builtIn.has(name) && (topic.words === undefined || topic.words.length === 0)) {
      problems.push({ path: [name, 'words'], message: 'a new topic needs at least one word' });
    }
    const weight = topic.weight;
    if (weight !== undefined && !(Number.isFinite(weight) && weight >= 0 && weight <= MAX_TOPIC_WEIGHT)) {
      problems.push({ path: [name, 'weight'], message: `must be between 0 and ${MAX_TOPIC_WEIGHT}` });
    }
    topic.words?.forEach((word, i) => {
      try {
        compilePattern(name, 0, word, false);
      } catch (err) {
        if (!(err instanceof TopicRuleError)) throw err;
        problems.push({ path: [name, 'words', i], message: 'matches nothing' });
      }
    });
  }
  return problems;
}

/** The built-in topics changed and extended by custom ones, as definitions (not yet compiled). */
export function definitionsWith(
  custom: Readonly<Record<string, CustomTopic>>,
  base: readonly TopicDefinition[] = BUILT_IN_TOPICS,
): TopicDefinition[] {
  const merged = base.map((topic) => {
    const change = custom[topic.name];
    if (change === undefined) return topic;
    return {
      ...topic,
      weight: change.weight ?? topic.weight,
      words: [...topic.words, ...(change.words ?? [])],
    };
  });
  const builtIn = new Set(base.map((t) => t.name));
  for (const [name, topic] of Object.entries(custom)) {
    if (builtIn.has(name)) continue;
    merged.push({ name, weight: topic.weight ?? 0, words: [...(topic.words ?? [])] });
  }
  return merged;
}

/**
 * Compiling takes about 10 ms; every part that reads the config (alerts, digest, inbox) asks for the
 * same taxonomy, so the last few are kept, keyed by what they were compiled from.
 */
const recent = new Map<string, Taxonomy>();
const KEEP = 8;

/**
 * The taxonomy a config gives. Throws `TopicRuleError` on topics `customTopicProblems` rejects: the
 * config validator reports those first, with their paths.
 */
export function taxonomyWith(
  custom: Readonly<Record<string, CustomTopic>>,
  base: readonly TopicDefinition[] = BUILT_IN_TOPICS,
): Taxonomy {
  const problem = customTopicProblems(custom, base)[0];
  if (problem !== undefined) {
    throw new TopicRuleError(String(problem.path[0]), problem.path.slice(1).join('.'), problem.message);
  }
  const definitions = definitionsWith(custom, base);
  const key = JSON.stringify(definitions);
  const known = recent.get(key);
  if (known !== undefined) return known;
  const taxonomy = compileTaxonomy(definitions);
  if (recent.size >= KEEP) recent.delete(recent.keys().next().value as string);
  recent.set(key, taxonomy);
  return taxonomy;
}
