import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CatalogResponseInfo } from '../../src/catalog/client.js';
import { CatalogClient, CatalogUnavailableError } from '../../src/catalog/index.js';
import { Metrics } from '../../src/ops/metrics.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { captureLog, freePort } from '../helpers/index.js';
import { sampleValue } from './helpers.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ appCount: 0, handles: ['shop'], maxReviewsPerApp: 5 });
});
afterAll(() => sim.close());

describe("the catalog client's onResponse", () => {
  it('reports each request with its kind, status and time, never the key', async () => {
    const seen: CatalogResponseInfo[] = [];
    const client = new CatalogClient({
      baseUrl: sim.url,
      apiKey: 'secret-key',
      onResponse: (i) => seen.push(i),
    });
    await client.reviews('shop', { page: 1 });
    await client.apps();
    await expect(client.developer('nobody-here')).rejects.toThrow();
    expect(seen.map(({ kind, status }) => ({ kind, status }))).toEqual([
      { kind: 'reviews', status: 200 },
      { kind: 'apps', status: 200 },
      { kind: 'developer', status: 404 },
    ]);
    expect(seen[0]?.endpoint).toMatch(/^GET \/v1\/scrape\/platform\/app\/shop\/reviews\?page=1/);
    expect(seen.every((i) => Number.isInteger(i.ms) && i.ms >= 0)).toBe(true);
    expect(JSON.stringify(seen)).not.toContain('secret-key');
  });

  it("reports 'error' when no answer comes, and counts it", async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    const client = new CatalogClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      apiKey: 'k',
      onResponse: metrics.onCatalogResponse,
    });
    await expect(client.reviews('shop')).rejects.toBeInstanceOf(CatalogUnavailableError);
    const text = await metrics.metrics();
    expect(
      sampleValue(text, 'reviewwatch_catalog_requests_total', { endpoint: 'reviews', status: 'error' }),
    ).toBe(1);
  });

  it('does not let a throwing hook fail the request', async () => {
    const log = captureLog();
    const client = new CatalogClient({
      baseUrl: sim.url,
      apiKey: 'k',
      logger: log.logger,
      onResponse: () => {
        throw new Error('observer broke');
      },
    });
    const page = await client.reviews('shop');
    expect(page.reviews.length).toBeGreaterThan(0);
    expect(log.text()).toContain('observer broke');
  });
});
