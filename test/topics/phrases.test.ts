import { describe, expect, it } from 'vitest';
import { emergingPhrases, phraseCounts, phrasesOf } from '../../src/topics/index.js';

const HISTORY = phraseCounts(
  Array.from(
    { length: 200 },
    (_, i) =>
      [
        'The widget is slow on mobile and support took days.',
        'Charged twice for one month, want a refund.',
        'Reviews do not show on the product page.',
        'Too expensive for what it does.',
      ][i % 4] as string,
  ),
);

function review(id: number, content: string, reviewer = `merchant-${id}`) {
  return { id: `r${id}`, reviewer, content };
}

describe('phrasesOf', () => {
  it('takes 1-3 word phrases within a sentence, none starting or ending with a stop word', () => {
    const phrases = phrasesOf('Since the 2.3 update, the Klaviyo sync is broken. Dark mode please!');
    expect(phrases).toContain('2.3 update');
    expect(phrases).toContain('klaviyo sync');
    expect(phrases).toContain('dark mode');
    expect(phrases).not.toContain('the 2.3');
    expect(phrases).not.toContain('broken dark');
    expect(phrases).not.toContain('app');
  });
});

describe('emergingPhrases', () => {
  it('finds what is new in the low reviews, with quotes from different reviewers', () => {
    const current = [
      review(1, 'Since the 2.3 update the Klaviyo sync stopped. Useless.'),
      review(2, 'klaviyo sync broken after the 2.3 update'),
      review(3, 'The 2.3 update broke Klaviyo sync for us, no flows sent.'),
      review(4, 'Slow on mobile again.'),
      review(5, 'Please add dark mode, my eyes hurt at night.'),
      review(6, 'Dark mode would be nice, the admin is blinding.'),
      review(7, 'Still no dark mode? Come on.'),
      review(8, 'want a refund'),
    ];
    const found = emergingPhrases(current, HISTORY);
    const phrases = found.map((p) => p.phrase);
    expect(phrases).toContain('dark mode');
    expect(phrases).toContain('2.3 update');
    expect(phrases.some((p) => p.includes('klaviyo'))).toBe(true);
    expect(phrases).not.toContain('slow');
    expect(phrases).not.toContain('refund');
    const dark = found.find((p) => p.phrase === 'dark mode');
    expect(dark).toMatchObject({ reviews: 3, reviewers: 3, isNew: true, baselineReviews: 0 });
    expect(dark?.quotes.map((q) => q.text)).toEqual([
      'Please add dark mode, my eyes hurt at night.',
      'Dark mode would be nice, the admin is blinding.',
      'Still no dark mode?',
    ]);
  });

  it('needs three reviewers, not three reviews from one', () => {
    const current = [1, 2, 3, 4].map((i) => review(i, 'Dark mode is missing', 'same-merchant'));
    expect(emergingPhrases(current, HISTORY)).toEqual([]);
  });

  it('does not call an old complaint at its usual share emerging', () => {
    const current = Array.from({ length: 8 }, (_, i) =>
      review(i, i % 4 === 0 ? 'Charged twice, refund please' : 'ok'),
    );
    expect(emergingPhrases(current, HISTORY).map((p) => p.phrase)).not.toContain('refund');
  });
});
