import { describe, expect, it } from 'vitest';
import {
  renderSlack,
  type SectionBlock,
  SLACK_LIMITS,
  type SlackBlock,
  type SlackMessage,
  slackBlocksSize,
} from '../../../src/render/index.js';
import { app, drop, group, incident, review, reviewAlert, single } from '../../fixtures/alert-sample.js';

/** Every piece of text Slack will parse, with where it is. */
function texts(message: SlackMessage): string[] {
  const out = [message.text];
  for (const block of message.blocks) {
    if (block.type === 'header') out.push(block.text.text);
    if (block.type === 'section') {
      if (block.text) out.push(block.text.text);
      for (const f of block.fields ?? []) out.push(f.text);
    }
    if (block.type === 'context') for (const e of block.elements) out.push(e.text);
    if (block.type === 'actions') for (const e of block.elements) out.push(e.text.text);
  }
  return out;
}

function expectWithinLimits(message: SlackMessage): void {
  expect(message.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  expect(slackBlocksSize(message.blocks)).toBeLessThanOrEqual(SLACK_LIMITS.message);
  expect(message.text.length).toBeGreaterThan(0);
  expect(message.text.length).toBeLessThanOrEqual(SLACK_LIMITS.fallbackText);
  expect(message.text).not.toMatch(/[\r\n]/);
  for (const block of message.blocks) {
    if (block.type === 'header') expect(block.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.header);
    if (block.type === 'section') {
      expect(block.text !== undefined || (block.fields?.length ?? 0) > 0).toBe(true);
      if (block.text) expect(block.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
      expect(block.fields?.length ?? 0).toBeLessThanOrEqual(SLACK_LIMITS.fields);
      for (const f of block.fields ?? []) expect(f.text.length).toBeLessThanOrEqual(SLACK_LIMITS.field);
    }
  }
  for (const text of texts(message)) {
    expect(text.length).toBeGreaterThan(0);
    // Nothing we render uses Slack's <…> syntax, so any `<` came from input that escaped the escaping.
    expect(text).not.toContain('<');
    expect(text).not.toMatch(/&(?!amp;|lt;|gt;)/);
  }
}

function blockOf<T extends SlackBlock['type']>(
  message: SlackMessage,
  type: T,
): Extract<SlackBlock, { type: T }>[] {
  return message.blocks.filter((b): b is Extract<SlackBlock, { type: T }> => b.type === type);
}

function sectionTexts(message: SlackMessage): string[] {
  return blockOf(message, 'section').flatMap((s: SectionBlock) => (s.text ? [s.text.text] : []));
}

describe('renderSlack: a review', () => {
  it('says what happened in the header and gives the context to act', () => {
    const message = renderSlack(single(reviewAlert()), {});
    expectWithinLimits(message);
    expect(blockOf(message, 'header')[0]?.text.text).toBe('★☆☆☆☆ New 1-star review of My App');
    expect(sectionTexts(message)[0]).toBe('> Charged twice and support never answered, uninstalling');
    const fields = blockOf(message, 'section')
      .flatMap((s) => s.fields ?? [])
      .map((f) => f.text);
    expect(fields).toEqual([
      "*Reviewer*\nJane's Shop (Canada)",
      '*Date*\nMarch 31, 2025',
      '*Using the app*\nOver 1 year',
      '*Severity*\nHIGH · 72/100',
    ]);
    expect(blockOf(message, 'context')[0]?.elements[0]?.text).toBe(
      '*Why:* 1 star · mentions billing: charged twice · long-time user: over 1 year using the app',
    );
    expect(blockOf(message, 'actions')[0]?.elements.map((b) => [b.text.text, b.url])).toEqual([
      ['Open listing', 'https://apps.example/my-app'],
      ['All reviews', 'https://apps.example/my-app/reviews'],
    ]);
    expect(message.text).toBe(
      '★☆☆☆☆ New 1-star review of My App by Jane\'s Shop (HIGH · 72/100): "Charged twice and support never answered, uninstalling"',
    );
  });

  it('renders mentions, disguised links and markup from anyone untrusted as text', () => {
    const message = renderSlack(
      single(
        reviewAlert(
          {
            reviewer: '<!channel> boss',
            location: '<!everyone>',
            content: 'Hey <!here> see <https://evil.example|click here> & *bold* stays\n<@U123>',
            timeUsingApp: '<!subteam^S1> using the app',
          },
          { score: 72, priority: 'high', reasons: ['1 star', 'mentions <!channel>'] },
          { ...app, name: 'My <@U999> App' },
        ),
      ),
      { dashboardName: 'Ops <!channel>' },
    );
    expectWithinLimits(message);
    const all = texts(message).join('\n');
    expect(all).not.toMatch(/<[!@#]|<https?:/);
    expect(sectionTexts(message)[0]).toBe(
      '> Hey &lt;!here&gt; see &lt;https://evil.example|click here&gt; &amp; *bold* stays\n> &lt;@U123&gt;',
    );
    expect(blockOf(message, 'header')[0]?.text.text).toBe('★☆☆☆☆ New 1-star review of My &lt;@U999&gt; App');
    expect(all).toContain('&lt;!channel&gt; boss (&lt;!everyone&gt;)');
    expect(all).toContain('reviewwatch · Ops &lt;!channel&gt;');
  });

  it('cuts a 10,000-character review to 3,000 characters after escaping, never mid-entity', () => {
    for (const content of ['<&>'.repeat(3_334), 'a&b '.repeat(2_500), 'é😀'.repeat(3_334)]) {
      const message = renderSlack(single(reviewAlert({ content })), {});
      expectWithinLimits(message);
      const quoted = sectionTexts(message)[0] ?? '';
      expect(quoted.length).toBeGreaterThan(2_900);
      expect(quoted.length).toBeLessThanOrEqual(3_000);
      expect(quoted.endsWith('…')).toBe(true);
      expect(quoted).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    }
  });

  it('stays under the total size even when every field is huge and doubles as JSON', () => {
    const quotes = (n: number) => '"\\'.repeat(n / 2);
    const message = renderSlack(
      single(
        reviewAlert(
          {
            content: quotes(10_000),
            reviewer: quotes(5_000),
            location: quotes(5_000),
            createdDate: quotes(5_000),
            timeUsingApp: quotes(5_000),
          },
          { score: 72, priority: 'high', reasons: Array.from({ length: 40 }, () => quotes(300)) },
          { ...app, name: quotes(5_000), url: `https://apps.example/${'a'.repeat(950)}` },
        ),
      ),
      { dashboardName: quotes(5_000) },
    );
    expectWithinLimits(message);
    expect(blockOf(message, 'actions')[0]?.elements).toHaveLength(2);
    expect(slackBlocksSize(message.blocks)).toBeGreaterThan(9_000);
  });

  it('keeps the header within 150 characters for a long, escaped app name', () => {
    const message = renderSlack(single(reviewAlert({}, undefined, { ...app, name: '&'.repeat(400) })), {});
    expectWithinLimits(message);
    const header = blockOf(message, 'header')[0]?.text.text ?? '';
    expect(header.length).toBeLessThanOrEqual(150);
    expect(header).toMatch(/^★☆☆☆☆ New 1-star review of (&amp;)+…$/);
  });

  it('says when a review has no text, when the date is not a date, and when a rating was edited down', () => {
    const message = renderSlack(
      single(
        reviewAlert({
          content: '',
          createdDate: 'Invalid Date',
          timeUsingApp: '',
          rating: 2,
          previousRating: 5,
        }),
      ),
      {},
    );
    expectWithinLimits(message);
    expect(blockOf(message, 'header')[0]?.text.text).toBe(
      '★★☆☆☆ Review of My App re-rated from 5 to 2 stars',
    );
    expect(sectionTexts(message)[0]).toBe('_(no text)_');
    const fields = blockOf(message, 'section')
      .flatMap((s) => s.fields ?? [])
      .map((f) => f.text);
    expect(fields).toContain('*Date*\nInvalid Date');
    expect(fields).toContain('*Using the app*\nnot shown');
    expect(message.text).toContain('(no text)');
  });

  it('offers no link for a listing URL that is not http(s), or absurdly long', () => {
    for (const url of ['javascript:alert(1)', 'not a url', `https://apps.example/${'a'.repeat(2_900)}`]) {
      const message = renderSlack(single(reviewAlert({}, undefined, { ...app, url })), {});
      expectWithinLimits(message);
      expect(blockOf(message, 'actions')).toEqual([]);
    }
  });
});

describe('renderSlack: a rating drop', () => {
  it('shows what fell from what to what and explains it in words', () => {
    const message = renderSlack(single(drop()), {});
    expectWithinLimits(message);
    expect(blockOf(message, 'header')[0]?.text.text).toBe('▼ Rating of My App fell from 4.6 to 4.4');
    const fields = blockOf(message, 'section')
      .flatMap((s) => s.fields ?? [])
      .map((f) => f.text);
    expect(fields).toEqual([
      '*Average*\n4.62 → 4.41 (−0.21)',
      '*Displayed rating*\n4.6 → 4.4',
      '*Reviews*\n1,204 → 1,209 (+5)',
      '*Since*\nMarch 1, 2025 09:15 UTC',
      '*Priority*\nHIGH',
    ]);
    expect(sectionTexts(message)).toContain(
      '*What explains it:* 3 new low reviews account for about 60% of the drop; 2 reviews vanished (archived or removed); 1 review was re-rated down',
    );
  });

  it('uses singulars, shows two decimals when one would hide the change, and admits when nothing explains it', () => {
    const one = renderSlack(
      single(drop({ explanation: { newLowReviews: 1, lowReviewsShare: 1.4, vanished: 0, rerated: 0 } })),
      {},
    );
    expect(sectionTexts(one)[0]).toBe(
      '*What explains it:* 1 new low review accounts for about 100% of the drop',
    );
    const none = renderSlack(
      single(
        drop({
          from: { average: 4.62, count: 10, at: '2025-03-01T00:00:00Z' },
          to: { average: 4.58, count: 10, at: '2025-03-02T00:00:00Z' },
          explanation: { newLowReviews: 0, lowReviewsShare: 0, vanished: 0, rerated: 0 },
        }),
      ),
      {},
    );
    expect(blockOf(none, 'header')[0]?.text.text).toBe('▼ Rating of My App fell from 4.62 to 4.58');
    expect(sectionTexts(none)[0]).toBe(
      '*What explains it:* The summary moved without a review we store: no new, vanished or re-rated review explains the drop.',
    );
  });
});

describe('renderSlack: an incident', () => {
  it('names the burst and lists each review with stars, reviewer and its start', () => {
    const message = renderSlack(single(incident(4)), {});
    expectWithinLimits(message);
    expect(blockOf(message, 'header')[0]?.text.text).toBe(
      '⚠ Possible incident: 4 low reviews of My App within 24 h',
    );
    const listed = sectionTexts(message);
    expect(listed).toHaveLength(4);
    listed.forEach((text, i) => {
      expect(text.startsWith(`★☆☆☆☆ *Store ${i} (Canada)* · March 31, 2025\n> Checkout broken ${i}.`)).toBe(
        true,
      );
      expect(text.length).toBeLessThan(300);
    });
  });
});

describe('renderSlack: a group', () => {
  it('puts each review in its own section, most severe first', () => {
    const message = renderSlack(group(7), {});
    expectWithinLimits(message);
    expect(blockOf(message, 'header')[0]?.text.text).toBe('★ 7 new low reviews of My App');
    expect(blockOf(message, 'context')[0]?.elements[0]?.text).toBe('7 low · most severe first');
    const listed = sectionTexts(message);
    expect(listed).toHaveLength(7);
    expect(listed.map((t) => /Reviewer (\d+)/.exec(t)?.[1])).toEqual(['7', '6', '5', '4', '3', '2', '1']);
    expect(listed[0]).toContain('*Reviewer 7 (Canada)* · LOW · 7/100');
    expect(listed[0]).toContain('_Why: 1 star · mentions bugs: broke (7)_');
    expect(texts(message).join('\n')).not.toContain('more review');
  });

  it('stays within 50 blocks and the total size for 60 long reviews, and says how many it left out', () => {
    const notification = group(60);
    const message = renderSlack(notification, { dashboardName: 'Acme' });
    expectWithinLimits(message);
    const listed = sectionTexts(message);
    expect(listed.length).toBeGreaterThan(5);
    expect(listed.length).toBeLessThan(60);
    const last = message.blocks.at(-1);
    expect(last?.type).toBe('context');
    expect(last?.type === 'context' && last.elements[0]?.text).toBe(
      `… and ${60 - listed.length} more reviews`,
    );
    expect(listed[0]).toContain('Reviewer 60 ');
    // The size, not the block count, was the limit: one more review would not have fit.
    expect(slackBlocksSize(message.blocks)).toBeGreaterThan(SLACK_LIMITS.message - 700);
  });

  it('stays within 50 blocks for 60 short reviews', () => {
    const message = renderSlack(
      group(60, () => 'Bad.'),
      {},
    );
    expectWithinLimits(message);
    expect(message.blocks).toHaveLength(50);
    const listed = sectionTexts(message);
    const last = message.blocks.at(-1);
    expect(last?.type === 'context' && last.elements[0]?.text).toBe(
      `… and ${60 - listed.length} more reviews`,
    );
    expect(listed.length).toBeGreaterThan(40);
  });

  it('escapes reviewers in the list', () => {
    const notification = {
      kind: 'group' as const,
      app,
      alerts: [reviewAlert({ reviewer: '<!channel>', content: '<https://evil.example|x>' })],
    };
    const message = renderSlack(notification, {});
    expectWithinLimits(message);
    expect(sectionTexts(message)[0]).toContain('*&lt;!channel&gt; (Canada)*');
  });
});

describe('fixtures', () => {
  it('build a realistic review', () => {
    expect(review().rating).toBe(1);
  });
});
