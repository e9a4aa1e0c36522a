import { describe, expect, it } from 'vitest';
import { BUILT_IN_TAXONOMY, summarizeBurst, topicsOf } from '../../src/topics/index.js';

function burst(texts: string[]) {
  return summarizeBurst(
    texts.map((content) => ({ content, topics: topicsOf(content, BUILT_IN_TAXONOMY).map((t) => t.name) })),
  );
}

describe('summarizeBurst', () => {
  it('says what most of a burst is about, and the phrase they share', () => {
    const summary = burst([
      'Klaviyo sync stopped after the update.',
      'The Klaviyo integration is broken.',
      'Nothing reaches Klaviyo anymore, flows are empty.',
      'Klaviyo events missing since yesterday',
      'Our Klaviyo connection keeps dropping.',
      'Too expensive.',
    ]);
    expect(summary.text).toBe("5 of 6 about integrations: 'klaviyo'");
    expect(summary.topics[0]).toEqual({ name: 'integrations', count: 5 });
  });

  it('says nothing when nothing is shared by half of them', () => {
    expect(burst(['Too expensive.', 'Crashes.', 'Slow.', 'Support ignored me.']).text).toBeUndefined();
  });

  it('names a shared phrase no topic has', () => {
    expect(burst(['Please add dark mode.', 'No dark mode?', 'dark mode when', 'meh']).text).toBe(
      "3 of 4 mention 'dark mode'",
    );
  });
});
