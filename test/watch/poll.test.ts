import { count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CatalogClient, CatalogResponseError, type ReviewsPage } from '../../src/catalog/index.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { getApp } from '../../src/store/apps.js';
import { reviewsOf } from '../../src/store/reviews.js';
import { pollRuns, ratingSnapshots, reviewEdits, reviews } from '../../src/store/schema.js';
import { type PollOptions, type PollProgress, pollApp } from '../../src/watch/poll.js';
import { captureLog, tempStore, waitFor } from '../helpers/index.js';

const OPTIONS: PollOptions = { maxPages: 10, baselinePages: 3 };
let sim: Simulator;
let store: ReturnType<typeof tempStore>;
let client: CatalogClient;
let log: ReturnType<typeof captureLog>;

beforeAll(async () => {
  sim = await startSimulator({ appCount: 0, handles: ['my-app'] });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.controls.reset();
  sim.controls.addApp('big-app', { reviewCount: 80 });
  sim.controls.addApp('quiet-app', { reviewCount: 0 });
  store = tempStore();
  client = new CatalogClient({ baseUrl: sim.url, apiKey: 'k' });
  log = captureLog();
});
afterEach(() => store.cleanup());

const deps = () => ({ client, store, logger: log.logger });
const poll = (handle = 'big-app', options = OPTIONS, onProgress?: (p: PollProgress) => void) =>
  pollApp(deps(), handle, options, onProgress);

function requests(): number {
  return sim.controls.stats().byEndpoint.reviews ?? 0;
}

describe('the baseline poll', () => {
  it('stores history to the configured depth, shows progress, and marks it as history', async () => {
    const progress: PollProgress[] = [];
    const outcome = await poll('big-app', OPTIONS, (p) => progress.push(p));
    expect(outcome.status).toBe('baseline');
    expect(outcome.requests).toBe(3);
    expect(outcome.newReviews).toHaveLength(30);
    expect(outcome.newReviews.every((r) => r.fromBaseline)).toBe(true);
    expect(progress.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(progress.at(-1)?.reviewsSeen).toBe(30);
    expect(log.lines().filter((l) => /baseline page/.test(l.msg))).toHaveLength(3);
    expect(getApp(store.db, 'big-app')?.baselineAt).toBeInstanceOf(Date);
    // The newest 30, in the simulator's newest-first order.
    const newest = sim.controls
      .reviews('big-app')
      .slice(0, 30)
      .map((r) => r.review_id);
    expect(
      reviewsOf(store.db, 'big-app')
        .map((r) => r.reviewId)
        .sort(),
    ).toEqual([...newest].sort());
  });

  it('of an app with no reviews costs one request and stores nothing', async () => {
    const outcome = await poll('quiet-app');
    expect(outcome).toMatchObject({ status: 'baseline', requests: 1 });
    expect(outcome.newReviews).toHaveLength(0);
    sim.controls.addReviews('quiet-app', [{ rating: 1, review_content: 'First review, and it is bad' }]);
    const next = await poll('quiet-app');
    expect(next.status).toBe('ok');
    expect(next.newReviews.map((r) => r.content)).toEqual(['First review, and it is bad']);
    expect(next.newReviews[0]?.fromBaseline).toBe(false);
  });
});

describe('steady-state polls', () => {
  beforeEach(async () => {
    await poll();
    sim.controls.resetStats();
  });

  it('cost exactly one request when nothing is new, and snapshot the rating each time', async () => {
    const outcome = await poll();
    expect(outcome).toMatchObject({ status: 'ok', requests: 1, capped: false });
    expect(outcome.newReviews).toHaveLength(0);
    expect(requests()).toBe(1);
    const snapshots = store.db
      .select()
      .from(ratingSnapshots)
      .where(eq(ratingSnapshots.appHandle, 'big-app'))
      .all();
    expect(snapshots).toHaveLength(2);
    expect(snapshots[1]?.count).toBe(80);
    expect(snapshots[1]?.average).toBeCloseTo(outcome.summary?.average ?? 0, 5);
  });

  it('find new reviews on one page with one request, and on two pages with two', async () => {
    sim.controls.addReviews('big-app', [{ rating: 1 }, { rating: 5 }, { rating: 2 }]);
    const few = await poll();
    expect(few.requests).toBe(1);
    expect(few.newReviews.map((r) => r.rating).sort()).toEqual([1, 2, 5]);
    expect(few.newReviews.every((r) => !r.fromBaseline)).toBe(true);

    sim.controls.addReviews('big-app', 15);
    const many = await poll();
    expect(many.requests).toBe(2);
    expect(many.newReviews).toHaveLength(15);
  });

  it('stop at the page cap and say so', async () => {
    sim.controls.addReviews('big-app', 35);
    const outcome = await poll('big-app', { ...OPTIONS, maxPages: 2 });
    expect(outcome.capped).toBe(true);
    expect(outcome.newReviews).toHaveLength(20);
    expect(log.text()).toMatch(/no stored review within 2 pages/);
    const run = store.db.select().from(pollRuns).where(eq(pollRuns.id, outcome.pollRunId)).get();
    expect(run?.capped).toBe(true);
  });

  it('store a review that shifts onto the next page while paging once', async () => {
    sim.controls.addReviews('big-app', 14);
    // Two more arrive between page 1 and page 2: page 2 then starts with page 1's last two reviews.
    const shifting = new (class extends CatalogClient {
      override async reviews(handle: string, options: { page?: number } = {}): Promise<ReviewsPage> {
        const page = await super.reviews(handle, options);
        if (options.page === 1) sim.controls.addReviews('big-app', 2);
        return page;
      }
    })({ baseUrl: sim.url, apiKey: 'k' });
    const outcome = await pollApp({ client: shifting, store, logger: log.logger }, 'big-app', OPTIONS);
    expect(outcome.newReviews).toHaveLength(14);
    expect(new Set(outcome.newReviews.map((r) => r.identity)).size).toBe(14);
    const next = await poll();
    expect(next.newReviews).toHaveLength(2);
    const stored = store.db
      .select({ n: count() })
      .from(reviews)
      .where(eq(reviews.appHandle, 'big-app'))
      .get();
    expect(stored?.n).toBe(30 + 16);
  });

  it('record an edit with its old and new values, not as a new review', async () => {
    const target = sim.controls.reviews('big-app')[4];
    if (!target) throw new Error('no review');
    sim.controls.editReview('big-app', target.review_id, {
      rating: 1,
      content: 'Update: they charged me twice',
    });
    const outcome = await poll();
    expect(outcome.newReviews).toHaveLength(0);
    expect(outcome.editedReviews).toHaveLength(1);
    const edit = store.db.select().from(reviewEdits).get();
    expect(edit).toMatchObject({
      oldRating: target.rating,
      newRating: 1,
      oldContent: target.review_content,
      newContent: 'Update: they charged me twice',
    });
    const row = reviewsOf(store.db, 'big-app').find((r) => r.reviewId === target.review_id);
    expect(row).toMatchObject({ rating: 1, content: 'Update: they charged me twice' });
    // Seen once; the next poll does not record it again.
    expect((await poll()).editedReviews).toHaveLength(0);
    expect(store.db.select({ n: count() }).from(reviewEdits).get()?.n).toBe(1);
  });

  it('skip the lookup while page 1 is unchanged, and still see every change to it', async () => {
    // Quiet polls compare page 1 with the hash stored by the last one (no lookup of its reviews).
    expect((await poll()).newReviews).toHaveLength(0);
    expect((await poll()).newReviews).toHaveLength(0);
    const [newest, second] = sim.controls.reviews('big-app');
    if (!newest || !second) throw new Error('no reviews');
    sim.controls.editReview('big-app', second.review_id, { rating: 2 });
    const edited = await poll();
    expect(edited.editedReviews.map((e) => e.fetched.reviewId)).toEqual([second.review_id]);
    sim.controls.addReviews('big-app', [{ rating: 1 }]);
    const added = await poll();
    expect(added.newReviews.map((r) => r.rating)).toEqual([1]);
    sim.controls.archiveReview('big-app', newest.review_id);
    expect(await poll()).toMatchObject({ newReviews: [], editedReviews: [] });
    expect(await poll()).toMatchObject({ newReviews: [], editedReviews: [], requests: 1 });
  });

  it('keep finding edits after two polls of the app raced with an edit between them', async () => {
    const x = sim.controls.reviews('big-app')[4];
    if (!x) throw new Error('no review');
    const [first, second] = x.rating >= 3 ? [1, 5] : [5, 1];
    // An edit re-dates a review and puts it first; stored, so page 1 starts with it.
    sim.controls.editReview('big-app', x.review_id, { rating: first });
    expect((await poll()).editedReviews).toHaveLength(1);

    // A client whose answers wait until the test lets them through: two polls read page 1 at different
    // moments and finish in the same turn of the event loop, the later reader first.
    const held = () => {
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const client = new (class extends CatalogClient {
        override async reviews(handle: string, options: { page?: number } = {}): Promise<ReviewsPage> {
          const page = await super.reviews(handle, options);
          await gate;
          return page;
        }
      })({ baseUrl: sim.url, apiKey: 'k' });
      return { client, release };
    };
    const waitForRequests = (n: number) =>
      waitFor(
        () => requests() >= n,
        15_000,
        () => `${requests()} requests, waiting for ${n}`,
      );
    const early = held();
    const late = held();
    const before = requests();
    const pollEarly = pollApp({ client: early.client, store, logger: log.logger }, 'big-app', OPTIONS);
    await waitForRequests(before + 1);
    sim.controls.editReview('big-app', x.review_id, { rating: second });
    const pollLate = pollApp({ client: late.client, store, logger: log.logger }, 'big-app', OPTIONS);
    await waitForRequests(before + 2);
    late.release();
    early.release();
    const [fromEarly, fromLate] = await Promise.all([pollEarly, pollLate]);
    expect(fromLate.editedReviews).toHaveLength(1);
    expect(fromEarly.editedReviews).toHaveLength(0);

    // Re-rated back: page 1 is now exactly what the early poll read, which is not what is stored.
    sim.controls.editReview('big-app', x.review_id, { rating: first });
    const next = await poll();
    expect(next.editedReviews.map((e) => [e.known.rating, e.fetched.rating])).toEqual([[second, first]]);
    expect(reviewsOf(store.db, 'big-app').find((r) => r.reviewId === x.review_id)?.rating).toBe(first);
  });

  it('survive an archived review and record the smaller count', async () => {
    const first = sim.controls.reviews('big-app')[0];
    if (!first) throw new Error('no review');
    sim.controls.archiveReview('big-app', first.review_id);
    const outcome = await poll();
    expect(outcome.newReviews).toHaveLength(0);
    expect(outcome.summary?.count).toBe(79);
  });

  it('leave the store as it was when a page is malformed', async () => {
    sim.controls.addReviews('big-app', 12);
    sim.controls.malformNext(1, { kind: 'bad-field', pathIncludes: 'page=2' });
    const before = store.db.select({ n: count() }).from(reviews).get()?.n;
    const runsBefore = store.db.select({ n: count() }).from(pollRuns).get()?.n;
    await expect(poll()).rejects.toBeInstanceOf(CatalogResponseError);
    expect(store.db.select({ n: count() }).from(reviews).get()?.n).toBe(before);
    expect(store.db.select({ n: count() }).from(pollRuns).get()?.n).toBe(runsBefore);
    // Nothing lost: the retry finds all twelve.
    expect((await poll()).newReviews).toHaveLength(12);
  });
});

describe('reviews without ids', () => {
  it('get a fingerprint identity, are logged as such, and never come back as new', async () => {
    sim.controls.setQuirks({ emptyIds: true });
    const baseline = await poll('my-app', { ...OPTIONS, baselinePages: 20 });
    expect(baseline.newReviews.length).toBe(sim.controls.reviews('my-app').length);
    expect(baseline.newReviews.every((r) => r.identity.startsWith('fp:'))).toBe(true);
    expect(log.text()).toMatch(/without a review_id/);

    sim.controls.addReviews('my-app', [{ rating: 1, review_content: 'No id on me' }]);
    const next = await poll('my-app');
    expect(next.newReviews.map((r) => r.content)).toEqual(['No id on me']);
    expect(next.requests).toBe(1);

    // The ids come back: nothing is new, and the stored rows take their real ids.
    sim.controls.setQuirks({ emptyIds: false });
    const withIds = await poll('my-app');
    expect(withIds.newReviews).toHaveLength(0);
    const row = reviewsOf(store.db, 'my-app').find((r) => r.content === 'No id on me');
    expect(row?.reviewId).toMatch(/^\d+$/);
    expect(row?.identity).toBe(row?.reviewId);
  });

  it('keep "Invalid Date" as sent, with no parsed date', async () => {
    sim.controls.setQuirks({ invalidDates: true });
    await poll('big-app');
    const rows = reviewsOf(store.db, 'big-app');
    const invalid = rows.filter((r) => r.createdDate === 'Invalid Date');
    expect(invalid.length).toBeGreaterThan(0);
    expect(invalid.every((r) => r.createdAt === null)).toBe(true);
    expect(
      rows.filter((r) => r.createdDate !== 'Invalid Date').every((r) => r.createdAt instanceof Date),
    ).toBe(true);
  });
});

describe('an unknown or delisted app', () => {
  it('is marked unavailable and said so once, then recovers when it is back', async () => {
    await poll('big-app');
    sim.controls.delist('big-app');
    const first = await poll('big-app');
    expect(first.status).toBe('unavailable');
    expect(first.unavailable?.newly).toBe(true);
    const second = await poll('big-app');
    expect(second.unavailable?.newly).toBe(false);
    expect(log.lines().filter((l) => l.level === 40 && /not in the marketplace/.test(l.msg))).toHaveLength(1);
    expect(getApp(store.db, 'big-app')?.unavailableSince).toBeInstanceOf(Date);

    sim.controls.relist('big-app');
    const back = await poll('big-app');
    expect(back.status).toBe('ok');
    expect(getApp(store.db, 'big-app')?.unavailableSince).toBeNull();
    expect(log.text()).toMatch(/answers again/);
  });
});

describe('a review that comes back', () => {
  it('store a review dated well before the last poll as history: re-published, not new', async () => {
    const old = sim.controls
      .reviews('big-app')
      .slice(0, 10)
      .find((r) => Date.parse(r.review_created_date) < Date.now() - 3 * 86_400_000);
    if (!old) throw new Error('no review older than 3 days on page 1');
    // Archived before the first poll: the baseline never stored it.
    sim.controls.archiveReview('big-app', old.review_id);
    await poll();
    await poll();
    sim.controls.restoreReview('big-app', old.review_id);
    const outcome = await poll();
    const back = outcome.newReviews.find((r) => r.reviewId === old.review_id);
    expect(back?.fromBaseline).toBe(true);
    sim.controls.addReviews('big-app', [{ rating: 1 }]);
    expect((await poll()).newReviews.map((r) => r.fromBaseline)).toEqual([false]);
  });
});
