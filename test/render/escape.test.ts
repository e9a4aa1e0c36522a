import { describe, expect, it } from 'vitest';
import { escapeHtml, escapeMrkdwn, oneLine, stars, truncate } from '../../src/render/index.js';

/** An `&` not starting one of the entities escaping produces: a cut entity. */
const BROKEN_ENTITY = /&(?!amp;|lt;|gt;|quot;|#39;)/;
/** A high surrogate not followed by a low one: half an emoji. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('escapeMrkdwn', () => {
  it('turns mentions and disguised links into text', () => {
    expect(escapeMrkdwn('<!channel> hi <@U123>')).toBe('&lt;!channel&gt; hi &lt;@U123&gt;');
    expect(escapeMrkdwn('<https://evil.example|click here>')).toBe('&lt;https://evil.example|click here&gt;');
    expect(escapeMrkdwn('Fish & chips &amp;')).toBe('Fish &amp; chips &amp;amp;');
  });

  it('leaves formatting alone', () => {
    const text = '*bold* _italic_ ~strike~ `code` "quotes" \'single\'';
    expect(escapeMrkdwn(text)).toBe(text);
  });
});

describe('escapeHtml', () => {
  it('escapes markup and both quotes', () => {
    expect(escapeHtml(`<script>alert("x")</script> & it's`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; it&#39;s',
    );
  });
});

describe('truncate', () => {
  it('leaves short text alone and marks a cut with …', () => {
    expect(truncate('short', 5)).toBe('short');
    expect(truncate('longer text', 8)).toBe('longer…');
    expect(truncate('longer text', 8).length).toBeLessThanOrEqual(8);
  });

  it('never cuts inside an escape entity, at any length', () => {
    const escaped = escapeMrkdwn('a&<b>&&c<<>>d&e'.repeat(4));
    for (let max = 1; max < escaped.length; max += 1) {
      const cut = truncate(escaped, max);
      expect(cut.length, `max ${max}`).toBeLessThanOrEqual(max);
      expect(cut.endsWith('…')).toBe(true);
      expect(cut, `max ${max}`).not.toMatch(BROKEN_ENTITY);
    }
  });

  it('never cuts a surrogate pair in half', () => {
    const text = 'ab😀😡👍🏽'.repeat(5);
    for (let max = 1; max < text.length; max += 1) {
      expect(truncate(text, max), `max ${max}`).not.toMatch(LONE_SURROGATE);
    }
  });
});

describe('oneLine', () => {
  it('removes every kind of line break', () => {
    expect(oneLine('a\r\nBcc: x@example.com\rb\nc\u2028d\u2029e\u0085f')).toBe(
      'a Bcc: x@example.com b c d e f',
    );
  });

  it('drops control and bidi-override characters', () => {
    expect(oneLine('evil\u202Egnp.exe\u0000\u0007')).toBe('evilgnp.exe');
  });
});

describe('stars', () => {
  it('shows the rating as filled and empty stars', () => {
    expect(stars(1)).toBe('★☆☆☆☆');
    expect(stars(4)).toBe('★★★★☆');
    expect(stars(5)).toBe('★★★★★');
    expect(stars(0)).toBe('☆☆☆☆☆');
    expect(stars(9)).toBe('★★★★★');
    expect(stars(Number.NaN)).toBe('☆☆☆☆☆');
  });
});
