/**
 * The demo on real parts (its simulator over HTTP, Redis, SQLite, its inbox): every alert it prints leads
 * into its own inbox, to the review, and the inbox answers at that address. Its database and Redis keys
 * are this test's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARRIVALS_PER_ROUND, type Demo, demoArrival, startDemo } from '../src/demo.js';
import { captureLog, tempDir, uniquePrefix } from './helpers/index.js';

describe('the demo', () => {
  let demo: Demo;
  let dir: ReturnType<typeof tempDir>;
  const printed: string[] = [];
  const write = process.stdout.write.bind(process.stdout);

  beforeAll(async () => {
    dir = tempDir();
    // The console channel writes its alerts to stdout: read them there.
    process.stdout.write = ((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    demo = await startDemo(captureLog().logger, { dataDir: dir.dir, queuePrefix: uniquePrefix() });
  }, 30_000);

  afterAll(async () => {
    await demo?.stop();
    process.stdout.write = write;
    dir?.cleanup();
  });

  it('sets its own inbox as web.publicUrl, and its alerts link to the review there', async () => {
    const publicUrl = demo.config.web.publicUrl ?? '';
    expect(publicUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(demo.inbox.url).toBe(`${publicUrl}/`);
    expect((await fetch(`${publicUrl}/login`)).status).toBe(200);
    // The burst after the baseline: its first alert names the review in the inbox, and the listing's reviews.
    const link = new RegExp(`${publicUrl.replace(/\./g, '\\.')}/apps/bolt-subscriptions/reviews/\\d+`);
    await expect.poll(() => printed.join(''), { timeout: 40_000, interval: 250 }).toMatch(link);
    const alert = printed.join('');
    expect(alert).toContain('/bolt-subscriptions/reviews');
    // The link leads to the review's page (after the login).
    const url = link.exec(alert)?.[0] ?? '';
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^\/login\?next=/);
  }, 60_000);

  it('shows one topic spike about the Klaviyo wave, with its quotes and the price cut before it', async () => {
    const spike = /📈 Topic spike: \d+ low reviews of Acme Bundles about integrations[^\n]*'klaviyo'/;
    await expect.poll(() => printed.join(''), { timeout: 120_000, interval: 500 }).toMatch(spike);
    const all = printed.join('');
    const message = all.slice(all.search(spike)).split('──────')[0] ?? '';
    expect(message).toContain('Klaviyo sync stopped working');
    expect(message).toMatch(/Competitor Rival Bundles \([^)]*\): "Pro": price down \$19\/month → \$9\/month/);
    // One message for the wave: its later reviews make no second spike.
    expect(all.match(/📈 Topic spike/g)).toHaveLength(1);
  }, 150_000);
});

describe("the demo's arrivals", () => {
  it('never send a low review with the same words twice, and keep the content ones coming', () => {
    const arrivals = Array.from({ length: ARRIVALS_PER_ROUND * 20 }, (_, n) => demoArrival(n));
    const low = arrivals.filter((a) => a !== undefined && a.rating <= 3);
    const said = low.map((a) => `${a?.reviewer}: ${a?.review_content}`);
    expect(new Set(said).size).toBe(said.length);
    // Two alerts a round (one and two stars) for the first rounds, then none: still a few after the script.
    const alerted = low.filter((a) => (a?.rating ?? 5) <= 2);
    expect(alerted.length).toBeGreaterThanOrEqual(6);
    // One merchant per low slot: the loop alone never makes a wave of three reviewers.
    expect(new Set(alerted.map((a) => `${a?.handle} ${a?.reviewer}`)).size).toBe(2);
    expect(arrivals.slice(-ARRIVALS_PER_ROUND).filter((a) => a !== undefined).length).toBeGreaterThan(10);
    expect(arrivals.slice(-ARRIVALS_PER_ROUND).every((a) => a === undefined || a.rating >= 4)).toBe(true);
  });
});
