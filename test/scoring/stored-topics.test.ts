/**
 * Severity from a review's stored topics: the inbox, the digest and the poll's alerts score a row from the
 * topics stored with it when the config's taxonomy computed them, and from its text otherwise (a row the
 * backfill has not reached after a `topics:` change). Either way the score, the priority and the reasons
 * with their words in order are what matching the text gives.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { alertPolicyOf } from '../../src/alerts/policy.js';
import { raiseAlerts } from '../../src/alerts/raise.js';
import type { ReviewAlert } from '../../src/alerts/types.js';
import { identify } from '../../src/catalog/index.js';
import { type Config, parseConfig } from '../../src/config/index.js';
import { reviewsAtMost, windowOf } from '../../src/digest/queries.js';
import { rankWorst } from '../../src/digest/summarize.js';
import { scoreReview } from '../../src/scoring/index.js';
import { listInbox } from '../../src/store/inbox.js';
import { insertPollRun } from '../../src/store/polls.js';
import { reviewsOf } from '../../src/store/reviews.js';
import { configTaxonomy } from '../../src/store/topic-backfill.js';
import { BUILT_IN_TAXONOMY, topicsOf } from '../../src/topics/index.js';
import { rowJson } from '../../src/web/api-json.js';
import { CSV_COLUMNS } from '../../src/web/csv.js';
import { presenterOf } from '../../src/web/present.js';
import { tempStore } from '../helpers/index.js';
import { storeReview } from '../helpers/reviews.js';

interface Labelled {
  id: string;
  rating: number;
  content: string;
}

const LABELLED: Labelled[] = readFileSync(
  join(import.meta.dirname, '..', 'fixtures', 'topics', 'reviews.jsonl'),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Labelled);

const DEFAULT_CONFIG = parseConfig({ apps: [{ handle: 'shop' }] }, {});
/** Custom topics, a built-in one changed and a keyword group: every source of the taxonomy's topics. */
const CUSTOM_CONFIG = parseConfig(
  {
    apps: [{ handle: 'shop' }],
    topics: {
      shipping: { words: ['never arrived', 'tracking'], weight: 15 },
      billing: { words: ['chargeback'], weight: 30 },
      support: { weight: 0 },
    },
    alerts: { scoring: { keywordGroups: { angry: { words: ['scam', 'worst'], weight: 12 } } } },
  },
  {},
);
const AT = new Date('2026-11-20T12:00:00Z');
const TENURES = ['', '2 years using the app', '3 months using the app', '5 days using the app'];

let store: ReturnType<typeof tempStore>;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

/** Stores the review with its topics as a poll under `config` computes them (store/review-fields.ts). */
function storeUnder(config: Config, review: { rating: number; content: string }, i: number): number {
  const taxonomy = configTaxonomy(config);
  return storeReview(store.db, {
    appHandle: 'shop',
    rating: review.rating,
    content: review.content,
    timeUsingApp: TENURES[i % TENURES.length] as string,
    createdAt: new Date(AT.getTime() - i * 60_000),
    topics: topicsOf(review.content, taxonomy),
    topicsVersion: taxonomy.version,
  });
}

/** Every row of the inbox, as its pages and the export read them. */
function inboxRows() {
  return listInbox(store.db, {}, { limit: 1000 }).rows;
}

describe.each([
  ['the default config', DEFAULT_CONFIG],
  ['a config with custom topics and keyword groups', CUSTOM_CONFIG],
])('the labelled reviews under %s', (_name, config) => {
  it('score the same from their stored topics as from their text', () => {
    for (const [i, review] of LABELLED.entries()) storeUnder(config, review, i);
    const rules = alertPolicyOf(config).scoring;
    const presenter = presenterOf(config);
    const rows = inboxRows();
    expect(rows).toHaveLength(LABELLED.length);
    let withTopics = 0;
    for (const row of rows) {
      expect(row.topicsVersion).toBe(rules.topics.version);
      const matched = scoreReview(
        { rating: row.rating, content: row.content, timeUsingApp: row.timeUsingApp },
        rules,
      );
      expect(presenter.severity(row)).toEqual(matched);
      if (matched.reasons.some((r) => r.startsWith('mentions '))) withTopics++;
    }
    // The set exercises the topics: most reviews have one with a weight.
    expect(withTopics).toBeGreaterThan(LABELLED.length / 2);
  });
});

describe('the export and the API', () => {
  it('keep their columns and keys: the topics version the rows carry is not one', () => {
    storeUnder(DEFAULT_CONFIG, { rating: 1, content: 'Charged twice, no refund' }, 0);
    const [row] = inboxRows();
    expect(row?.topicsVersion).toBe(configTaxonomy(DEFAULT_CONFIG).version);
    expect(CSV_COLUMNS).toEqual([
      ...[
        'id',
        'url',
        'app',
        'app_handle',
        'role',
        'rating',
        'date',
        'first_seen_at',
        'reviewer',
        'location',
      ],
      ...['time_using_app', 'priority', 'severity', 'reasons', 'keyword_groups', 'status', 'assignee'],
      ...['topics', 'tags', 'removed_at', 'content'],
    ]);
    const json = rowJson(row as NonNullable<typeof row>, presenterOf(DEFAULT_CONFIG), undefined);
    expect(Object.keys(json)).toEqual([
      ...['id', 'url', 'app', 'rating', 'date', 'createdDate', 'firstSeenAt', 'reviewer', 'location'],
      ...['timeUsingApp', 'priority', 'severity', 'keywordGroups', 'status', 'assignee', 'topics', 'tags'],
      ...['removedAt', 'content'],
    ]);
    expect(json.severity).toEqual({
      score: 75,
      reasons: ['1 star', 'mentions billing: charged twice, refund'],
    });
  });
});

describe('a stored row', () => {
  it('scores from its stored topics when the config computed them, without matching its text', () => {
    const taxonomy = configTaxonomy(DEFAULT_CONFIG);
    // Words the text does not have: only the stored topics can have put them in the reasons.
    storeReview(store.db, {
      appHandle: 'shop',
      rating: 2,
      content: 'Parcel never arrived',
      topics: [{ name: 'billing', words: ['Charged TWICE', 'refund', 'charged twice'] }],
      topicsVersion: taxonomy.version,
    });
    const [row] = inboxRows();
    expect(presenterOf(DEFAULT_CONFIG).severity(row as NonNullable<typeof row>).reasons).toEqual([
      '2 stars',
      'mentions billing: charged twice, refund',
    ]);
  });

  it('scores from its text after a topics: change, until the backfill reaches it', () => {
    // Stored under the built-in topics; the config now adds `shipping` and reweighs `billing`.
    storeReview(store.db, {
      appHandle: 'shop',
      rating: 2,
      content: 'Parcel never arrived, filed a chargeback',
      topics: topicsOf('Parcel never arrived, filed a chargeback', BUILT_IN_TAXONOMY),
      topicsVersion: BUILT_IN_TAXONOMY.version,
    });
    const [row] = inboxRows();
    expect(row?.topicsVersion).toBe(BUILT_IN_TAXONOMY.version);
    expect(row?.topicsVersion).not.toBe(configTaxonomy(CUSTOM_CONFIG).version);
    expect(presenterOf(CUSTOM_CONFIG).severity(row as NonNullable<typeof row>).reasons).toEqual([
      '2 stars',
      'mentions billing: chargeback',
      'mentions shipping: never arrived',
    ]);
  });

  it('scores from its text when its topics were never computed', () => {
    storeReview(store.db, {
      appHandle: 'shop',
      rating: 1,
      content: 'They charged me twice',
      topics: [],
      topicsVersion: null,
    });
    const [row] = inboxRows();
    expect(presenterOf(DEFAULT_CONFIG).severity(row as NonNullable<typeof row>).reasons).toContain(
      'mentions billing: charged me twice',
    );
  });
});

describe("the digest's worst reviews", () => {
  it('rank by stored topics when current and by the text when stale, and list no topics', () => {
    const taxonomy = configTaxonomy(DEFAULT_CONFIG);
    const createdAt = new Date('2026-11-18T12:00:00Z');
    // The same text twice: one row's stored topics are current (and say more than its text), the other's
    // are stale.
    storeReview(store.db, {
      appHandle: 'shop',
      identity: 'current',
      rating: 1,
      content: 'meh',
      createdAt,
      topics: [{ name: 'data-loss', words: ['lost all my orders'] }],
      topicsVersion: taxonomy.version,
    });
    storeReview(store.db, {
      appHandle: 'shop',
      identity: 'stale',
      rating: 1,
      content: 'meh',
      createdAt,
      topics: [{ name: 'data-loss', words: ['lost all my orders'] }],
      topicsVersion: 'an-older-taxonomy',
    });
    const window = windowOf(
      { start: new Date('2026-11-16T00:00:00Z'), end: new Date('2026-11-23T00:00:00Z') },
      'UTC',
    );
    const candidates = reviewsAtMost(store.db, ['shop'], window, 3).get('shop') ?? [];
    const worst = rankWorst(candidates, alertPolicyOf(DEFAULT_CONFIG).scoring);
    expect(worst.map((r) => [r.reviewId, r.severity.reasons])).toEqual([
      ['current', ['1 star', 'mentions data-loss: lost all my orders']],
      ['stale', ['1 star']],
    ]);
    for (const review of worst) {
      expect(review).not.toHaveProperty('topics');
      expect(review).not.toHaveProperty('topicsVersion');
    }
  });
});

describe("a poll's review alerts", () => {
  it('score a new review and an edit from the topics the poll stored for them', () => {
    const config = parseConfig({ apps: [{ handle: 'shop', notify: [] }] }, {});
    const policy = alertPolicyOf(config);
    const version = policy.scoring.topics.version;
    // Topics the texts do not have: only the stored ones can put them in the reasons.
    const id = storeReview(store.db, {
      appHandle: 'shop',
      rating: 1,
      content: 'meh',
      firstSeenAt: AT,
      topics: [{ name: 'billing', words: ['charged twice'] }],
      topicsVersion: version,
    });
    const edited = storeReview(store.db, { appHandle: 'shop', rating: 5, content: 'fine', firstSeenAt: AT });
    const pollRunId = insertPollRun(store.db, {
      appHandle: 'shop',
      startedAt: AT,
      finishedAt: AT,
      status: 'ok',
      requests: 1,
      pages: 1,
      newReviews: 1,
      editedReviews: 1,
    });
    const fetched = identify({
      reviewId: 'edited',
      reviewer: 'Store 2',
      location: '',
      rating: 2,
      content: 'meh again',
      createdDate: AT.toISOString(),
      timeUsingApp: '',
      appName: 'shop',
      appUrl: '',
    });
    raiseAlerts(store.db, policy, {
      handle: 'shop',
      pollRunId,
      baseline: false,
      newReviews: reviewsOf(store.db, 'shop').filter((r) => r.id === id),
      edits: [
        {
          editId: 1,
          rowId: edited,
          oldRating: 5,
          fetched,
          stored: { topics: [{ name: 'data-loss', words: ['lost my orders'] }], topicsVersion: version },
        },
      ],
      at: AT,
    });
    const payloads = store.db.$client
      .prepare<[], { payload: string }>(`select payload from alerts where kind = 'review' order by id`)
      .all()
      .map((row) => JSON.parse(row.payload) as ReviewAlert);
    expect(payloads.map((a) => [a.severity.reasons, a.topics])).toEqual([
      [['1 star', 'mentions billing: charged twice'], ['billing']],
      [['2 stars', 'mentions data-loss: lost my orders', 'rerated from 5 to 2'], ['data-loss']],
    ]);
    for (const alert of payloads) expect(alert.review).not.toHaveProperty('topics');
  });
});
