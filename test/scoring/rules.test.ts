import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SCORING_RULES,
  mergeScoringRules,
  type ScoringRules,
  scoreReview,
  scoringOverridesProblems,
} from '../../src/scoring/index.js';

function reasons(rules: ScoringRules, rating: number, content: string): string[] {
  return scoreReview({ rating, content, timeUsingApp: '' }, rules).reasons;
}

describe('DEFAULT_SCORING_RULES', () => {
  it('weighs the built-in topics, the five of the old keyword groups most, with descending cut-offs', () => {
    const weights = Object.fromEntries(DEFAULT_SCORING_RULES.topics.topics.map((t) => [t.name, t.weight]));
    expect(weights).toEqual({
      billing: 25,
      bugs: 15,
      performance: 10,
      support: 15,
      setup: 0,
      integrations: 10,
      features: 0,
      'data-loss': 25,
      uninstall: 15,
      usability: 0,
    });
    const { critical, high, medium } = DEFAULT_SCORING_RULES.priorities;
    expect(critical).toBeGreaterThan(high);
    expect(high).toBeGreaterThan(medium);
  });

  it('cannot be changed by accident', () => {
    expect(() => {
      (DEFAULT_SCORING_RULES.topics.topics[0] as { weight: number }).weight = 0;
    }).toThrow(TypeError);
    expect(() => DEFAULT_SCORING_RULES.keywordGroups.bugs?.words.push('meh')).toThrow(TypeError);
  });
});

describe('mergeScoringRules', () => {
  it("keeps an old config's group weight as its topic's, and leaves the rest", () => {
    const rules = mergeScoringRules(DEFAULT_SCORING_RULES, { keywordGroups: { billing: { weight: 40 } } });
    const weight = (name: string) => rules.topics.topics.find((t) => t.name === name)?.weight;
    expect(weight('billing')).toBe(40);
    expect(weight('bugs')).toBe(15);
    expect(scoreReview({ rating: 1, content: 'refund please', timeUsingApp: '' }, rules).score).toBe(90);
    const churn = mergeScoringRules(DEFAULT_SCORING_RULES, { keywordGroups: { churn: { weight: 30 } } });
    expect(churn.topics.topics.find((t) => t.name === 'uninstall')?.weight).toBe(30);
  });

  it("refuses a built-in group's words, saying exactly how to write them as a topic", () => {
    expect(() =>
      mergeScoringRules(DEFAULT_SCORING_RULES, { keywordGroups: { bugs: { words: ['lag*'], weight: 20 } } }),
    ).toThrow(
      'keywordGroups.bugs.words: keyword groups are topics now, and the built-in topic "bugs" has rules of ' +
        'its own that these words can no longer replace. Write them under topics instead, where they add to ' +
        'its rules: "topics: { bugs: { words: ["lag*"], weight: 20 } }", then delete ' +
        'alerts.scoring.keywordGroups.bugs',
    );
    // The rewrite it asks for works: the words add to the built-in rules.
    const rules = mergeScoringRules(DEFAULT_SCORING_RULES, {}, { bugs: { words: ['lag*'], weight: 20 } });
    expect(reasons(rules, 2, 'It crashes')).toEqual(['2 stars', 'mentions bugs: crashes']);
    expect(reasons(rules, 2, 'Lagging all day')).toContain('mentions bugs: lagging');
  });

  it('adds custom topics from the config, and refuses a group that would be one twice', () => {
    const rules = mergeScoringRules(
      DEFAULT_SCORING_RULES,
      {},
      { 'dark-mode': { words: ['dark mode'], weight: 10 } },
    );
    expect(reasons(rules, 3, 'Please add dark mode')).toEqual(['3 stars', 'mentions dark-mode: dark mode']);
    const tagOnly = mergeScoringRules(DEFAULT_SCORING_RULES, {}, { 'dark-mode': { words: ['dark mode'] } });
    expect(reasons(tagOnly, 3, 'Please add dark mode')).toEqual(['3 stars']);
    expect(() =>
      mergeScoringRules(
        DEFAULT_SCORING_RULES,
        { keywordGroups: { darkMode: { weight: 5, words: ['dark'] } } },
        { 'dark-mode': { words: ['dark mode'] } },
      ),
    ).toThrow('this one would be the topic "dark-mode", which already exists');
  });

  it('adds a group, named by its key when it has no label', () => {
    const rules = mergeScoringRules(DEFAULT_SCORING_RULES, {
      keywordGroups: {
        security: { label: 'security', weight: 30, words: ['hacked', 'data breach'] },
        gdpr: { weight: 5, words: ['gdpr'] },
      },
    });
    expect(reasons(rules, 3, 'Our store got hacked. GDPR nightmare')).toEqual([
      '3 stars',
      'mentions security: hacked',
      'mentions gdpr: gdpr',
    ]);
  });

  it('disables a group with weight 0', () => {
    const rules = mergeScoringRules(DEFAULT_SCORING_RULES, { keywordGroups: { churn: { weight: 0 } } });
    expect(rules.topics.topics.find((t) => t.name === 'uninstall')?.weight).toBe(0);
    const severity = scoreReview({ rating: 1, content: 'Uninstalling.', timeUsingApp: '' }, rules);
    expect(severity).toEqual({ score: 50, priority: 'medium', reasons: ['1 star'] });
  });

  it('overrides some priority cut-offs and keeps the others', () => {
    const rules = mergeScoringRules(DEFAULT_SCORING_RULES, { priorities: { critical: 95 } });
    expect(rules.priorities).toEqual({ ...DEFAULT_SCORING_RULES.priorities, critical: 95 });
  });

  it('never changes the defaults it merges onto', () => {
    const before = structuredClone(DEFAULT_SCORING_RULES);
    const rules = mergeScoringRules(DEFAULT_SCORING_RULES, {
      keywordGroups: { billing: { weight: 1 } },
      priorities: { medium: 30 },
    });
    rules.keywordGroups.bugs?.words.push('meh');
    expect(DEFAULT_SCORING_RULES).toEqual(before);
  });

  it('refuses overrides that would make nonsense, saying where', () => {
    expect(
      scoringOverridesProblems(DEFAULT_SCORING_RULES, {
        keywordGroups: { security: { words: ['hacked', '*'] }, bugs: { weight: 250, words: [] } },
        priorities: { high: 90 },
      }),
    ).toEqual([
      { path: ['keywordGroups', 'security', 'weight'], message: 'required for a new group' },
      { path: ['keywordGroups', 'security', 'words', 1], message: 'matches nothing' },
      { path: ['keywordGroups', 'bugs', 'weight'], message: 'must be between 0 and 100' },
      { path: ['priorities', 'high'], message: 'must be below critical (80)' },
    ]);
    expect(scoringOverridesProblems(DEFAULT_SCORING_RULES, { priorities: { medium: 60 } })).toEqual([
      { path: ['priorities', 'medium'], message: 'must be below high (60)' },
    ]);
    expect(() => mergeScoringRules(DEFAULT_SCORING_RULES, { priorities: { medium: 0 } })).toThrow(
      'priorities.medium: must be a score above 0 and at most 100',
    );
    expect(
      scoringOverridesProblems(DEFAULT_SCORING_RULES, { keywordGroups: { bugs: { weight: 0, words: [] } } }),
    ).toEqual([]);
  });
});
