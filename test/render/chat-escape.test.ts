import { describe, expect, it } from 'vitest';
import { escapeDiscord, escapeTeams, fitEscaped } from '../../src/render/index.js';

/** Whether `text` ends in a backslash that escapes nothing (an odd run of them). */
const danglingEscape = (text: string) => /(?<!\\)(\\\\)*\\$/.test(text.replace(/…$/, ''));

describe('Discord markdown escaping', () => {
  it('shows marks, links, mentions, headings and quotes as typed', () => {
    expect(escapeDiscord('**a** _b_ ~~c~~ `d` ||e|| [f](https://x) <@1> @everyone')).toBe(
      '\\*\\*a\\*\\* \\_b\\_ \\~\\~c\\~\\~ \\`d\\` \\|\\|e\\|\\| \\[f\\]\\(https://x\\) \\<\\@1\\> \\@everyone',
    );
    expect(escapeDiscord('# title\n> quote\n- item\n1. first\nplain - dash')).toBe(
      '\\# title\n\\> quote\n\\- item\n1\\. first\nplain - dash',
    );
    // Subtext (`-# `) at a line start, and only there.
    expect(escapeDiscord('-# small print\n  -# indented\nnot -# here')).toBe(
      '\\-# small print\n  \\-# indented\nnot -# here',
    );
  });

  it('cuts escaped text within its limit and never between a backslash and its mark', () => {
    for (let max = 5; max < 60; max += 1) {
      const text = fitEscaped('*_'.repeat(100), max);
      expect(text.length).toBeLessThanOrEqual(max);
      expect(text.endsWith('…')).toBe(true);
      expect(danglingEscape(text), text).toBe(false);
    }
    expect(fitEscaped('short', 10)).toBe('short');
  });
});

describe('Teams markdown escaping', () => {
  it('shows emphasis, links and lists as typed', () => {
    expect(escapeTeams('**a** [b](https://x)\n- c\n1. d')).toBe(
      '\\*\\*a\\*\\* \\[b\\]\\(https://x\\)\n\\- c\n1\\. d',
    );
  });
});
