import { describe, expect, it } from 'vitest';
import { DAY, makeApps, noiseOf, pollSpikes, waveOf } from '../../bench/topics-world.js';
import { Rng } from '../../src/simulator/random.js';
import {
  BUILT_IN_TAXONOMY,
  detectSpikes,
  type SpikeReview,
  spikeBaseline,
  topicsOf,
} from '../../src/topics/index.js';

const NOW = new Date('2026-11-27T12:00:00Z');
const HOUR = 3_600_000;

function review(i: number, content: string, reviewer = `merchant-${i}`, hoursAgo = i): SpikeReview {
  return {
    id: `r${i}`,
    reviewer,
    content,
    at: new Date(NOW.getTime() - hoursAgo * HOUR),
    topics: topicsOf(content, BUILT_IN_TAXONOMY).map((t) => t.name),
  };
}

/** Four weeks of an app's low reviews: about one a day, on the usual complaints. */
const QUIET = spikeBaseline(
  Array.from({ length: 28 }, (_, i) =>
    review(
      100 + i,
      ['Too expensive.', 'Crashes a lot.', 'Slow widget.', 'Support took days to reply.'][i % 4] as string,
    ),
  ),
  28,
);

const KLAVIYO = [
  'Klaviyo sync stopped after the update.',
  'The Klaviyo integration is broken, no flows triggered.',
  'Nothing reaches Klaviyo anymore.',
  'klaviyo events missing since yesterday',
  'Our Klaviyo connection keeps dropping.',
];

describe('detectSpikes', () => {
  it('fires once for five low reviews about one thing within a day, naming what they share', () => {
    const recent = KLAVIYO.map((text, i) => review(i + 1, text));
    const spikes = detectSpikes({ app: 'my-app', now: NOW, recent, baseline: QUIET, fired: [] });
    expect(spikes).toHaveLength(1);
    expect(spikes[0]).toMatchObject({
      kind: 'topic',
      key: 'topic:integrations',
      count: 5,
      reviewers: 5,
      phrases: ['klaviyo'],
      dedupeKey: `topic-spike:my-app:topic:integrations:${new Date(NOW.getTime() - 5 * HOUR).toISOString()}`,
    });
    expect(spikes[0]?.quotes).toHaveLength(3);
  });

  it('stays quiet on four reviews, on five from two merchants, and on an app that always gets them', () => {
    const four = KLAVIYO.slice(0, 4).map((text, i) => review(i + 1, text));
    expect(detectSpikes({ app: 'a', now: NOW, recent: four, baseline: QUIET, fired: [] })).toEqual([]);
    const twoMerchants = KLAVIYO.map((text, i) => review(i + 1, text, `m${i % 2}`));
    expect(detectSpikes({ app: 'a', now: NOW, recent: twoMerchants, baseline: QUIET, fired: [] })).toEqual(
      [],
    );
    const busy = spikeBaseline(
      Array.from({ length: 28 * 3 }, (_, i) => review(200 + i, 'The Klaviyo integration is flaky.')),
      28,
    );
    const recent = KLAVIYO.map((text, i) => review(i + 1, text));
    expect(detectSpikes({ app: 'a', now: NOW, recent, baseline: busy, fired: [] })).toEqual([]);
  });

  it('is one alert per spike: the same key does not fire again within the cooldown', () => {
    const recent = KLAVIYO.map((text, i) => review(i + 1, text));
    const firstAt = new Date(NOW.getTime() - 2 * HOUR);
    const fired = [{ key: 'topic:integrations', firedAt: firstAt }];
    expect(detectSpikes({ app: 'a', now: NOW, recent, baseline: QUIET, fired })).toEqual([]);
    const longAgo = [{ key: 'topic:integrations', firedAt: new Date(NOW.getTime() - 96 * HOUR) }];
    expect(detectSpikes({ app: 'a', now: NOW, recent, baseline: QUIET, fired: longAgo })).toHaveLength(1);
  });

  it('keeps the dedupe key of a spike as more reviews join it', () => {
    const five = KLAVIYO.map((text, i) => review(i + 1, text));
    const six = [review(0, 'Klaviyo still broken, fix it'), ...five];
    const [a] = detectSpikes({ app: 'a', now: NOW, recent: five, baseline: QUIET, fired: [] });
    const [b] = detectSpikes({ app: 'a', now: NOW, recent: six, baseline: QUIET, fired: [] });
    expect(b?.dedupeKey).toBe(a?.dedupeKey);
    expect(b?.count).toBe(6);
  });

  it('fires for a phrase no topic names', () => {
    const recent = [
      'Please add dark mode.',
      'Dark mode when?',
      'No dark mode in 2026?',
      'dark mode pls',
      'Begging for dark mode.',
    ].map((text, i) => review(i + 1, text));
    const spikes = detectSpikes({ app: 'a', now: NOW, recent, baseline: QUIET, fired: [] });
    expect(spikes.map((s) => s.key)).toEqual(['phrase:dark mode']);
    expect(spikes[0]?.quotes[0]?.text).toBe('Begging for dark mode.');
  });
});

describe('the spike rule on simulated noise (bench/topics-world.ts, seeded)', () => {
  it('fires at most one false spike per app per month, and catches a wave by the poll that completes it', () => {
    const start = Date.UTC(2026, 0, 1);
    const rng = new Rng(11);
    const apps = makeApps(rng, 8, 0.2, 6);
    let falseSpikes = 0;
    for (const app of apps) falseSpikes += pollSpikes(noiseOf(rng, app, start, 59), start, 59, 29).length;
    expect(falseSpikes / apps.length).toBeLessThanOrEqual(1);

    const app = apps[0] as (typeof apps)[number];
    const noise = noiseOf(rng, app, start, 40);
    const wave = waveOf(rng, app, start + 35 * DAY, 5, 6, 0);
    const fired = pollSpikes([...noise, ...wave], start, 40, 29);
    const fifth = (wave[4] as (typeof wave)[number]).at.getTime();
    const ids = new Set(wave.map((r) => r.id));
    const caught = fired.find((f) => f.spike.reviewIds.filter((id) => ids.has(id)).length >= 3);
    expect(caught?.at).toBeGreaterThanOrEqual(fifth);
    expect(caught?.at).toBeLessThan(fifth + 15 * 60_000);
  });
});
