/**
 * What makes a low review urgent, as data a config can override (`alerts.scoring`, `topics`). The
 * defaults are tuned so a plain 1-star review is medium, one with a concrete complaint high, and one
 * where money or data is at stake, from a long-time customer who is leaving, critical.
 *
 * A review's topics (src/topics/) weigh its severity: each topic found adds its weight once. The
 * keyword groups of earlier configs are the same concept now
 * (docs/configuration.md#from-keyword-groups-to-topics): a built-in group's weight is its topic's
 * weight, a group of one's own is a custom topic, and a built-in group's words, which replaced the
 * defaults, are refused with the rewrite.
 */
import {
  BUILT_IN_TAXONOMY,
  type CustomTopic,
  customTopicProblems,
  type Taxonomy,
  taxonomyWith,
} from '../topics/index.js';

/**
 * Words match case-insensitively on word boundaries. A word may be a phrase ("charged twice", any
 * whitespace between its words) or end with `*` to match as a prefix ("crash*" matches "crashes").
 */
export interface KeywordGroup {
  /** Named in reasons: "mentions {label}: refund, charged". */
  label: string;
  /** Points added once when any word matches; 0 disables the group. */
  weight: number;
  words: string[];
}

export interface ScoringPriorities {
  critical: number;
  high: number;
  medium: number;
}

export interface ScoringRules {
  /** The topics that weigh a review, with their weights: built-in and custom. */
  topics: Taxonomy;
  /**
   * The keyword groups as configured, merged onto the old defaults. Scoring no longer reads them;
   * they remain for the inbox's chips until those show topics.
   * @deprecated read `topics`.
   */
  keywordGroups: Record<string, KeywordGroup>;
  /** Score cut-offs (at or above); below `medium` is low. */
  priorities: ScoringPriorities;
}

/** The shape of `alerts.scoring` in the config: every part optional. */
export interface ScoringOverrides {
  keywordGroups?: Record<string, Partial<KeywordGroup>>;
  priorities?: Partial<ScoringPriorities>;
}

/** A problem with overrides; `path` is relative to `alerts.scoring`. */
export interface ScoringProblem {
  path: Array<string | number>;
  message: string;
}

export const MAX_GROUP_WEIGHT = 100;

function deepFreeze<T>(value: T): T {
  // A typed array cannot be frozen: the taxonomy's lexicon holds them, never written after it is built.
  if (value !== null && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

// "email*" is deliberately absent from support: reviews of email-marketing apps say "emails" about the
// product itself. A bare "deleted" is too: "I deleted the app" is churn, not lost data.
export const DEFAULT_SCORING_RULES: ScoringRules = deepFreeze({
  topics: BUILT_IN_TAXONOMY,
  keywordGroups: {
    billing: {
      label: 'billing',
      weight: 25,
      words: [
        'refund*',
        'charged',
        'charged twice',
        'double charged',
        'overcharg*',
        'billing',
        'billed',
        'invoice*',
        'subscription',
        'cancel*',
        'money',
        'scam*',
        'fraud*',
      ],
    },
    dataLoss: {
      label: 'data loss',
      weight: 25,
      words: [
        'lost',
        'deleted my',
        'deleted all',
        'deleted our',
        'deleted everything',
        'got deleted',
        'was deleted',
        'were deleted',
        'been deleted',
        'data loss',
        'disappeared',
        'vanished',
        'wiped',
        'missing orders',
        'missing products',
        'missing data',
        'overwrote',
        'overwritten',
      ],
    },
    bugs: {
      label: 'bugs',
      weight: 15,
      words: [
        'bug*',
        'crash*',
        'broken',
        'broke',
        'error*',
        "doesn't work",
        'does not work',
        "didn't work",
        'not working',
        'stopped working',
        'glitch*',
        'freez*',
        'froze',
        'slow',
      ],
    },
    support: {
      label: 'support',
      weight: 15,
      words: [
        'support',
        'customer service',
        'no response',
        'no reply',
        'no answer',
        'never replied',
        'never responded',
        'never answered',
        'never heard back',
        'ignored',
        'unanswered',
        'unresponsive',
        'contacted',
        'emailed',
        'reached out',
      ],
    },
    churn: {
      label: 'churn',
      weight: 15,
      words: [
        'uninstall*',
        'switched to',
        'switching to',
        'moving to',
        'moved to',
        'alternative*',
        'went with',
        'competitor*',
        'removed the app',
        'removing the app',
        'deleted the app',
      ],
    },
  },
  priorities: { critical: 80, high: 60, medium: 35 },
});

/** A word that can match something: not empty, not a bare `*`. */
function usableWord(word: string): boolean {
  return word.replace(/\*$/, '').trim() !== '';
}

/** The built-in keyword groups of earlier configs and the topics they are now. */
export const GROUP_TOPICS: Readonly<Record<string, string>> = Object.freeze({
  billing: 'billing',
  dataLoss: 'data-loss',
  bugs: 'bugs',
  support: 'support',
  churn: 'uninstall',
});

/** The topic name a group of one's own becomes: `dataLoss` is `data-loss`, `Late Shipping` `late-shipping`. */
export function topicNameOfGroup(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function yamlList(words: readonly string[]): string {
  return `[${words.map((w) => JSON.stringify(w)).join(', ')}]`;
}

/** A built-in group's words replaced its defaults; a topic's words add to its rules: say how to rewrite. */
function rewriteOfBuiltInWords(key: string, group: Partial<KeywordGroup>, topic: string): string {
  const weight = group.weight === undefined ? '' : `, weight: ${group.weight}`;
  return (
    `keyword groups are topics now, and the built-in topic "${topic}" has rules of its own that these ` +
    `words can no longer replace. Write them under topics instead, where they add to its rules: ` +
    `"topics: { ${topic}: { words: ${yamlList(group.words ?? [])}${weight} } }", ` +
    `then delete alerts.scoring.keywordGroups.${key}`
  );
}

function groupProblems(
  defaults: ScoringRules,
  key: string,
  group: Partial<KeywordGroup>,
  topics: Readonly<Record<string, CustomTopic>>,
): ScoringProblem[] {
  const problems: ScoringProblem[] = [];
  const base = defaults.keywordGroups[key];
  const path = ['keywordGroups', key];
  const builtInTopic = GROUP_TOPICS[key];
  if (builtInTopic !== undefined && base !== undefined) {
    // An empty list with weight 0 was how a group was turned off; the weight alone does that now.
    if (group.words !== undefined && group.words.length > 0) {
      problems.push({ path: [...path, 'words'], message: rewriteOfBuiltInWords(key, group, builtInTopic) });
    }
    if (group.weight !== undefined && topics[builtInTopic]?.weight !== undefined) {
      problems.push({
        path: [...path, 'weight'],
        message: `the topic "${builtInTopic}" has its weight in topics.${builtInTopic}.weight too: keep that one and delete this`,
      });
    }
  } else if (base === undefined) {
    if (group.weight === undefined)
      problems.push({ path: [...path, 'weight'], message: 'required for a new group' });
    if (group.words === undefined)
      problems.push({ path: [...path, 'words'], message: 'required for a new group' });
    const name = topicNameOfGroup(key);
    if (name === '' || topics[name] !== undefined || defaults.topics.topics.some((t) => t.name === name)) {
      problems.push({
        path,
        message:
          `a group is a topic now, and this one would be the topic "${name}", which already exists: ` +
          `move its words to topics.${name || 'NAME'}.words and delete alerts.scoring.keywordGroups.${key}`,
      });
    }
  }
  const weight = group.weight ?? base?.weight;
  if (weight !== undefined && !(Number.isFinite(weight) && weight >= 0 && weight <= MAX_GROUP_WEIGHT)) {
    problems.push({ path: [...path, 'weight'], message: `must be between 0 and ${MAX_GROUP_WEIGHT}` });
  }
  group.words?.forEach((word, i) => {
    if (!usableWord(word)) problems.push({ path: [...path, 'words', i], message: 'matches nothing' });
  });
  if (base === undefined && group.words !== undefined && group.words.length === 0 && (weight ?? 0) > 0) {
    problems.push({
      path: [...path, 'words'],
      message: 'a group with a weight needs at least one word (set weight: 0 to disable it)',
    });
  }
  return problems;
}

/**
 * What is wrong with overrides once merged onto `defaults`, for the config validator to report next to
 * its own type checks. Empty when `mergeScoringRules` will accept them. `topics` are the config's
 * custom topics, which keyword groups must not contradict (their own problems are
 * `customTopicProblems`', reported under `topics`).
 */
export function scoringOverridesProblems(
  defaults: ScoringRules,
  overrides: ScoringOverrides,
  topics: Readonly<Record<string, CustomTopic>> = {},
): ScoringProblem[] {
  const problems: ScoringProblem[] = [];
  for (const [key, group] of Object.entries(overrides.keywordGroups ?? {})) {
    problems.push(...groupProblems(defaults, key, group, topics));
  }
  const p = { ...defaults.priorities, ...overrides.priorities };
  const order: Array<keyof ScoringPriorities> = ['critical', 'high', 'medium'];
  for (const [i, name] of order.entries()) {
    const value = p[name];
    if (!(Number.isFinite(value) && value > 0 && value <= 100)) {
      problems.push({ path: ['priorities', name], message: 'must be a score above 0 and at most 100' });
      continue;
    }
    const above = order[i - 1];
    if (above !== undefined && value >= p[above]) {
      problems.push({ path: ['priorities', name], message: `must be below ${above} (${p[above]})` });
    }
  }
  return problems;
}

/** Keyword groups as the custom topics they are now, with the config's own topics over them. */
export function topicsOfOverrides(
  overrides: ScoringOverrides,
  topics: Readonly<Record<string, CustomTopic>> = {},
): Record<string, CustomTopic> {
  const custom: Record<string, CustomTopic> = {};
  for (const [key, group] of Object.entries(overrides.keywordGroups ?? {})) {
    const builtIn = GROUP_TOPICS[key];
    if (builtIn !== undefined) {
      if (group.weight !== undefined) custom[builtIn] = { weight: group.weight };
    } else {
      custom[topicNameOfGroup(key)] = { words: group.words ?? [], weight: group.weight ?? 0 };
    }
  }
  for (const [name, topic] of Object.entries(topics)) {
    const before = custom[name];
    custom[name] = {
      ...before,
      ...topic,
      ...(topic.weight === undefined && before ? { weight: before.weight } : {}),
    };
  }
  return custom;
}

/**
 * Applies config overrides: a built-in group's weight becomes its topic's, a new group becomes a custom
 * topic, `topics` adds custom topics and changes built-in ones (src/topics/custom.ts). Throws on
 * overrides `scoringOverridesProblems` or `customTopicProblems` reject, so invalid rules never reach
 * scoring.
 */
export function mergeScoringRules(
  defaults: ScoringRules,
  overrides: ScoringOverrides = {},
  topics: Readonly<Record<string, CustomTopic>> = {},
): ScoringRules {
  const problems = [
    ...scoringOverridesProblems(defaults, overrides, topics),
    ...customTopicProblems(topics, defaults.topics.topics).map((p) => ({
      ...p,
      path: ['topics', ...p.path],
    })),
  ];
  if (problems.length > 0) {
    const lines = problems.map((p) => `${p.path.join('.')}: ${p.message}`);
    throw new Error(`invalid scoring rules: ${lines.join('; ')}`);
  }
  const keywordGroups: Record<string, KeywordGroup> = {};
  for (const [key, group] of Object.entries(defaults.keywordGroups)) {
    keywordGroups[key] = { ...group, words: [...group.words] };
  }
  for (const [key, group] of Object.entries(overrides.keywordGroups ?? {})) {
    const base = keywordGroups[key];
    keywordGroups[key] = {
      label: group.label ?? base?.label ?? key,
      weight: group.weight ?? base?.weight ?? 0,
      words: [...(group.words ?? base?.words ?? [])],
    };
  }
  const custom = topicsOfOverrides(overrides, topics);
  const taxonomy =
    Object.keys(custom).length === 0 ? defaults.topics : taxonomyWith(custom, defaults.topics.topics);
  return { topics: taxonomy, keywordGroups, priorities: { ...defaults.priorities, ...overrides.priorities } };
}
