import { describe, expect, it } from 'vitest';
import type { RatingDropAlert } from '../../../src/alerts/types.js';
import { renderEmail, renderSlack } from '../../../src/render/index.js';
import { app, drop, single } from '../../fixtures/alert-sample.js';

const quiet = { newLowReviews: 0, lowReviewsShare: 0, vanished: 0, rerated: 0 };

/** The explanation as each renderer shows it: Slack's section, the HTML and the text email. */
function shown(explanation: RatingDropAlert['explanation'], appName = app.name) {
  const notification = single(drop({ explanation, app: { ...app, name: appName } }));
  const slack = renderSlack(notification, {});
  const email = renderEmail(notification);
  return { slack: JSON.stringify(slack), html: email.html, text: email.text, subject: email.subject };
}

describe('a rating drop names what moved the summary when no stored review did', () => {
  it('ratings without text, reviews archived, a recount, a burst not read yet', () => {
    const cases: Array<[RatingDropAlert['explanation']['unstored'], string]> = [
      [
        { stars: [3, 1, 0, 0, 0], share: 0.8 },
        'The summary moved without a review we store: 3 one-star and 1 two-star ratings without text, about 80% of the drop',
      ],
      [
        { stars: [0, 0, 0, 0, -2], share: 1 },
        'The summary moved without a review we store: 2 five-star reviews archived (the count went down), about 100% of the drop',
      ],
      [
        { stars: [4, 0, 0, -1, -3], share: 0.6 },
        'The summary moved without a review we store: the marketplace recounted (one-star +4, four-star −1, five-star −3), about 60% of the drop',
      ],
      [
        { stars: [1, 0, 0, 0, 0], share: 0.5, unread: 12 },
        'The summary moved without a review we store: 1 one-star rating more, perhaps among the 12 reviews of a burst not read yet, about 50% of the drop',
      ],
    ];
    for (const [unstored, words] of cases) {
      const { slack, html, text } = shown({ ...quiet, ...(unstored ? { unstored } : {}) });
      expect(slack).toContain(words);
      expect(text).toContain(words);
      expect(html).toContain(words);
    }
  });

  it('names a new review that is not low but below the former average', () => {
    const { text } = shown({ ...quiet, newBelowAverage: { count: 2, share: 0.7, ratings: [4, 3] } });
    expect(text).toContain(
      '2 new 3- or 4-star reviews, below the former average of 4.62, account for about 70% of the drop',
    );
  });

  it('keeps the app name escaped beside the explanation in every renderer', () => {
    const { slack, html, text, subject } = shown(
      { ...quiet, unstored: { stars: [2, 0, 0, 0, 0], share: 1 } },
      'Evil <!channel> & <b>Co</b>',
    );
    expect(slack).toContain('Evil &lt;!channel&gt; &amp; &lt;b&gt;Co&lt;/b&gt;');
    expect(slack).not.toContain('<!channel>');
    expect(html).toContain('Evil &lt;!channel&gt; &amp; &lt;b&gt;Co&lt;/b&gt;');
    expect(html).not.toContain('<b>Co</b>');
    expect(text).toContain('2 one-star ratings without text');
    expect(subject).not.toMatch(/[\r\n]/);
  });
});

describe('a fall within one displayed value', () => {
  it('says the displayed rating did not change, instead of "4.4 → 4.4"', () => {
    const notification = single(
      drop({
        from: { average: 4.44, count: 45, at: '2026-11-25T09:00:00.000Z' },
        to: { average: 4.37, count: 46, at: '2026-11-25T09:05:00.000Z' },
      }),
    );
    const email = renderEmail(notification);
    const slack = JSON.stringify(renderSlack(notification, {}));
    for (const shown of [email.text, email.html, slack]) {
      expect(shown).toContain('4.4, unchanged');
      expect(shown).not.toContain('4.4 → 4.4');
    }
  });
});
