/**
 * What makes a low review urgent, as data a config can override (`alerts.scoring`). The defaults are
 * tuned so a plain 1-star review is medium, one with a concrete complaint high, and one where money or
 * data is at stake, from a long-time customer who is leaving, critical.
 */

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
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

// "email*" is deliberately absent from support: reviews of email-marketing apps say "emails" about the
// product itself. A bare "deleted" is too: "I deleted the app" is churn, not lost data.
export const DEFAULT_SCORING_RULES: ScoringRules = deepFreeze({
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

/**
 * What is wrong with overrides once merged onto `defaults`, for the config validator to report next to
 * its own type checks. Empty when `mergeScoringRules` will accept them.
 */
export function scoringOverridesProblems(
  defaults: ScoringRules,
  overrides: ScoringOverrides,
): ScoringProblem[] {
  const problems: ScoringProblem[] = [];
  for (const [key, group] of Object.entries(overrides.keywordGroups ?? {})) {
    const base = defaults.keywordGroups[key];
    const path = ['keywordGroups', key];
    if (base === undefined) {
      if (group.weight === undefined)
        problems.push({ path: [...path, 'weight'], message: 'required for a new group' });
      if (group.words === undefined)
        problems.push({ path: [...path, 'words'], message: 'required for a new group' });
    }
    const weight = group.weight ?? base?.weight;
    if (weight !== undefined && !(Number.isFinite(weight) && weight >= 0 && weight <= MAX_GROUP_WEIGHT)) {
      problems.push({ path: [...path, 'weight'], message: `must be between 0 and ${MAX_GROUP_WEIGHT}` });
    }
    group.words?.forEach((word, i) => {
      if (!usableWord(word)) problems.push({ path: [...path, 'words', i], message: 'matches nothing' });
    });
    if (group.words !== undefined && group.words.length === 0 && (weight ?? 0) > 0) {
      problems.push({
        path: [...path, 'words'],
        message: 'a group with a weight needs at least one word (set weight: 0 to disable it)',
      });
    }
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

/**
 * Applies config overrides: a listed group's fields replace the default's (its `words` replace the
 * default words, they do not extend them), a new key adds a group, weight 0 disables one. Throws on
 * overrides `scoringOverridesProblems` rejects, so invalid rules never reach scoring.
 */
export function mergeScoringRules(defaults: ScoringRules, overrides: ScoringOverrides = {}): ScoringRules {
  const problems = scoringOverridesProblems(defaults, overrides);
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
  return { keywordGroups, priorities: { ...defaults.priorities, ...overrides.priorities } };
}
