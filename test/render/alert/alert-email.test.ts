import { describe, expect, it } from 'vitest';
import { renderEmail } from '../../../src/render/index.js';
import { app, drop, group, incident, reviewAlert, single } from '../../fixtures/alert-sample.js';

const hostile = {
  reviewer: '<script>alert("reviewer")</script>',
  location: '"><b onmouseover=alert(1)>',
  content:
    'Refund now\r\nBcc: victim@example.com\r\n\r\n<img src=https://tracker.example/p.gif><style>body{display:none}</style>',
};

/** Tags the renderer itself may emit; anything else came from input that escaped escaping. */
const OWN_TAGS = new Set([
  'html',
  'head',
  'meta',
  'title',
  'body',
  'table',
  'tr',
  'td',
  'h1',
  'p',
  'div',
  'em',
  'ul',
  'li',
  'a',
  'br',
]);

function tagsOf(html: string): string[] {
  return [...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => (m[1] ?? '').toLowerCase());
}

describe('renderEmail: subjects', () => {
  it('triages a review at a glance: stars, app, the first words', () => {
    expect(renderEmail(single(reviewAlert())).subject).toBe(
      '★☆☆☆☆ my-app: "Charged twice and support never…"',
    );
    expect(renderEmail(single(reviewAlert({ content: 'Charged twice' }))).subject).toBe(
      '★☆☆☆☆ my-app: "Charged twice"',
    );
    expect(renderEmail(single(reviewAlert({ content: '  ', rating: 2 }))).subject).toBe(
      '★★☆☆☆ my-app: (no text)',
    );
  });

  it('names the rating change, the incident and the group', () => {
    expect(renderEmail(single(drop())).subject).toBe('▼ my-app rating 4.6 → 4.4');
    expect(
      renderEmail(
        single(
          drop({
            from: { average: 4.62, count: 10, at: '2025-03-01T00:00:00Z' },
            to: { average: 4.58, count: 11, at: '2025-03-02T00:00:00Z' },
          }),
        ),
      ).subject,
    ).toBe('▼ my-app rating 4.62 → 4.58');
    expect(renderEmail(single(incident(4))).subject).toBe('⚠ my-app: 4 low reviews in 24 h');
    expect(renderEmail(group(7)).subject).toBe('★ my-app: 7 new low reviews');
    expect(renderEmail(group(1)).subject).toBe('★ my-app: 1 new low review');
  });

  it('never carries a line break into the header', () => {
    const subject = renderEmail(
      single(
        reviewAlert({ content: 'Bad\r\nBcc: victim@example.com\n\u2028X-Evil: 1' }, undefined, {
          ...app,
          handle: 'my-app\r\nBcc: a@b.c',
        }),
      ),
    ).subject;
    expect(subject).not.toMatch(/[\r\n\u0085\u2028\u2029]/);
    expect(subject).toBe('★☆☆☆☆ my-app Bcc: a@b.c: "Bad Bcc: victim@example.com X-Evil: 1"');
  });

  it('falls back to the app name when there is no handle', () => {
    expect(renderEmail(group(2)).subject).toContain('my-app');
    expect(renderEmail({ kind: 'group', app: { ...app, handle: '' }, alerts: group(2).alerts }).subject).toBe(
      '★ My App: 2 new low reviews',
    );
  });
});

describe('renderEmail: HTML', () => {
  it('escapes every untrusted string, so no markup from a review survives', () => {
    const { html } = renderEmail(single(reviewAlert(hostile, undefined, { ...app, name: '<i>My App</i>' })));
    expect(html).not.toMatch(/<script|<img|<style|<b[\s>]|<i>/i);
    expect(html).toContain('&lt;script&gt;alert(&quot;reviewer&quot;)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;b onmouseover');
    expect(html).toContain('Refund now<br>Bcc: victim@example.com<br><br>&lt;img src=');
    expect(html).toContain('&lt;i&gt;My App&lt;/i&gt;');
    expect(tagsOf(html).filter((tag) => !OWN_TAGS.has(tag))).toEqual([]);
  });

  it('is email-safe: inline styles, no style blocks, scripts or images, only http(s) links', () => {
    for (const notification of [
      single(reviewAlert(hostile)),
      single(drop()),
      single(incident(3)),
      group(5),
    ]) {
      const { html } = renderEmail(notification);
      expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
      expect(html).not.toMatch(/<style|<script|<img|<link|class=/i);
      const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
      expect(hrefs.length).toBeGreaterThan(0);
      for (const href of hrefs) expect(href).toMatch(/^https:\/\/apps\.example\/my-app(\/reviews)?$/);
    }
    const unsafe = renderEmail(
      single(reviewAlert({}, undefined, { ...app, url: 'javascript:alert(1)' })),
    ).html;
    expect(unsafe).not.toContain('href=');
  });

  it('carries the same information as Slack for a review', () => {
    const { html, text } = renderEmail(single(reviewAlert()));
    for (const body of [html, text]) {
      for (const expected of [
        '★☆☆☆☆ New 1-star review of My App',
        'Jane&#39;s Shop (Canada)'.replace('&#39;', body === html ? '&#39;' : "'"),
        'March 31, 2025',
        'Over 1 year',
        'HIGH · 72/100',
        'Charged twice and support never answered, uninstalling',
        'mentions billing: charged twice',
        'long-time user: over 1 year using the app',
        'https://apps.example/my-app/reviews',
      ]) {
        expect(body).toContain(expected);
      }
    }
  });

  it('explains a rating drop', () => {
    const { html, text } = renderEmail(single(drop()));
    for (const body of [html, text]) {
      expect(body).toContain('Rating of My App fell from 4.6 to 4.4');
      expect(body).toContain('4.62 → 4.41 (−0.21)');
      expect(body).toContain('1,204 → 1,209 (+5)');
      expect(body).toContain(
        '3 new low reviews account for about 60% of the drop; 2 reviews vanished (archived or removed); 1 review was re-rated down',
      );
    }
  });

  it('lists every review of a group, most severe first', () => {
    const { html, text } = renderEmail(group(7));
    for (const body of [html, text]) {
      const order = [7, 6, 5, 4, 3, 2, 1].map((n) => body.indexOf(`Reviewer ${n} (Canada)`));
      expect(order.every((at) => at > 0)).toBe(true);
      expect(order).toEqual([...order].sort((a, b) => a - b));
      expect(body).toContain('7 low · most severe first');
    }
  });

  it('lists the reviews of an incident', () => {
    const { html, text } = renderEmail(single(incident(4)));
    for (const body of [html, text]) {
      expect(body).toContain('Possible incident: 4 low reviews of My App within 24 h');
      for (let i = 0; i < 4; i += 1) expect(body).toContain(`Checkout broken ${i}.`);
    }
  });
});

describe('renderEmail: plain text', () => {
  it('is readable text with the review quoted line by line', () => {
    const { text } = renderEmail(single(reviewAlert({ content: 'First line\nSecond <b>line</b>' })));
    expect(text).toContain('> First line\n> Second <b>line</b>');
    expect(text).toContain(
      "Reviewer: Jane's Shop (Canada)\nDate: March 31, 2025\nUsing the app: Over 1 year",
    );
    expect(text).toContain('Why:\n- 1 star\n- mentions billing: charged twice');
    expect(text).toContain(
      'Open listing: https://apps.example/my-app\nAll reviews: https://apps.example/my-app/reviews',
    );
    expect(text).not.toMatch(/<(?:table|td|div|p|br)\b/);
  });
});
