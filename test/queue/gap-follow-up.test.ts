import { join } from 'node:path';
import { afterAll, beforeEach, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { startWorker, type Worker } from '../../src/root/worker.js';
import { settingsOf } from '../../src/settings.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { getApp } from '../../src/store/apps.js';
import { openGaps } from '../../src/store/gaps.js';
import { reviewsOf } from '../../src/store/reviews.js';
import { captureLog, REDIS_URL, tempDir, uniquePrefix, waitFor } from '../helpers/index.js';

let sim: Simulator;
const cleanups: Array<() => Promise<void> | void> = [];

beforeEach(async () => {
  sim = await startSimulator({ appCount: 0, handles: [] });
  sim.controls.addApp('busy-app', { reviewCount: 20 });
  cleanups.push(() => sim.close());
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Workers on one database and prefix; polls an hour apart, so only reading on closes a gap in time. */
function workers() {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const config = parseConfig({
    catalog: { baseUrl: sim.url, apiKey: 'k', maxRequestsPerSecond: 100 },
    poll: { every: '1h', maxPages: 2, baselinePages: 2 },
    apps: [{ handle: 'busy-app', notify: [] }],
  });
  const settings = {
    ...settingsOf(config, { REDIS_URL, REVIEWWATCH_HTTP_PORT: '0' }, 'test'),
    databasePath: join(dir.dir, 'reviewwatch.db'),
    queuePrefix: uniquePrefix(),
  };
  const log = captureLog();
  return {
    log,
    async start(mode: 'service' | 'once'): Promise<Worker> {
      const worker = await startWorker(settings, {
        mode,
        logger: log.logger,
        privateQueues: true,
        stopGraceMs: 5_000,
      });
      cleanups.push(() => worker.stop());
      return worker;
    },
  };
}

function expectNothingMissing(worker: Worker): void {
  const stored = new Set(reviewsOf(worker.store.db, 'busy-app').map((r) => r.reviewId));
  expect(sim.controls.reviews('busy-app').filter((r) => !stored.has(r.review_id))).toEqual([]);
}

it('a long-running worker reads a burst gap on within seconds, not at the next scheduled poll', {
  timeout: 45_000,
}, async () => {
  const run = workers();
  const worker = await run.start('service');
  const { store } = worker;
  await waitFor(
    () => getApp(store.db, 'busy-app')?.baselineAt != null,
    15_000,
    () => 'no baseline',
  );
  sim.controls.addReviews('busy-app', 25);
  const [first] = await worker.pollNow(['busy-app']);
  expect(first?.result?.gap).toMatchObject({ state: 'opened', unread: 5 });
  await waitFor(
    () => openGaps(store.db).length === 0,
    30_000,
    () => 'the gap is still open',
  );
  expectNothingMissing(worker);
  expect(run.log.text()).toMatch(/busy-app: burst read to its end/);
});

it('a gap a one-shot run left open is read on as soon as a long-running worker starts', {
  timeout: 45_000,
}, async () => {
  const run = workers();
  const once = await run.start('once');
  await once.pollNow(['busy-app']);
  sim.controls.addReviews('busy-app', 25);
  const [capped] = await once.pollNow(['busy-app']);
  expect(capped?.result?.gap?.state).toBe('opened');
  await once.stop();
  const service = await run.start('service');
  // Its schedule polls next in an hour; the gap is read on at once.
  await waitFor(
    () => openGaps(service.store.db).length === 0,
    15_000,
    () => 'the gap is still open',
  );
  expectNothingMissing(service);
});
