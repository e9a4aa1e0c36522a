import { describe, expect, it } from 'vitest';
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
