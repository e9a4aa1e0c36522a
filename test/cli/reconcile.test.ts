import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogClient } from '../../src/catalog/index.js';
import type { Simulator, WireReview } from '../../src/simulator/index.js';
import { openStore } from '../../src/store/db.js';
import { reviewsOf } from '../../src/store/reviews.js';
import { pollApp } from '../../src/watch/poll.js';
import { runCli } from '../helpers/cli.js';
import { type CliWorld, startCliWorld } from '../helpers/cli-world.js';
import { captureLog } from '../helpers/index.js';
import type { FakeSlack } from '../helpers/slack.js';

const KEY = 'reconcile-cli-key-51c2';
/** Each test runs the CLI several times: a second or more apiece on a loaded machine. */
const CLI_TEST_MS = 120_000;
const APPS = ['shop-one', 'shop-two'];
let sim: Simulator;
let slack: FakeSlack;
let world: CliWorld;
let env: Record<string, string>;

beforeAll(async () => {
  world = await startCliWorld(
    KEY,
    { appCount: 0, handles: APPS, maxReviewsPerApp: 40 },
    [
      'catalog:',
      '  baseUrl: "${CATALOG_API_BASE_URL}"',
      '  apiKey: "${CATALOG_API_KEY}"',
      '  maxRequestsPerSecond: 50',
      'poll: { reconcilePages: 3 }',
      'apps:',
      '  - handle: shop-one',
      '    notify: [support]',
      '  - handle: shop-two',
      'alerts: { lowRating: { maxRating: 2 }, ratingDrop: { minDrop: 5, displayed: false } }',
      'channels:',
      '  support: { type: slack, webhookUrl: "${SLACK_WEBHOOK_URL}" }',
    ].join('\n'),
  );
  ({ sim, slack, env } = world);
});

afterAll(() => world.close());

/** Baselines stored in the CLI's database, as a first `poll --once` would. */
async function baseline(): Promise<void> {
  const store = openStore(env.DATABASE_PATH as string);
  try {
    const client = new CatalogClient({ baseUrl: sim.url, apiKey: KEY });
    for (const handle of APPS) {
      await pollApp({ client, store, logger: captureLog().logger }, handle, {
        maxPages: 10,
        baselinePages: 10,
      });
    }
  } finally {
    store.close();
  }
}

function stored(handle: string) {
  const store = openStore(env.DATABASE_PATH as string);
  try {
    return reviewsOf(store.db, handle);
  } finally {
    store.close();
  }
}

describe('reviewwatch reconcile', () => {
  it(
    'exits 2 on a usage error, before touching anything',
    async () => {
      const unknown = await runCli(['reconcile', '--app', 'nope'], env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/"nope" is not a watched app/);
      const wait = await runCli(['reconcile', '--wait', 'abc'], env);
      expect(wait.code).toBe(2);
      expect(wait.stderr).toMatch(/--wait.*must be a positive number of seconds/);
    },
    CLI_TEST_MS,
  );

  it(
    'skips apps with no baseline, then finds what the polls missed, delivers it, and status counts the cost',
    async () => {
      const before = await runCli(['reconcile'], env);
      expect(before.code).toBe(0);
      expect(before.stdout).toMatch(/\[\d\/2\] shop-one: skipped: no baseline yet/);
      expect(before.stdout).toMatch(/Reconciled 0 of 2 apps with 0 API requests/);

      await baseline();
      const gone = sim.controls.reviews('shop-one')[12] as WireReview;
      sim.controls.archiveReview('shop-one', gone.review_id);
      const [missed] = sim.controls.addReviews('shop-one', [
        { rating: 1, reviewer: 'Late Store', review_content: 'Charged twice, nobody answers' },
      ]);
      sim.controls.resetStats();

      const run = await runCli(['reconcile'], env);
      expect(run.stderr).not.toMatch(/"level":50/);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/Reconciling 2 apps \(up to 3 pages each\)/);
      expect(run.stdout).toMatch(/\[\d\/2\] shop-one: 1 found late, 1 removed, 1 alert \(3 requests\)/);
      expect(run.stdout).toMatch(/\[\d\/2\] shop-two: matches the listing \(\d requests?\)/);
      const requests = sim.controls.stats().byEndpoint.reviews ?? 0;
      expect(run.stdout).toContain(
        `Reconciled 2 of 2 apps with ${requests} API requests: 1 found late (1 alert), 0 missed edits, 0 merged, 1 removed, 0 restored.`,
      );
      expect(run.stdout).toMatch(/support: 1 delivered/);
      const posted = slack.accepted();
      expect(posted).toHaveLength(1);
      expect(posted[0]?.body.text).toMatch(/New 1-star review of .* \(found late\)/);
      const rows = stored('shop-one');
      expect(rows.find((r) => r.reviewId === missed?.review_id)?.fromBaseline).toBe(false);
      expect(rows.find((r) => r.reviewId === gone.review_id)?.removedAt).toBeInstanceOf(Date);

      const status = await runCli(['status'], env);
      expect(status.stdout).toContain(`reconciliation: ${requests} API requests in the last 24 h (2 runs)`);
      const json = JSON.parse((await runCli(['status', '--json'], env)).stdout);
      expect(json.reconciliation).toEqual({ runs: 2, requests, period: '24h' });
    },
    CLI_TEST_MS,
  );

  it(
    'exits 1 naming an app it could not reconcile, and 3 when the key is rejected',
    async () => {
      sim.controls.failNext(1, { status: 500, pathIncludes: 'shop-two' });
      const failing = await runCli(['reconcile', '--app', 'shop-two'], env);
      expect(failing.code).toBe(1);
      expect(failing.stdout).toMatch(/failed: shop-two: .*500/);

      const rejected = await runCli(['reconcile'], { ...env, CATALOG_API_KEY: 'wrong-key' });
      expect(rejected.code).toBe(3);
      expect(rejected.stdout).toMatch(/stopped: .*CATALOG_API_KEY/);
    },
    CLI_TEST_MS,
  );
});
