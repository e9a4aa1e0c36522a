import { describe, expect, it } from 'vitest';
import { ALERT_KIND_NAMES, type Alert } from '../../src/alerts/types.js';
import { CHANNEL_TYPE_NAMES } from '../../src/kinds.js';
import { CHANNEL_TABLE } from '../../src/notify/channel-types.js';
import {
  type ChannelRenderers,
  DISCORD_RENDERERS,
  EMAIL_RENDERERS,
  renderWith,
  SLACK_RENDERERS,
  type SlackMessage,
  TEAMS_RENDERERS,
  teamsMessageBytes,
  WEBHOOK_RENDERERS,
} from '../../src/render/index.js';
import { sampleDigestData } from '../fixtures/digest-sample.js';
import { EVERY_KIND } from '../fixtures/every-kind.js';

/**
 * The channel table's promise is a compile-time one: each `@ts-expect-error` below fails `npm run
 * typecheck` ("unused directive") the day a channel type could leave a renderer out and still compile.
 */
describe('the channel table', () => {
  it('does not compile with a renderer missing for an alert kind, the group or the digest', () => {
    const { rank: _rank, ...withoutRank } = SLACK_RENDERERS.alerts;
    // @ts-expect-error: no renderer for `rank` alerts
    const noRank: ChannelRenderers<SlackMessage> = { ...SLACK_RENDERERS, alerts: withoutRank };
    const { digest: _digest, ...withoutDigest } = SLACK_RENDERERS;
    // @ts-expect-error: no renderer for the weekly digest
    const noDigest: ChannelRenderers<SlackMessage> = withoutDigest;
    // @ts-expect-error: an email renderer where Slack's belongs
    const mixed: ChannelRenderers<SlackMessage> = { ...SLACK_RENDERERS, alerts: EMAIL_RENDERERS.alerts };
    expect([noRank, noDigest, mixed].every((r) => typeof r.group === 'function')).toBe(true);
  });

  it('does not compile without a row for every channel type', () => {
    const { console: _console, ...withoutConsole } = CHANNEL_TABLE;
    // @ts-expect-error: the console type has no row
    const table: typeof CHANNEL_TABLE = withoutConsole;
    expect(Object.keys(table)).not.toContain('console');
    expect(Object.keys(CHANNEL_TABLE).sort()).toEqual([...CHANNEL_TYPE_NAMES].sort());
  });

  it('renders every alert kind on every set of renderers, each saying what it is about', () => {
    expect(Object.keys(EVERY_KIND).sort()).toEqual([...ALERT_KIND_NAMES].sort());
    for (const alert of Object.values(EVERY_KIND) as Alert[]) {
      const slack = renderWith(SLACK_RENDERERS, { kind: 'single', alert }, {});
      const email = renderWith(EMAIL_RENDERERS, { kind: 'single', alert }, {});
      expect(slack.blocks.length, alert.kind).toBeGreaterThan(0);
      expect(slack.text, alert.kind).not.toBe('');
      expect(email.subject, alert.kind).not.toBe('');
      expect(email.text, alert.kind).not.toBe('');
      const event = renderWith(WEBHOOK_RENDERERS, { kind: 'single', alert }, {});
      expect(Object.keys(event.data).length, alert.kind).toBeGreaterThan(0);
      const teams = renderWith(TEAMS_RENDERERS, { kind: 'single', alert }, {});
      expect(teams.summary, alert.kind).not.toBe('');
      expect(teams.attachments[0].content.body.length, alert.kind).toBeGreaterThan(1);
      const discord = renderWith(DISCORD_RENDERERS, { kind: 'single', alert }, {});
      expect(discord.content, alert.kind).not.toBe('');
      expect(discord.embeds[0]?.title, alert.kind).not.toBe('');
    }
  });

  it('renders the digest on every set of renderers, the chat types with the same headline numbers', () => {
    const data = sampleDigestData();
    const slack = SLACK_RENDERERS.digest(data, {});
    const teams = TEAMS_RENDERERS.digest(data, {});
    const discord = DISCORD_RENDERERS.digest(data, {});
    expect(EMAIL_RENDERERS.digest(data, {}).subject).toContain('51 new reviews');
    expect(WEBHOOK_RENDERERS.digest(data, {}).type).toBe('digest.weekly');
    expect(JSON.stringify(slack.blocks)).toContain('51 new reviews');
    expect(JSON.stringify(teams)).toContain('51 new reviews');
    expect(teamsMessageBytes(teams)).toBeLessThan(28 * 1024);
    expect(discord.embeds[0]?.description).toContain('51 new reviews');
  });

  it('fits a digest of 200 apps, each with a huge review, in a Teams card and a Discord embed', () => {
    const data = sampleDigestData();
    const [first] = data.apps;
    if (first === undefined) throw new Error('the sample has apps');
    const huge = (i: number) => ({
      ...first,
      handle: `app-${i}`,
      title: `App ${i} [x](https://evil.example)`,
      worst: first.worst.map((w) => ({ ...w, content: `@everyone ${'漢字 '.repeat(3_000)}` })),
    });
    const big = { ...data, apps: Array.from({ length: 200 }, (_, i) => huge(i)) };
    const teams = TEAMS_RENDERERS.digest(big, {});
    expect(teamsMessageBytes(teams)).toBeLessThanOrEqual(28 * 1024);
    expect(JSON.stringify(teams)).toMatch(/… and \d+ more apps not shown/);
    const discord = DISCORD_RENDERERS.digest(big, {});
    const embed = discord.embeds[0];
    expect(embed?.fields.length).toBeLessThanOrEqual(25);
    expect(embed?.footer.text).toMatch(/… and \d+ more apps not shown/);
    const total =
      (embed?.title.length ?? 0) +
      (embed?.description?.length ?? 0) +
      (embed?.footer.text.length ?? 0) +
      (embed?.fields ?? []).reduce((sum, f) => sum + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(6_000);
  });
});
