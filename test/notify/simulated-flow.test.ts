import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { partsOf, startWorker, type Worker } from '../../src/root/worker.js';
import { settingsOf } from '../../src/settings.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { captureLog, REDIS_URL, tempDir, uniquePrefix, waitFor } from '../helpers/index.js';
import { type FakeSlack, startFakeSlack } from '../helpers/slack.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fakeSlack(): Promise<FakeSlack> {
  const slack = await startFakeSlack();
  cleanups.push(() => slack.close());
  return slack;
}

async function worker(catalog: Record<string, unknown>, slack: FakeSlack): Promise<Worker> {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const config = parseConfig(
    {
      catalog,
      apps: [{ handle: 'shop', notify: ['team'] }],
      channels: { team: { type: 'slack', webhookUrl: slack.url } },
    },
    {},
  );
  const started = await startWorker(
    {
      ...settingsOf(config, { REDIS_URL }, 'test'),
      databasePath: join(dir.dir, 'reviewwatch.db'),
      queuePrefix: uniquePrefix(),
    },
    { mode: 'once', logger: captureLog().logger, privateQueues: true },
  );
  cleanups.push(() => started.stop());
  return started;
}

/** The baseline, then one new 1-star review and the poll that finds it: its alert reaches Slack. */
async function firstAlert(w: Worker, sim: Simulator, slack: FakeSlack) {
  const [baseline] = await w.pollNow(['shop']);
  expect(baseline?.result?.status).toBe('baseline');
  sim.controls.addReviews('shop', [{ rating: 1, review_content: 'Charged twice and no refund.' }]);
  await w.pollNow(['shop']);
  await waitFor(
    () => slack.accepted().length > 0,
    15_000,
    () => 'no alert reached Slack',
  );
  return slack.accepted()[0]?.body;
}

describe('alerts from the simulator, end to end', () => {
  it('say SIMULATED DATA in Slack when the worker polls its built-in simulator (catalog.simulator: true)', async () => {
    const slack = await fakeSlack();
    const w = await worker({ simulator: true }, slack);
    const sim = partsOf(w).simulator;
    if (!sim) throw new Error('catalog.simulator: true started no simulator');
    const body = await firstAlert(w, sim, slack);
    expect(body?.text).toMatch(/^\[SIMULATED DATA\] ★☆☆☆☆ /);
    expect(JSON.stringify(body?.blocks?.slice(0, 2))).toMatch(
      /\[SIMULATED DATA\].*made up by the built-in Catalog API simulator/,
    );
  });

  it('say nothing of the kind when the worker reads a configured API', async () => {
    const sim = await startSimulator({ appCount: 0, handles: ['shop'], maxReviewsPerApp: 20 });
    cleanups.push(() => sim.close());
    const slack = await fakeSlack();
    const w = await worker({ baseUrl: sim.url, apiKey: 'key' }, slack);
    const body = await firstAlert(w, sim, slack);
    expect(body?.text).toMatch(/^★☆☆☆☆ /);
    expect(JSON.stringify(body)).not.toMatch(/SIMULATED/);
  });
});
