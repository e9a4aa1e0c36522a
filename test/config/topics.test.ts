import { describe, expect, it } from 'vitest';
import { alertPolicyOf } from '../../src/alerts/policy.js';
import { loadConfig, parseConfig } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';
import { scoreReview } from '../../src/scoring/index.js';
import { presenterOf } from '../../src/web/present.js';

function problems(raw: Record<string, unknown>): string[] {
  try {
    parseConfig({ apps: [{ handle: 'my-app' }], ...raw }, {});
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

function reasonsUnder(raw: Record<string, unknown>, content: string): string[] {
  const config = parseConfig({ apps: [{ handle: 'my-app' }], ...raw }, {});
  return scoreReview({ rating: 2, content, timeUsingApp: '' }, alertPolicyOf(config).scoring).reasons;
}

describe('topics in the config', () => {
  it('adds custom topics and changes built-in ones, and severity weighs them', () => {
    const topics = {
      shipping: { words: ['never arrived', 'tracking'], weight: 15 },
      'dark-mode': { words: ['dark mode'] },
      billing: { words: ['chargeback'], weight: 30 },
    };
    expect(reasonsUnder({ topics }, 'Parcel never arrived, filed a chargeback, add dark mode')).toEqual([
      '2 stars',
      'mentions billing: chargeback',
      'mentions shipping: never arrived',
    ]);
  });

  it("weighs custom topics the same in the inbox's severity as in the alerts'", () => {
    const config = parseConfig(
      { apps: [{ handle: 'my-app' }], topics: { shipping: { words: ['never arrived'], weight: 15 } } },
      {},
    );
    const review = { rating: 2, content: 'Parcel never arrived', timeUsingApp: '' };
    const inbox = presenterOf(config).severity(review);
    expect(inbox.reasons).toContain('mentions shipping: never arrived');
    expect(inbox).toEqual(scoreReview(review, alertPolicyOf(config).scoring));
  });

  it('says what is wrong with a topic, and where', () => {
    expect(
      problems({
        topics: { 'Dark Mode': { words: ['dark'] }, shipping: { weight: 5 }, x: { words: ['*'] } },
      }),
    ).toEqual([
      'topics.Dark Mode: a topic name is lowercase letters, digits and hyphens (e.g. dark-mode)',
      'topics.shipping.words: a new topic needs at least one word',
      'topics.x.words[0]: matches nothing',
    ]);
    expect(problems({ topics: { bugs: { weight: 101 } } })).toEqual([
      'topics.bugs.weight: must be between 0 and 100',
    ]);
  });

  it("keeps an old config's keyword groups working as topics", () => {
    const alerts = {
      scoring: {
        keywordGroups: {
          churn: { weight: 0 },
          billing: { weight: 40 },
          lateShipping: { label: 'shipping', weight: 20, words: ['late delivery'] },
        },
      },
    };
    expect(problems({ alerts })).toEqual([]);
    expect(reasonsUnder({ alerts }, 'Late delivery again, refund me, uninstalling')).toEqual([
      '2 stars',
      'mentions billing: refund',
      'mentions late-shipping: late delivery',
    ]);
  });

  it("refuses a built-in group's words with the exact rewrite, which then loads", () => {
    const [problem] = problems({
      alerts: { scoring: { keywordGroups: { bugs: { weight: 20, words: ['lag*', 'hangs'] } } } },
    });
    expect(problem).toBe(
      'alerts.scoring.keywordGroups.bugs.words: keyword groups are topics now, and the built-in topic "bugs" ' +
        'has rules of its own that these words can no longer replace. Write them under topics instead, ' +
        'where they add to its rules: "topics: { bugs: { words: ["lag*", "hangs"], weight: 20 } }", then ' +
        'delete alerts.scoring.keywordGroups.bugs',
    );
    expect(problems({ topics: { bugs: { words: ['lag*', 'hangs'], weight: 20 } } })).toEqual([]);
    expect(
      problems({
        alerts: { scoring: { keywordGroups: { support: { weight: 5 } } } },
        topics: { support: { weight: 10 } },
      }),
    ).toEqual([
      'alerts.scoring.keywordGroups.support.weight: the topic "support" has its weight in topics.support.weight too: keep that one and delete this',
    ]);
  });

  it('loads the example config with its topics', () => {
    const config = loadConfig('config/reviewwatch.example.yaml', {
      SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/x',
      CATALOG_API_BASE_URL: 'https://api.example.com',
      CATALOG_API_KEY: 'k',
      SMTP_URL: 'smtp://localhost:25',
    });
    expect(Object.keys(config.topics)).toEqual(['billing', 'shipping', 'dark-mode']);
  });
});
