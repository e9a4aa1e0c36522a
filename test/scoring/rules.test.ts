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
  it('has the five groups with descending priority cut-offs', () => {
    expect(Object.keys(DEFAULT_SCORING_RULES.keywordGroups)).toEqual([
      'billing',
      'dataLoss',
      'bugs',
      'support',
      'churn',
    ]);
    const { critical, high, medium } = DEFAULT_SCORING_RULES.priorities;
    expect(critical).toBeGreaterThan(high);
    expect(high).toBeGreaterThan(medium);
  });

  it('cannot be changed by accident', () => {
    expect(() => {
      (DEFAULT_SCORING_RULES.keywordGroups.billing as { weight: number }).weight = 0;
    }).toThrow(TypeError);
    expect(() => DEFAULT_SCORING_RULES.keywordGroups.bugs?.words.push('meh')).toThrow(TypeError);
  });
});

describe('mergeScoringRules', () => {
  it('changes one group weight and leaves the rest', () => {
    const rules = mergeScoringRules(DEFAULT_SCORING_RULES, { keywordGroups: { billing: { weight: 40 } } });
    expect(rules.keywordGroups.billing).toEqual({
      ...DEFAULT_SCORING_RULES.keywordGroups.billing,
      weight: 40,
    });
    expect(rules.keywordGroups.bugs).toEqual(DEFAULT_SCORING_RULES.keywordGroups.bugs);
    expect(scoreReview({ rating: 1, content: 'refund please', timeUsingApp: '' }, rules).score).toBe(90);
  });

  it('replaces a group words', () => {
    const rules = mergeScoringRules(DEFAULT_SCORING_RULES, { keywordGroups: { bugs: { words: ['lag*'] } } });
    expect(reasons(rules, 2, 'It crashes')).toEqual(['2 stars']);
    expect(reasons(rules, 2, 'Lagging all day')).toEqual(['2 stars', 'mentions bugs: lagging']);
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
      {
        path: ['keywordGroups', 'bugs', 'words'],
        message: 'a group with a weight needs at least one word (set weight: 0 to disable it)',
      },
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
