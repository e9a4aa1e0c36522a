import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DigestData, weekContaining } from '../../../src/digest/index.js';
import {
  renderDigestSlack,
  SLACK_LIMITS,
  type SlackBlock,
  slackBlocksSize,
} from '../../../src/render/index.js';
import { collect, seedWeek, TZ } from '../../digest/scenario.js';
import { sampleDigestData } from '../../fixtures/digest-sample.js';
import { tempStore } from '../../helpers/index.js';

let store: ReturnType<typeof tempStore>;

beforeEach(() => {
  store = tempStore();
  seedWeek(store.db);
});
afterEach(() => store.cleanup());

function texts(blocks: SlackBlock[]): string[] {
  return blocks.flatMap((b) => {
    if (b.type === 'header') return [b.text.text];
    if (b.type === 'section') return [b.text?.text ?? '', ...(b.fields ?? []).map((f) => f.text)];
    if (b.type === 'context') return b.elements.map((e) => e.text);
    return [];
  });
}

function expectWithinLimits(message: { text: string; blocks: SlackBlock[] }): void {
  expect(message.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  expect(slackBlocksSize(message.blocks)).toBeLessThanOrEqual(SLACK_LIMITS.message);
  expect(message.text.length).toBeLessThanOrEqual(SLACK_LIMITS.fallbackText);
  for (const block of message.blocks) {
    if (block.type === 'header') expect(block.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.header);
    if (block.type === 'section')
      expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
  }
}

describe('renderDigestSlack', () => {
  it("puts a competitor's rating drops of the week on its line", () => {
    const body = JSON.stringify(renderDigestSlack(sampleDigestData()).blocks);
    expect(body).toContain('▼ 4.4 → 4.3 on 19 Nov');
  });

  it('summarises the week: headline, a line per app with rating, change, new and low reviews', () => {
    const message = renderDigestSlack(collect(store.db));
    const all = texts(message.blocks).join('\n');
    expect(texts(message.blocks)[0]).toBe('reviewwatch weekly digest · 16–22 Nov 2026');
    expect(all).toContain('5 new reviews of your apps, 2 low (1–3 stars)');
    expect(all).toContain('*My App* · ★ 4.40 ▼0.1 vs last week · 5 new reviews (avg 3.60) · *2 low*');
    expect(all).toContain('*Competitors*');
    expect(all).toContain('2 alerts failed to deliver');
    expect(message.text).toContain('16–22 Nov 2026: 5 new reviews of your apps, 2 low');
  });

  it('escapes reviewers, review text and app titles for mrkdwn', () => {
    const all = texts(renderDigestSlack(collect(store.db)).blocks).join('\n');
    expect(all).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt;: “Charged twice &amp; no refund, &lt;b&gt;support&lt;/b&gt;',
    );
    expect(all).toContain('*Rival &amp; Co &lt;Pro&gt;*');
    expect(all).not.toContain('<');
    expect(all).not.toContain('<script>');
  });

  it('has no links', () => {
    const message = renderDigestSlack(sampleDigestData());
    expect(message.blocks.some((b) => b.type === 'actions')).toBe(false);
    expect(JSON.stringify(message.blocks)).not.toMatch(/https?:\/\//);
  });

  it('says a quiet week is quiet, with the current ratings', () => {
    const message = renderDigestSlack(
      collect(store.db, weekContaining(new Date('2026-12-09T12:00:00Z'), TZ)),
    );
    const all = texts(message.blocks).join('\n');
    expect(texts(message.blocks)[0]).toBe('reviewwatch weekly digest: a quiet week · 7–13 Dec 2026');
    expect(all).toContain('A quiet week: no new reviews of any watched app.');
    expect(all).toContain('*My App* · ★ 4.00 ±0 vs last week');
    expect(all).toContain('*Rival &amp; Co &lt;Pro&gt;* _(competitor)_ · ★ 4.10');
    expect(all).not.toMatch(/\d new reviews?/);
  });

  it("stays within Slack's limits with many apps, saying how many it left out", () => {
    const sample = sampleDigestData();
    const [own, , rival] = sample.apps;
    if (own === undefined || rival === undefined) throw new Error('sample changed');
    const long = 'x'.repeat(5_000);
    const apps = Array.from({ length: 80 }, (_, i) => ({
      ...(i % 4 === 3 ? rival : own),
      handle: `app-${i}`,
      title: `${'Very long & <odd> app name '.repeat(10)}${i}`,
      worst: own.worst.map((r) => ({ ...r, content: `${long}&<>` })),
    }));
    const data: DigestData = { ...sample, apps };
    const message = renderDigestSlack(data);
    expectWithinLimits(message);
    const all = texts(message.blocks).join('\n');
    expect(all).toMatch(/… and \d+ more apps/);
    expect(all).toContain('app name');
  });

  it('fits the sample digest whole', () => {
    const message = renderDigestSlack(sampleDigestData());
    expectWithinLimits(message);
    const all = texts(message.blocks).join('\n');
    expect(all).not.toMatch(/more apps?/);
    expect(all).toContain('*Bundle Builder*');
    expect(all).toContain('*Stock Sync*');
    expect(all).toContain('*ShopBundles Pro*');
  });
});
