import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DigestData, weekContaining } from '../../../src/digest/index.js';
import { digestSubject, renderDigestEmail } from '../../../src/render/index.js';
import { collect, NASTY_CONTENT, SCRIPT, seedWeek, TZ } from '../../digest/scenario.js';
import { visibleText } from '../../digest/seed.js';
import { sampleDigestData } from '../../fixtures/digest-sample.js';
import { tempStore } from '../../helpers/index.js';

let store: ReturnType<typeof tempStore>;

beforeEach(() => {
  store = tempStore();
  seedWeek(store.db);
});
afterEach(() => store.cleanup());

function render() {
  return renderDigestEmail(collect(store.db));
}

/** The HTML of the smallest table row holding `text`. */
function rowWith(html: string, text: string): string {
  const rows = html.split('<tr>').filter((r) => r.includes(text));
  const last = rows.at(-1);
  if (last === undefined) throw new Error(`no row with ${text}`);
  return last;
}

/** The HTML from `from` up to `to` (both must be there). */
function between(html: string, from: string, to: string): string {
  const start = html.indexOf(from);
  const end = html.indexOf(to, start);
  if (start < 0 || end < 0) throw new Error(`no ${from} … ${to}`);
  return html.slice(start, end);
}

function expectSafeHtml(html: string): void {
  expect(html).not.toMatch(/<style/i);
  expect(html).not.toMatch(/<script/i);
  expect(html).not.toMatch(/<link/i);
  expect(html).not.toMatch(/<img/i);
  expect(html).not.toMatch(/\sclass=/i);
  expect(html).not.toMatch(/\son[a-z]+=/i);
  // Every opened table, row and cell is closed: a stray `<` from a review would break this.
  for (const tag of ['table', 'tr', 'td', 'th', 'div', 'p', 'span', 'h1', 'h2', 'h3', 'strong']) {
    const opened = html.match(new RegExp(`<${tag}[\\s>]`, 'g'))?.length ?? 0;
    const closed = html.match(new RegExp(`</${tag}>`, 'g'))?.length ?? 0;
    expect([tag, opened]).toEqual([tag, closed]);
  }
}

describe('renderDigestEmail', () => {
  it("puts the week's numbers in the subject, on one line", () => {
    const { subject } = render();
    expect(subject).toBe('reviewwatch weekly: 5 new reviews, 2 low, my-app 4.4 (▼0.1) — 16–22 Nov');
    expect(subject).not.toMatch(/[\r\n]/);
  });

  it('says what the seeded week holds: counts, average, rating and its changes', () => {
    const { html, text } = render();
    for (const shown of [visibleText(html), text]) {
      expect(shown).toContain('5 new reviews of your apps, 2 low (1–3 stars)');
      expect(shown).toContain('the rating fell for 1 app since last week');
      expect(shown).toContain('5 new reviews, average 3.60, 2 low');
      expect(shown).toContain('4.40 (113 ratings)');
      expect(shown).toContain('▼0.1 vs last week');
      expect(shown).toContain('▼0.2 vs 4 weeks ago');
      expect(shown).toContain('16–22 Nov 2026');
      // Sunday 23:30 in Berlin is in the week (the one 4-star review); Monday 00:30 (2 stars) is not.
      expect(shown).toMatch(/4 ★[\s█░]*1 \(20%\)/);
      expect(shown).toMatch(/2 ★[\s█░]*0 \(0%\)/);
      expect(shown).toContain('Sunday night review');
      expect(shown).not.toContain('Monday morning review');
      expect(shown).not.toContain('Previous week review');
    }
  });

  it('draws the rating distribution as table bars sized by share', () => {
    const { html, text } = render();
    // 2 of 5 reviews are 5 stars: 40% of the 300 px bar, in the 5-star colour, the rest as track.
    const five = between(html, '>5 ★<', '>4 ★<');
    expect(five).toContain('width="120" height="12" bgcolor="#16a34a"');
    expect(five).toContain('width="180" height="12" bgcolor="#f4f4f5"');
    expect(visibleText(five)).toMatch(/2 \(40%\)/);
    // No 2-star review: no coloured bar at all, only the track.
    const two = between(html, '>2 ★<', '>1 ★<');
    expect(two).not.toContain('#ea580c');
    expect(visibleText(two)).toMatch(/0 \(0%\)/);
    expect(text).toContain('  5 ★ ████████░░░░░░░░░░░░ 2 (40%)');
    expect(text).toContain('  1 ★ ████░░░░░░░░░░░░░░░░ 1 (20%)');
  });

  it('draws the 8-week trend as fixed-size table bars, with the rating at the end of each week', () => {
    const { html, text } = render();
    // The tallest week (5 reviews) gets the full 60 px; the week of 26 October (2) 24 px.
    expect(html).toContain('width="28" height="60" bgcolor="#4f46e5"');
    expect(html).toContain('width="28" height="24" bgcolor="#4f46e5"');
    expect(html).toContain('width="28" height="12" bgcolor="#4f46e5"');
    const shown = visibleText(html);
    for (const week of ['28 Sep', '5 Oct', '12 Oct', '19 Oct', '26 Oct', '2 Nov', '9 Nov', '16 Nov']) {
      expect(shown).toContain(week);
    }
    expect(text).toMatch(/16 Nov\s+4\.40\s+5/);
    expect(text).toMatch(/9 Nov\s+4\.50\s+1/);
    expect(text).toMatch(/28 Sep\s+—\s+0/);
  });

  it('lists the worst review with its severity and reasons, escaped', () => {
    const { html, text } = render();
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('Charged twice &amp; no refund, &lt;b&gt;support&lt;/b&gt; never answered.');
    expect(html).not.toContain(SCRIPT);
    const shown = visibleText(html);
    expect(shown).toContain(`★☆☆☆☆ ${SCRIPT} (Germany)`);
    expect(shown).toContain('CRITICAL · 100/100');
    expect(shown).toContain('mentions billing: charged twice, refund');
    expect(shown).toContain('rerated from 5 to 3');
    // The plain-text part carries the same, as text.
    expect(text).toContain(`1. ★☆☆☆☆ ${SCRIPT} (Germany)`);
    expect(text).toContain(`> ${NASTY_CONTENT}`);
    expect(text).toContain('Why: 1 star · mentions billing: charged twice, refund');
    // The undated review says why it is in this week.
    expect(text).toContain('date unknown, first seen 19 Nov 2026');
  });

  it('shows the best reviews and the alerts that failed to deliver', () => {
    const { html, text } = render();
    for (const shown of [visibleText(html), text]) {
      expect(shown).toContain('Best reviews this week');
      expect(shown).toContain('Great app, does everything we need and more');
      expect(shown).toContain('Slack answered 404 no_service');
      expect(shown).toContain('550 mailbox unavailable');
      expect(shown).toContain('still failed');
      expect(shown).not.toContain('raised after the week');
      expect(shown).toContain('2 alerts failed to deliver');
    }
  });

  it('compares own apps with competitors in a table listing both', () => {
    const { html, text } = render();
    const own = rowWith(html, 'My App</strong> <span');
    expect(visibleText(own)).toMatch(/My App \(your app\)\s+4\.40\s+▼0\.1\s+5\s+40%/);
    const rival = rowWith(html, 'Rival &amp; Co &lt;Pro&gt; <span');
    expect(visibleText(rival)).toMatch(/Rival & Co <Pro> \(competitor\)\s+4\.10\s+±0\s+2\s+50%/);
    expect(text).toMatch(/My App \(your app\)\s+4\.40\s+▼0\.1\s+5\s+40%/);
    expect(text).toMatch(/Rival & Co <Pro> \(competitor\)\s+4\.10\s+±0\s+2\s+50%/);
  });

  it("lists a competitor's rating drops of the week under it, in the HTML and the text", () => {
    const { html, text } = renderDigestEmail(sampleDigestData());
    expect(visibleText(rowWith(html, 'Rating drops'))).toMatch(/Rating drops\s+4\.4 → 4\.3 on 19 Nov/);
    expect(text).toMatch(/Rating drops: +4\.4 → 4\.3 on 19 Nov/);
    expect(text).toMatch(/Rating drops: +4\.7 → 4\.6 on 21 Nov/);
  });

  it('is email-safe HTML: inline styles only, no style, script or class, every tag closed', () => {
    expectSafeHtml(render().html);
    expectSafeHtml(renderDigestEmail(sampleDigestData()).html);
  });

  it('keeps the subject on one line whatever the product name holds', () => {
    const { subject, html } = renderDigestEmail(collect(store.db), {
      product: 'Acme\r\nBcc: all@example.com <b>',
    });
    expect(subject).not.toMatch(/[\r\n]/);
    expect(subject.startsWith('Acme Bcc: all@example.com <b> weekly:')).toBe(true);
    expect(html).toContain('Acme Bcc: all@example.com &lt;b&gt;');
  });
});

describe('a quiet week', () => {
  it('is a short digest with the current ratings, not an error', () => {
    const quiet = renderDigestEmail(collect(store.db, weekContaining(new Date('2026-12-09T12:00:00Z'), TZ)));
    const full = render();
    expect(quiet.subject).toBe('reviewwatch weekly: quiet week, no new reviews, my-app 4.0 — 7–13 Dec');
    for (const shown of [visibleText(quiet.html), quiet.text]) {
      expect(shown).toContain('A quiet week: no new reviews of any watched app.');
      expect(shown).toMatch(/My App\s+4\.00/);
      expect(shown).toMatch(/Rival & Co <Pro> \(competitor\)\s+4\.10/);
      expect(shown).not.toContain('Worst reviews');
      expect(shown).not.toContain('Last 8 weeks');
    }
    expect(quiet.html.length).toBeLessThan(full.html.length / 3);
    expectSafeHtml(quiet.html);
  });
});

/** The HTML's headings, top to bottom, as plain text. */
function headingsOf(html: string): string[] {
  const entities: Record<string, string> = {
    '&amp;': '&',
    '&lt;': '<',
    '&gt;': '>',
    '&quot;': '"',
    '&#39;': "'",
  };
  return [...html.matchAll(/<h([123])[^>]*>(.*?)<\/h\1>/g)].map((m) =>
    (m[2] ?? '').replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e] ?? e),
  );
}

describe('the text alternative', () => {
  // Both are drawn from one outline (digest-email-outline.ts): a part one of them left out or moved
  // would leave a reader of the text with a different digest.
  it.each([
    ['a busy week', false],
    ['a quiet week', true],
  ])("carries every heading of the HTML, in the HTML's order (%s)", (_, quiet) => {
    const data: DigestData = { ...sampleDigestData(), quiet };
    const { html, text } = renderDigestEmail(data);
    const headings = headingsOf(html);
    expect(headings.length).toBeGreaterThan(quiet ? 3 : 15);
    const lower = text.toLowerCase();
    let at = 0;
    const missing: string[] = [];
    for (const heading of headings) {
      const found = lower.indexOf(heading.toLowerCase(), at);
      if (found < 0) missing.push(heading);
      else at = found + heading.length;
    }
    expect(missing).toEqual([]);
  });
});

describe('digestSubject', () => {
  it('names as many apps as fit, counts the rest, and keeps the period', () => {
    const sample = sampleDigestData();
    const own = sample.apps[0];
    if (own === undefined) throw new Error('sample changed');
    const apps = Array.from({ length: 12 }, (_, i) => ({
      ...own,
      handle: `app-with-a-rather-long-handle-${i}`,
    }));
    const data: DigestData = { ...sample, apps };
    const subject = digestSubject(data);
    expect(subject.length).toBeLessThanOrEqual(200);
    expect(subject).toMatch(/\+\d+ more — 16–22 Nov$/);
    expect(digestSubject(sampleDigestData(), 'Acme\r\nBcc: x@example.com')).toMatch(
      /^Acme Bcc: x@example.com weekly: /,
    );
    expect(digestSubject(sampleDigestData())).toBe(
      'reviewwatch weekly: 51 new reviews, 9 low, bundle-builder 4.6 (▼0.1), stock-sync 4.4 (▲0.01) — 16–22 Nov',
    );
  });
});
