/**
 * Each review's topics, stored: computed by the poll that stores the review, again when it is edited, and
 * for stored reviews by the backfill when the topic config changed.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CatalogClient } from '../../src/catalog/index.js';
import { parseConfig } from '../../src/config/index.js';
import { startTopicBackfill } from '../../src/root/topic-backfill.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { reviewsOf } from '../../src/store/reviews.js';
import {
  type BackfillProgress,
  backfillTopics,
  configTaxonomy,
  reviewsWithoutTopics,
} from '../../src/store/topic-backfill.js';
import { BUILT_IN_TAXONOMY, taxonomyWith } from '../../src/topics/index.js';
import { Releasers } from '../../src/util/releasers.js';
import { pollApp } from '../../src/watch/poll.js';
import { captureLog, tempStore } from '../helpers/index.js';
import { storeReview } from '../helpers/reviews.js';

let store: ReturnType<typeof tempStore>;
beforeEach(() => {
  store = tempStore();
});
afterEach(() => store.cleanup());

/** The stored topics as (review, topic) pairs, read as the inbox's topic filter reads them. */
function topicRows(): string[] {
  return store.db.$client
    .prepare<[], { id: number; topic: string }>(
      "select r.id as id, t.value ->> '$.name' as topic from reviews r, json_each(r.topics) t order by id, topic",
    )
    .all()
    .map((r) => `${r.id}:${r.topic}`);
}

function storedTopics(id: number): { topics: unknown; version: string | null } {
  const row = store.db.$client
    .prepare<[number], { topics: string; version: string | null }>(
      'select topics, topics_version as version from reviews where id = ?',
    )
    .get(id);
  if (!row) throw new Error(`no review ${id}`);
  return { topics: JSON.parse(row.topics), version: row.version };
}

describe('a poll', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ appCount: 0, handles: [] });
  });
  afterAll(() => sim.close());

  it('stores each new review with its topics and words, and recomputes them on an edit', async () => {
    sim.controls.reset();
    sim.controls.addApp('shop-app', { reviewCount: 0 });
    const client = new CatalogClient({ baseUrl: sim.url, apiKey: 'k' });
    const deps = { client, store, logger: captureLog().logger };
    const options = { maxPages: 5, baselinePages: 2 };
    await pollApp(deps, 'shop-app', options);
    const [added] = sim.controls.addReviews('shop-app', [
      { rating: 1, review_content: 'They charged me twice and support never replied.' },
    ]);
    if (!added) throw new Error('no review added');
    await pollApp(deps, 'shop-app', options);
    const row = reviewsOf(store.db, 'shop-app').find((r) => r.reviewId === added.review_id);
    if (!row) throw new Error('not stored');
    expect(row.topics.map((t) => t.name).sort()).toEqual(['billing', 'support']);
    expect(row.topics.find((t) => t.name === 'billing')?.words.join(' ')).toMatch(/charged me twice/i);
    expect(row.topicsVersion).toBe(BUILT_IN_TAXONOMY.version);
    expect(topicRows()).toEqual([`${row.id}:billing`, `${row.id}:support`]);

    sim.controls.editReview('shop-app', added.review_id, { content: 'The app crashes on every order.' });
    await pollApp(deps, 'shop-app', options);
    expect(storedTopics(row.id).topics).toEqual([{ name: 'bugs', words: expect.any(Array) }]);
    expect(topicRows()).toEqual([`${row.id}:bugs`]);
  });
});

describe('the backfill', () => {
  function seedUncomputed(n: number): number[] {
    return Array.from({ length: n }, (_, i) =>
      storeReview(store.db, {
        appHandle: 'shop',
        content: i % 2 === 0 ? 'I want a refund for this.' : 'Lovely app, five stars.',
        topics: [],
        topicsVersion: null,
      }),
    );
  }

  it('gives stored reviews their topics in batches, with progress, and a second run does nothing', async () => {
    const ids = seedUncomputed(25);
    expect(reviewsWithoutTopics(store.db, BUILT_IN_TAXONOMY.version)).toBe(25);
    const progress: BackfillProgress[] = [];
    const run = await backfillTopics(store, BUILT_IN_TAXONOMY, {
      batch: 10,
      onProgress: (p) => progress.push(p),
    });
    expect(run).toEqual({ done: 25, total: 25 });
    expect(progress.map((p) => p.done)).toEqual([10, 20, 25]);
    expect(storedTopics(ids[0] ?? 0).topics).toEqual([{ name: 'billing', words: ['refund'] }]);
    expect(storedTopics(ids[1] ?? 0).topics).toEqual([]);
    expect(topicRows()).toHaveLength(13);
    expect(reviewsWithoutTopics(store.db, BUILT_IN_TAXONOMY.version)).toBe(0);

    const again = await backfillTopics(store, BUILT_IN_TAXONOMY, { batch: 10 });
    expect(again).toEqual({ done: 0, total: 0 });
    expect(topicRows()).toHaveLength(13);
  });

  it('recomputes every stored review when the topic config changes', async () => {
    const ids = seedUncomputed(4);
    await backfillTopics(store, BUILT_IN_TAXONOMY);
    const custom = taxonomyWith({ shipping: { words: ['star'] } });
    expect(custom.version).not.toBe(BUILT_IN_TAXONOMY.version);
    expect(reviewsWithoutTopics(store.db, custom.version)).toBe(4);
    expect(await backfillTopics(store, custom)).toEqual({ done: 4, total: 4 });
    expect(storedTopics(ids[1] ?? 0)).toEqual({
      topics: [{ name: 'shipping', words: ['stars'] }],
      version: custom.version,
    });
    expect(topicRows()).toContain(`${ids[1]}:shipping`);
  });

  it('stops between batches when the worker stops, and the next run goes on from there', async () => {
    seedUncomputed(30);
    let batches = 0;
    const first = await backfillTopics(store, BUILT_IN_TAXONOMY, {
      batch: 10,
      onProgress: () => batches++,
      stopped: () => batches >= 1,
    });
    expect(first).toEqual({ done: 10, total: 30 });
    expect(await backfillTopics(store, BUILT_IN_TAXONOMY, { batch: 10 })).toEqual({ done: 20, total: 20 });
  });
});

describe("the worker's start", () => {
  it('backfills in the background under the config, logs its progress, and stops when released', async () => {
    for (let i = 0; i < 1_200; i++) {
      storeReview(store.db, {
        appHandle: 'shop',
        content: `Dark mode broke the layout, take ${i}.`,
        topics: [],
        topicsVersion: null,
      });
    }
    const config = parseConfig(
      {
        catalog: { simulator: true },
        apps: [{ handle: 'shop' }],
        topics: { 'dark-mode': { words: ['dark mode'] } },
      },
      {},
    );
    const taxonomy = configTaxonomy(config);
    // The config's own topic makes another version than the built-in taxonomy's.
    expect(taxonomy.version).not.toBe(BUILT_IN_TAXONOMY.version);
    const log = captureLog();
    const releasers = new Releasers();
    const done = await startTopicBackfill(store, taxonomy, {
      releasers,
      logger: log.logger,
      progressEveryMs: 0,
    });
    expect(done).toEqual({ done: 1_200, total: 1_200 });
    const messages = log.lines().map((l) => l.msg);
    expect(messages).toContain('topics: 500 of 1200 stored reviews computed (41%)');
    expect(messages.at(-1)).toMatch(
      /^topics: 1200 stored reviews computed in [\d.]+s \(taxonomy [0-9a-f]+\)$/,
    );
    expect(topicRows().filter((row) => row.endsWith(':dark-mode'))).toHaveLength(1_200);
    expect(await releasers.releaseAll()).toEqual([]);

    // A start whose store is up to date reads nothing and says nothing.
    const quiet = captureLog();
    const again = await startTopicBackfill(store, taxonomy, {
      releasers: new Releasers(),
      logger: quiet.logger,
    });
    expect(again).toEqual({ done: 0, total: 0 });
    expect(quiet.lines()).toEqual([]);
  });
});
