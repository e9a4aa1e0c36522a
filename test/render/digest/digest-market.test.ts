import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renderDigestEmail, renderDigestSlack, type SlackBlock } from '../../../src/render/index.js';
import { collectMarketWeek } from '../../digest/scenario.js';
import { visibleText } from '../../digest/seed.js';
import { sampleDigestData } from '../../fixtures/digest-sample.js';
import { tempStore } from '../../helpers/index.js';

let store: ReturnType<typeof tempStore>;

beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

function slackText(blocks: SlackBlock[]): string {
  return blocks
    .flatMap((b) =>
      b.type === 'section' ? [b.text?.text ?? ''] : b.type === 'context' ? b.elements.map((e) => e.text) : [],
    )
    .join('\n');
}

/** The HTML from `from` up to `to`. */
function between(text: string, from: string, to: string): string {
  const start = text.indexOf(from);
  const end = text.indexOf(to, start + from.length);
  expect(start, from).toBeGreaterThanOrEqual(0);
  return text.slice(start, end < 0 ? undefined : end);
}

describe("the digest's Market section", () => {
  it("in Slack: the own app's rank and fall, the entrant and the competitor's changes, escaped", () => {
    const all = slackText(renderDigestSlack(collectMarketWeek(store.db)).blocks);
    const market = between(all, '*Market*', 'Weeks run');
    expect(market).toContain(
      '*store-design (the top 14 tracked, as of 22 Nov 2026)*\n• Shop: #12 ▼7 (from #5)',
    );
    expect(market).toContain(
      '• _new entrant:_ &lt;script&gt;alert(1)&lt;/script&gt;Kid came in at #14 (21 Nov 2026)',
    );
    expect(market).toContain('_1 snapshot failed in this period: ranks then are not known._');
    expect(market).toContain('*finances (no snapshot yet)*');
    expect(market).toContain('*Rival &amp; Co* _(competitor)_ changed its listing:');
    expect(market).toContain('• 21 Nov 2026: Plan added: "&lt;img src=x onerror=alert(1)&gt;Pro" ($9/month)');
    expect(market).toContain('• 21 Nov 2026: "Growth": price down $29/month → $19/month');
    expect(market).not.toMatch(/<(?!http)/);
  });

  it('in the HTML email: a table per category and the changes, escaped and coloured', () => {
    const { html, text } = renderDigestEmail(collectMarketWeek(store.db));
    expect(html).not.toMatch(/<script|<img/i);
    const market = visibleText(between(html, '>Market</h3>', 'Sent by'));
    expect(market).toMatch(
      /store-design \(the top 14 tracked, as of 22 Nov 2026\)\s+Your app\s+Rank\s+Over the week\s+Shop\s+#12\s+▼7 \(from #5\)/,
    );
    expect(market).toContain('New entrants: <script>alert(1)</script>Kid came in at #14 (21 Nov 2026).');
    expect(market).toContain('Plan added: "<img src=x onerror=alert(1)>Pro" ($9/month)');
    expect(between(html, '>Market</h3>', 'Sent by')).toContain(
      'color:#15803d;">&quot;Growth&quot;: price down',
    );
    // The text alternative says the same.
    expect(between(text, 'MARKET', '--')).toContain(
      'store-design (the top 14 tracked, as of 22 Nov 2026)\n  Shop: #12 ▼7 (from #5)\n  new entrant: <script>alert(1)</script>Kid came in at #14 (21 Nov 2026)',
    );
    expect(text).toContain(
      'Rival & Co (competitor) changed its listing:\n  - 21 Nov 2026: Plan added: "<img',
    );
  });

  it('says an app that left the tracked pages or came in, and leaves out categories it is not in', () => {
    const { text } = renderDigestEmail(sampleDigestData());
    const market = between(text, 'MARKET', '====');
    expect(market).toContain(
      '  Bundle Builder: #14 ▼8 (from #6)\n  Stock Sync: left the tracked pages (was #44)',
    );
    expect(market).toContain(
      'inventory-management (the top 45 tracked, as of 22 Nov 2026)\n  Stock Sync: #3 ▲1 (from #4)\n',
    );
    expect(market).not.toMatch(/inventory-management[^\n]*\n {2}Bundle Builder/);
  });

  it('is left out when there is nothing to say, and fits Slack with many categories', () => {
    const none = { ...sampleDigestData(), market: null };
    expect(renderDigestEmail(none).text).not.toContain('MARKET');
    expect(slackText(renderDigestSlack(none).blocks)).not.toContain('*Market*');
    const sample = sampleDigestData();
    const first = sample.market?.categories[0];
    if (!sample.market || !first) throw new Error('the sample has a market');
    sample.market.categories = Array.from({ length: 50 }, (_, i) => ({ ...first, handle: `category-${i}` }));
    const message = renderDigestSlack(sample);
    expect(slackText(message.blocks)).toContain(
      "_… and 42 more categories: see the email digest or the inbox's market page._",
    );
    expect(message.blocks.length).toBeLessThanOrEqual(50);
  });
});
