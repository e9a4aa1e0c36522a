import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DEFAULT_SCORING_RULES,
  matchWords,
  mergeScoringRules,
  type ScoreInput,
  scoreReview,
} from '../../src/scoring/index.js';

function score(input: Partial<ScoreInput> & Pick<ScoreInput, 'rating'>) {
  return scoreReview({ content: '', timeUsingApp: '', ...input }, DEFAULT_SCORING_RULES);
}

describe('scoreReview', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ranks an angry, paying, long-time customer who is leaving as critical, and says why', () => {
    const severity = score({
      rating: 1,
      content: 'Charged twice and support never answered, uninstalling',
      timeUsingApp: 'Over 1 year using the app',
    });
    expect(severity).toEqual({
      score: 100,
      priority: 'critical',
      reasons: [
        '1 star',
        'mentions billing: charged twice',
        'mentions support: support, never answered',
        'mentions uninstall: uninstalling',
        'long-time user: over 1 year using the app',
      ],
    });
  });

  it('weighs the rating most: a bare low review is medium at 1 star and low at 3', () => {
    expect(score({ rating: 1 })).toEqual({ score: 50, priority: 'medium', reasons: ['1 star'] });
    expect(score({ rating: 2 })).toEqual({ score: 35, priority: 'medium', reasons: ['2 stars'] });
    expect(score({ rating: 3 })).toEqual({ score: 20, priority: 'low', reasons: ['3 stars'] });
    expect(score({ rating: 5, content: 'Great app, love it' })).toEqual({
      score: 0,
      priority: 'low',
      reasons: ['5 stars'],
    });
  });

  it('makes a concrete bug report high and lists the words it matched, each once', () => {
    const severity = score({
      rating: 1,
      content: 'It CRASHES on every save, crashes again on load. The export is broken. Crashes!',
    });
    expect(severity.score).toBe(65);
    expect(severity.priority).toBe('high');
    expect(severity.reasons).toEqual(['1 star', 'mentions bugs: crashes, broken']);
  });

  it('counts a topic once however many of its words appear', () => {
    const one = score({ rating: 2, content: 'bug' });
    const many = score({ rating: 2, content: 'bug, crash, error, glitch, freezing, wrong and broken' });
    expect(one.score).toBe(50);
    expect(many.score).toBe(50);
    expect(many.reasons[1]).toBe('mentions bugs: bug, crash, error, glitch, freezing and 2 more');
  });

  it('matches on word boundaries, phrases across line breaks, and curly apostrophes', () => {
    expect(score({ rating: 2, content: 'Very supportive team, debugging was easy' }).reasons).toEqual([
      '2 stars',
    ]);
    expect(score({ rating: 2, content: 'I was charged\n  twice' }).reasons).toContain(
      'mentions billing: charged twice',
    );
    expect(score({ rating: 2, content: 'The sync doesn’t work' }).reasons).toContain(
      "mentions bugs: doesn't work",
    );
    expect(score({ rating: 2, content: 'Cancellation was impossible' }).reasons).toContain(
      'mentions billing: cancellation',
    );
  });

  it('adds each topic found once and orders reasons by weight, the rating first', () => {
    const severity = score({
      rating: 4,
      content: 'Slow at times, and my last invoice was wrong',
    });
    expect(severity.score).toBe(55);
    expect(severity.reasons).toEqual([
      '4 stars',
      'mentions billing: invoice',
      'mentions bugs: wrong',
      'mentions performance: slow',
    ]);
  });

  it('orders reasons by their weight under the rules in force, not by the order of the topics', () => {
    const rules = mergeScoringRules(DEFAULT_SCORING_RULES, {}, { billing: { weight: 5 } });
    const severity = scoreReview(
      { rating: 2, content: 'Crashes daily, I want a refund', timeUsingApp: '2 years using the app' },
      rules,
    );
    expect(severity.reasons).toEqual([
      '2 stars',
      'mentions bugs: crashes',
      'long-time user: 2 years using the app',
      'mentions billing: refund',
    ]);
    expect(severity.score).toBe(65);
  });

  it('weighs an edit that lowered the rating, and not one that raised it', () => {
    const down = score({ rating: 2, previousRating: 5 });
    expect(down.score).toBe(45);
    expect(down.reasons).toEqual(['2 stars', 'rerated from 5 to 2']);
    const up = score({ rating: 2, previousRating: 1 });
    expect(up).toEqual({ score: 35, priority: 'medium', reasons: ['2 stars'] });
  });

  it('weighs a detailed review over 300 characters', () => {
    const content = `${'The import mangles every variant. '.repeat(12)}Awful.`;
    expect([...content].length).toBe(414);
    const severity = score({ rating: 3, content });
    expect(severity.reasons).toContain('detailed review (414 characters)');
    expect(severity.score).toBe(25);
    expect(score({ rating: 3, content: 'x'.repeat(300) }).reasons).toEqual(['3 stars']);
  });

  it('counts characters as a reader does: an emoji is one', () => {
    expect(score({ rating: 3, content: '😡'.repeat(301) }).reasons).toContain(
      'detailed review (301 characters)',
    );
  });

  it('weighs long-time users by tier', () => {
    expect(score({ rating: 2, timeUsingApp: '2 months using the app' }).score).toBe(35);
    const months = score({ rating: 2, timeUsingApp: '4 months using the app' });
    expect(months.score).toBe(40);
    expect(months.reasons).toEqual(['2 stars', 'long-time user: 4 months using the app']);
    const years = score({ rating: 2, timeUsingApp: 'Almost 2 years using the app' });
    expect(years.score).toBe(45);
    expect(years.reasons).toEqual(['2 stars', 'long-time user: over 1 year using the app']);
    expect(score({ rating: 2, timeUsingApp: 'no idea' }).score).toBe(35);
  });

  it('clamps to 0..100 and follows the priority cut-offs of the rules', () => {
    const rules = { ...DEFAULT_SCORING_RULES, priorities: { critical: 95, high: 50, medium: 10 } };
    expect(scoreReview({ rating: 1, content: '', timeUsingApp: '' }, rules).priority).toBe('high');
    expect(scoreReview({ rating: 3, content: '', timeUsingApp: '' }, rules).priority).toBe('medium');
    expect(scoreReview({ rating: 4, content: '', timeUsingApp: '' }, rules).priority).toBe('low');
    const everything = score({
      rating: 1,
      previousRating: 5,
      content: `Refund! Data lost, app crashes, support ignored me, switched to a competitor. ${'x'.repeat(400)}`,
      timeUsingApp: '3 years using the app',
    });
    expect(everything.score).toBe(100);
    expect(everything.reasons).toHaveLength(9);
  });

  it('weighs the stored topics given when the rules computed them, and matches the text otherwise', () => {
    const stored = [{ name: 'billing', words: ['Charged TWICE', 'charged twice', 'refund'] }];
    const current = DEFAULT_SCORING_RULES.topics.version;
    // The text says nothing of billing: only the stored topics can put it in the reasons.
    expect(score({ rating: 2, content: 'meh', topics: stored, topicsVersion: current }).reasons).toEqual([
      '2 stars',
      'mentions billing: charged twice, refund',
    ]);
    for (const topicsVersion of ['an-older-taxonomy', null, undefined]) {
      expect(score({ rating: 2, content: 'meh', topics: stored, topicsVersion }).reasons).toEqual([
        '2 stars',
      ]);
    }
    expect(score({ rating: 2, content: 'charged twice', topicsVersion: current }).reasons).toEqual([
      '2 stars',
      'mentions billing: charged twice',
    ]);
  });

  it('is deterministic and never reads the clock', () => {
    const input = { rating: 1, content: 'Lost all my orders', timeUsingApp: '2 years using the app' };
    vi.useFakeTimers();
    let before: ReturnType<typeof scoreReview>;
    try {
      vi.setSystemTime(new Date('2020-01-01T00:00:00Z'));
      before = scoreReview(input, DEFAULT_SCORING_RULES);
      vi.setSystemTime(new Date('2031-06-15T12:00:00Z'));
      expect(scoreReview(input, DEFAULT_SCORING_RULES)).toEqual(before);
    } finally {
      // Test files share a fork's globals (vitest.config.ts, isolate): the next file gets the real clock.
      vi.useRealTimers();
    }
    expect(before).toEqual({
      score: 85,
      priority: 'critical',
      reasons: ['1 star', 'mentions data-loss: lost all my orders', 'long-time user: 2 years using the app'],
    });
  });

  it('does not call "I deleted the app" data loss', () => {
    const severity = score({ rating: 1, content: 'Useless, I deleted the app' });
    expect(severity.reasons).toEqual(['1 star', 'mentions uninstall: deleted the app']);
  });
});

describe('matchWords', () => {
  it('prefers the longest phrase at a position and reports words as written', () => {
    expect(matchWords('Charged twice! I was charged again.', ['charged', 'charged twice'])).toEqual([
      'charged twice',
      'charged',
    ]);
    expect(matchWords('Overcharged, OVERCHARGING', ['overcharg*'])).toEqual(['overcharged', 'overcharging']);
  });

  it('treats configured words as text, not patterns, and ignores empty ones', () => {
    expect(matchWords('costs $5 (a month)', ['$5 (a month)', '', '*'])).toEqual(['$5 (a month)']);
    expect(matchWords('anything at all', ['.*'])).toEqual([]);
  });

  it('knows word boundaries beyond ASCII', () => {
    expect(matchWords('Fehlermeldung ohne Ende', ['fehler'])).toEqual([]);
    expect(matchWords('Nur Fehler, café', ['fehler', 'café'])).toEqual(['fehler', 'café']);
  });
});
