import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CatalogAuthError,
  CatalogClient,
  CatalogCreditsError,
  CatalogNotFoundError,
  CatalogRateLimitError,
  CatalogRequestError,
  CatalogResponseError,
  CatalogUnavailableError,
  InvalidHandleError,
  summarize,
} from '../../src/catalog/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { parseRetryAfter } from '../../src/util/http.js';
import { freePort } from '../helpers/index.js';

const KEY = 'test-secret-key-123';
let sim: Simulator;
let client: CatalogClient;

beforeAll(async () => {
  sim = await startSimulator({
    apiKey: KEY,
    handles: ['my-app', 'empty-app'],
    appCount: 3,
    maxReviewsPerApp: 40,
  });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.controls.reset();
  client = new CatalogClient({ baseUrl: sim.url, apiKey: KEY, timeoutMs: 2_000 });
});

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('CatalogClient against the simulator', () => {
  it('reads reviews newest first with summary and pagination', async () => {
    const page = await client.reviews('my-app');
    expect(page.reviews.length).toBeGreaterThan(0);
    const dates = page.reviews.map((r) => Date.parse(r.createdDate));
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);
    expect(page.reviews[0]?.reviewId).toMatch(/^\d+$/);
    expect(page.pagination?.currentPage).toBe(1);
    const summary = summarize(page.summary);
    expect(summary.complete).toBe(true);
    expect(summary.count).toBe(sim.controls.reviews('my-app').length);
  });

  it('reads all seven endpoints', async () => {
    const detail = await client.app('my-app');
    expect(typeof detail.rating).toBe('string');
    const categories = await client.categories();
    expect(categories.urls.length).toBeGreaterThan(0);
    const category = await client.category(categories.urls[0]?.handle ?? '');
    expect(category.apps.length).toBeGreaterThan(0);
    const developers = await client.developers();
    const developer = await client.developer(developers.urls[0]?.handle ?? '');
    expect(developer.apps.length).toBeGreaterThan(0);
    const apps = await client.apps();
    expect(apps.apps.map((a) => a.handle)).toContain('my-app');
  });

  it('tolerates the data quirks of the real API', async () => {
    sim.controls.setQuirks({
      emptyIds: true,
      invalidDates: true,
      nullCounts: true,
      starLabels: true,
      reducedShapes: true,
      extraFields: true,
      missingOptional: true,
    });
    const page = await client.reviews('my-app');
    expect(page.reviews.every((r) => r.reviewId === '')).toBe(true);
    const all = [...page.reviews, ...(await client.reviews('my-app', { page: 2 })).reviews];
    expect(all.some((r) => r.createdDate === 'Invalid Date')).toBe(true);
    const summary = summarize(page.summary);
    expect(summary.complete).toBe(false);
    expect(summary.average).toBeNull();
    expect(page.summary.some((e) => e.label.includes('stars'))).toBe(true);
    const detail = await client.app('my-app');
    expect(detail.developer?.website ?? undefined).toBeUndefined();
    const developers = await client.developers();
    const reduced = await client.developer(developers.urls[0]?.handle ?? '');
    expect(reduced.website ?? undefined).toBeUndefined();
  });

  it('reads "5 stars" labels as five stars', () => {
    const summary = summarize([
      { label: '5 stars', count: 3 },
      { label: '4 stars', count: 1 },
      { label: '3 stars', count: 0 },
      { label: '2 stars', count: 0 },
      { label: '1 star', count: 0 },
    ]);
    expect(summary).toMatchObject({ count: 4, average: 4.75, complete: true });
  });

  it('an app with no reviews and a page past the last are empty, not errors', async () => {
    sim.controls.addApp('no-reviews-yet', { reviewCount: 0 });
    const empty = await client.reviews('no-reviews-yet');
    expect(empty.reviews).toEqual([]);
    expect(empty.pagination?.hasNextPage).toBe(false);
    const past = await client.reviews('my-app', { page: 999 });
    expect(past.reviews).toEqual([]);
    expect(past.pagination?.hasNextPage).toBe(false);
  });

  it('maps a bad key to CatalogAuthError without leaking the key', async () => {
    const wrong = new CatalogClient({ baseUrl: sim.url, apiKey: 'wrong-key-456' });
    const err = await failure(wrong.reviews('my-app'));
    expect(err).toBeInstanceOf(CatalogAuthError);
    expect((err as CatalogAuthError).retryable).toBe(false);
    expect((err as CatalogAuthError).fatal).toBe(true);
    expect(err.message).toMatch(/CATALOG_API_KEY/);
    expect(err.message).not.toContain('wrong-key-456');
    expect(err.message).not.toContain(KEY);
  });

  it('maps no credits to CatalogCreditsError', async () => {
    sim.controls.setCredits(1);
    await client.reviews('my-app');
    const err = await failure(client.reviews('my-app'));
    expect(err).toBeInstanceOf(CatalogCreditsError);
    expect((err as CatalogCreditsError).fatal).toBe(true);
    expect(err.message).toMatch(/credits/);
  });

  it('maps 404 to CatalogNotFoundError naming the handle', async () => {
    const err = await failure(client.reviews('no-such-app'));
    expect(err).toBeInstanceOf(CatalogNotFoundError);
    expect(err.message).toContain('"no-such-app"');
    expect((err as CatalogNotFoundError).retryable).toBe(false);
    expect((err as CatalogNotFoundError).fatal).toBe(false);
  });

  it('maps 429 to CatalogRateLimitError carrying Retry-After', async () => {
    sim.controls.failNext(1, { status: 429, retryAfterSec: 7 });
    const err = await failure(client.reviews('my-app'));
    expect(err).toBeInstanceOf(CatalogRateLimitError);
    expect((err as CatalogRateLimitError).retryAfterMs).toBe(7_000);
    expect((err as CatalogRateLimitError).retryable).toBe(true);
    expect((err as CatalogRateLimitError).fatal).toBe(false);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3_000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    // Five minutes at most, however long it asks.
    expect(parseRetryAfter('86400')).toBe(300_000);
    expect(parseRetryAfter(new Date(7_200_000).toUTCString(), 0)).toBe(300_000);
  });

  it('maps 5xx, timeouts and refused connections to retryable CatalogUnavailableError', async () => {
    sim.controls.failNext(1, { status: 503 });
    const server = await failure(client.reviews('my-app'));
    expect(server).toBeInstanceOf(CatalogUnavailableError);
    expect((server as CatalogUnavailableError).status).toBe(503);
    expect((server as CatalogUnavailableError).fatal).toBe(false);

    sim.controls.setLatency(500);
    const slow = new CatalogClient({ baseUrl: sim.url, apiKey: KEY, timeoutMs: 100 });
    const timeout = await failure(slow.reviews('my-app'));
    expect(timeout).toBeInstanceOf(CatalogUnavailableError);
    expect(timeout.message).toMatch(/no answer within 100 ms/);
    sim.controls.setLatency(0);

    const nowhere = new CatalogClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, apiKey: KEY });
    const refused = await failure(nowhere.reviews('my-app'));
    expect(refused).toBeInstanceOf(CatalogUnavailableError);
    expect(refused.message).toMatch(/ECONNREFUSED/);
  });

  it('maps other 4xx to a non-retryable CatalogRequestError', async () => {
    sim.controls.failNext(1, { status: 400 });
    const err = await failure(client.reviews('my-app'));
    expect(err).toBeInstanceOf(CatalogRequestError);
    expect((err as CatalogRequestError).retryable).toBe(false);
    expect((err as CatalogRequestError).fatal).toBe(false);
  });

  it('names the endpoint and the path of a malformed field', async () => {
    sim.controls.malformNext(1, { kind: 'bad-field', pathIncludes: '/reviews' });
    const field = await failure(client.reviews('my-app'));
    expect(field).toBeInstanceOf(CatalogResponseError);
    expect(field.message).toContain('/v1/scrape/platform/app/my-app/reviews');
    expect((field as CatalogResponseError).path).toMatch(/^data\.reviews\[\d+\]\.rating$/);

    sim.controls.malformNext(1, { kind: 'not-json' });
    expect((await failure(client.reviews('my-app'))).message).toMatch(/not JSON/);
    sim.controls.malformNext(1, { kind: 'no-envelope' });
    expect((await failure(client.reviews('my-app'))).message).toMatch(/success: true, data/);
  });

  it('rejects a handle that cannot exist before sending anything', async () => {
    sim.controls.resetStats();
    for (const bad of ['My-App', 'my app', '../apps', 'app_1', '']) {
      expect(await failure(client.reviews(bad))).toBeInstanceOf(InvalidHandleError);
    }
    expect(sim.controls.stats().requests).toBe(0);
  });
});
