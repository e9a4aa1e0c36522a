import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { alertPolicyOf } from '../../src/alerts/policy.js';
import type { Alert } from '../../src/alerts/types.js';
import { CatalogClient, identify, type ReviewsPage } from '../../src/catalog/index.js';
import { parseConfig } from '../../src/config/index.js';
import { type Simulator, startSimulator, type WireReview } from '../../src/simulator/index.js';
import { openStore } from '../../src/store/db.js';
import { reconcileCost, type StoredReview } from '../../src/store/reconcile.js';
import { reviewsOf } from '../../src/store/reviews.js';
import { alerts, pollRuns, reviewEdits } from '../../src/store/schema.js';
import { appStatuses } from '../../src/store/status.js';
import { applyTriage, notesOf, triageOf } from '../../src/store/triage.js';
import { pollApp } from '../../src/watch/poll.js';
import { type ReconcileDeps, reconcileApp } from '../../src/watch/reconcile.js';
import { planReconcile, spanOf } from '../../src/watch/reconcile-plan.js';
import { captureLog, tempDir, tempStore } from '../helpers/index.js';

const APP = 'my-app';
const POLL = { maxPages: 10, baselinePages: 20 };
let sim: Simulator;
let store: ReturnType<typeof tempStore>;
let client: CatalogClient;
let log: ReturnType<typeof captureLog>;

const policy = alertPolicyOf(
  parseConfig({
    apps: [{ handle: APP, notify: ['ops'] }],
    channels: { ops: { type: 'console' } },
    // Rating drops are the poll's: kept out of the way so every alert here is a reconciliation's own.
    alerts: { lowRating: { maxRating: 2 }, groupAbove: 50, ratingDrop: { minDrop: 5, displayed: false } },
  }),
);

beforeAll(async () => {
  sim = await startSimulator({ appCount: 0, handles: [] });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.controls.reset();
  sim.controls.addApp(APP, { reviewCount: 60 });
  store = tempStore();
  client = new CatalogClient({ baseUrl: sim.url, apiKey: 'k' });
  log = captureLog();
});
afterEach(() => store.cleanup());

const deps = (over: Partial<ReconcileDeps> = {}): ReconcileDeps => ({
  client,
  store,
  logger: log.logger,
  alerts: policy,
  ...over,
});
const poll = (c: CatalogClient = client) =>
  pollApp({ client: c, store, logger: log.logger, alerts: policy }, APP, POLL);
const reconcile = (pages = 5, over: Partial<ReconcileDeps> = {}) => reconcileApp(deps(over), APP, { pages });

const listed = () => sim.controls.reviews(APP);
const rowOf = (reviewId: string) => reviewsOf(store.db, APP).find((r) => r.reviewId === reviewId);
const alertRows = () => store.db.select().from(alerts).all();
const day = (offsetDays: number) => {
  const d = new Date();
  d.setUTCHours(0, 0, 0, 0);
  return new Date(d.getTime() + offsetDays * 86_400_000).toISOString().replace('.000Z', '+00:00');
};

describe('a reconciliation', () => {
  beforeEach(async () => {
    await poll();
    expect(reviewsOf(store.db, APP)).toHaveLength(60);
  });

  it('marks a review that vanished below page 1 as removed, without an alert, and restores it when it is back', async () => {
    const gone = listed()[25] as WireReview;
    sim.controls.archiveReview(APP, gone.review_id);
    // The poll reads page 1 only, which did not change: it cannot notice.
    expect((await poll()).requests).toBe(1);
    expect(rowOf(gone.review_id)?.removedAt).toBeNull();

    const first = await reconcile(5);
    expect(first).toMatchObject({ status: 'ok', removed: 1, restored: 0, found: 0, merged: 0, requests: 5 });
    expect(rowOf(gone.review_id)?.removedAt).toBeInstanceOf(Date);
    expect(alertRows()).toHaveLength(0);
    expect(first.messages).toEqual([]);
    // status: still stored (reviews are kept), and said to be removed.
    expect(appStatuses(store.db, [APP])[0]).toMatchObject({ storedReviews: 60, removedReviews: 1 });
    // Marked once: the next reconciliation finds nothing to do.
    expect(await reconcile(5)).toMatchObject({ removed: 0, restored: 0 });

    sim.controls.restoreReview(APP, gone.review_id);
    const back = await reconcile(5);
    expect(back).toMatchObject({ removed: 0, restored: 1, found: 0 });
    expect(rowOf(gone.review_id)?.removedAt).toBeNull();
    expect(appStatuses(store.db, [APP])[0]).toMatchObject({ storedReviews: 60, removedReviews: 0 });
    expect(alertRows()).toHaveLength(0);
  });

  it('is undone by the next poll that sees the review listed again, without an alert', async () => {
    const gone = listed()[3] as WireReview;
    sim.controls.archiveReview(APP, gone.review_id);
    expect(await reconcile(5)).toMatchObject({ removed: 1 });
    // Still gone: the poll that reads page 1 without it leaves the mark.
    expect((await poll()).restored).toBe(0);
    expect(rowOf(gone.review_id)?.removedAt).toBeInstanceOf(Date);

    sim.controls.restoreReview(APP, gone.review_id);
    const seen = await poll();
    expect(seen).toMatchObject({ restored: 1, newReviews: [], editedReviews: [], alertKinds: [] });
    expect(rowOf(gone.review_id)?.removedAt).toBeNull();
    expect(alertRows()).toHaveLength(0);
    expect(log.lines().some((l) => /1 review marked removed listed again: restored/.test(l.msg))).toBe(true);
    // Nothing left for the reconciliation to restore.
    expect(await reconcile(5)).toMatchObject({ removed: 0, restored: 0 });
  });

  it('leaves a removed low review out of the incident look-back', async () => {
    const incidents = () => alertRows().filter((a) => a.kind === 'incident');
    const [first] = sim.controls.addReviews(APP, [{ rating: 1, review_content: 'Removed later' }]);
    await poll();
    sim.controls.addReviews(APP, [{ rating: 1, review_content: 'Second' }]);
    await poll();
    sim.controls.archiveReview(APP, (first as WireReview).review_id);
    expect(await reconcile(5)).toMatchObject({ removed: 1 });
    // Three low reviews were first seen within the window, but one is no longer listed: no burst.
    sim.controls.addReviews(APP, [{ rating: 2, review_content: 'Third' }]);
    await poll();
    expect(incidents()).toHaveLength(0);
    // A third listed one makes it, and the incident quotes only what customers can still read.
    sim.controls.addReviews(APP, [{ rating: 1, review_content: 'Fourth' }]);
    await poll();
    expect(incidents()).toHaveLength(1);
    const payload = incidents()[0]?.payload as { reviews: Array<{ content: string }> };
    expect(payload.reviews.map((r) => r.content).sort()).toEqual(['Fourth', 'Second', 'Third']);
  });

  it('keeps a removal mark made after the poll began: that reconciliation may have read the listing later', async () => {
    const gone = listed()[3] as WireReview;
    sim.controls.archiveReview(APP, gone.review_id);
    await reconcile(5);
    sim.controls.restoreReview(APP, gone.review_id);
    const later = Date.now() + 3_600_000;
    store.db.$client
      .prepare('update reviews set removed_at = ? where review_id = ?')
      .run(later, gone.review_id);
    expect((await poll()).restored).toBe(0);
    expect(rowOf(gone.review_id)?.removedAt?.getTime()).toBe(later);
  });
  it('judges only the span its pages cover, and reads everything when the listing is short', async () => {
    const deep = listed()[55] as WireReview;
    sim.controls.archiveReview(APP, deep.review_id);
    // Five pages end at review 50: the one at 55 is out of reach, so nothing says it vanished.
    const partial = await reconcile(5);
    expect(partial).toMatchObject({ removed: 0, complete: false });
    expect(rowOf(deep.review_id)?.removedAt).toBeNull();
    // Seven pages reach the end of the listing: then every stored review is compared.
    const whole = await reconcile(7);
    expect(whole).toMatchObject({ removed: 1, complete: true, pages: 6 });
    expect(rowOf(deep.review_id)?.removedAt).toBeInstanceOf(Date);
  });

  it('does not judge removals when the listing changed while it was read', async () => {
    const gone = listed()[25] as WireReview;
    sim.controls.archiveReview(APP, gone.review_id);
    const moving = new (class extends CatalogClient {
      override async reviews(handle: string, options: { page?: number } = {}): Promise<ReviewsPage> {
        const page = await super.reviews(handle, options);
        if (options.page === 1) sim.controls.addReviews(APP, [{ rating: 5 }]);
        return page;
      }
    })({ baseUrl: sim.url, apiKey: 'k' });
    const outcome = await reconcile(5, { client: moving });
    expect(outcome.removed).toBe(0);
    expect(outcome.note).toMatch(/removals not judged: the listing changed while it was read/);
    expect(rowOf(gone.review_id)?.removedAt).toBeNull();
  });

  it('stores a review a poll missed at a page boundary and alerts on it as found late', async () => {
    // Twelve new reviews, the eleventh low: the first of page 2.
    const added = sim.controls.addReviews(
      APP,
      Array.from({ length: 12 }, (_, i) => ({
        rating: i === 10 ? 1 : 5,
        ...(i === 10 ? { review_content: 'Charged twice and nobody answers' } : {}),
      })),
    );
    const missed = added[10] as WireReview;
    const archived = added[2] as WireReview;
    // A review of page 1 is removed while the poll reads it: the low one moves up onto page 1, unseen.
    const removing = new (class extends CatalogClient {
      override async reviews(handle: string, options: { page?: number } = {}): Promise<ReviewsPage> {
        const page = await super.reviews(handle, options);
        if (options.page === 1) sim.controls.archiveReview(APP, archived.review_id);
        return page;
      }
    })({ baseUrl: sim.url, apiKey: 'k' });
    const polled = await poll(removing);
    expect(polled.newReviews).toHaveLength(11);
    expect(rowOf(missed.review_id)).toBeUndefined();
    const polledAlerts = alertRows().length;

    const outcome = await reconcile(5);
    expect(outcome).toMatchObject({ found: 1, alerted: 1, removed: 1 });
    expect(rowOf(missed.review_id)).toMatchObject({ fromBaseline: false, rating: 1 });
    expect(rowOf(archived.review_id)?.removedAt).toBeInstanceOf(Date);
    const raised = alertRows().slice(polledAlerts);
    expect(raised).toHaveLength(1);
    const payload = raised[0]?.payload as Alert;
    expect(payload).toMatchObject({
      kind: 'review',
      foundLate: true,
      review: { reviewId: missed.review_id },
    });
    expect(outcome.messages.flatMap((m) => m.deliveryIds)).toHaveLength(1);
    // Found once: a second reconciliation stores and raises nothing more.
    expect(await reconcile(5)).toMatchObject({ found: 0, alerted: 0 });
    expect(alertRows()).toHaveLength(polledAlerts + 1);
  });

  it('alerts on a review found late only when it is recent and low', async () => {
    const added = sim.controls.addReviews(APP, [
      { rating: 1, review_created_date: day(0), review_content: 'Recent and low' },
      { rating: 5, review_created_date: day(-1), review_content: 'Recent and high' },
      { rating: 1, review_created_date: day(-9), review_content: 'Old and low' },
    ]);
    const outcome = await reconcile(5);
    expect(outcome).toMatchObject({ found: 3, alerted: 1 });
    const [recentLow, recentHigh, oldLow] = added.map((r) => rowOf(r.review_id));
    expect(recentLow?.fromBaseline).toBe(false);
    expect(recentHigh?.fromBaseline).toBe(false);
    // Stored as history: a day-old-plus review is no news.
    expect(oldLow?.fromBaseline).toBe(true);
    const raised = alertRows();
    expect(raised.map((a) => a.reviewRowId)).toEqual([recentLow?.id]);
    // A reconciliation says nothing about the rating: no drop alert, however the average moved.
    expect(raised.every((a) => a.kind === 'review')).toBe(true);
  });

  it('records an edit a poll missed, and alerts on a recent re-rating down as found late', async () => {
    const target = listed()[30] as WireReview;
    sim.controls.editReview(APP, target.review_id, { rating: 1, content: 'Now it is broken' });
    const outcome = await reconcile(5);
    expect(outcome).toMatchObject({ edited: 1, found: 0, removed: 0, alerted: 1 });
    expect(rowOf(target.review_id)).toMatchObject({ rating: 1, content: 'Now it is broken' });
    const payload = alertRows()[0]?.payload as Alert;
    expect(payload).toMatchObject({ foundLate: true, review: { previousRating: target.rating, rating: 1 } });
  });

  it('records what it spent, failed requests included, as the cost status shows', async () => {
    await reconcile(3);
    sim.controls.failNext(1, { status: 503, pathIncludes: 'page=2' });
    await expect(reconcile(3)).rejects.toMatchObject({ name: 'ReconcileError', requests: 2 });
    const runs = store.db.select().from(pollRuns).where(eq(pollRuns.kind, 'reconcile')).all();
    expect(runs.map((r) => [r.status, r.requests])).toEqual([
      ['ok', 3],
      ['failed', 2],
    ]);
    expect(reconcileCost(store.db, new Date(Date.now() - 86_400_000))).toEqual({ runs: 2, requests: 5 });
    expect(reconcileCost(store.db, new Date(Date.now() + 1000))).toEqual({ runs: 0, requests: 0 });
  });
});

describe('a reconciliation of reviews without ids', () => {
  /** A review rated 3 or more whose reviewer and location no other review of the app shares. */
  function uniqueAuthor(): WireReview {
    const all = listed();
    const key = (r: WireReview) => `${r.reviewer}\0${r.reviewer_location}`;
    const found = all
      .slice(5, 40)
      .find((r) => r.rating >= 3 && all.filter((o) => key(o) === key(r)).length === 1);
    if (!found) throw new Error('no review with a unique author');
    return found;
  }

  beforeEach(async () => {
    sim.controls.setQuirks({ emptyIds: true });
    await poll();
    expect(reviewsOf(store.db, APP).every((r) => r.identity.startsWith('fp:'))).toBe(true);
  });

  it('merges an edit a poll stored as a second review into the first, moving its alert', async () => {
    const target = uniqueAuthor();
    const original = reviewsOf(store.db, APP).find((r) => r.content === target.review_content);
    sim.controls.editReview(APP, target.review_id, { rating: 1, content: 'Edited: it broke everything' });
    // Without an id the edit looks new to the poll: stored twice, and alerted on as a new review.
    const polled = await poll();
    expect(polled.newReviews).toHaveLength(1);
    expect(reviewsOf(store.db, APP)).toHaveLength(61);
    const duplicate = polled.newReviews[0];
    expect(alertRows().map((a) => a.reviewRowId)).toEqual([duplicate?.id]);
    // Support already picked the duplicate up: its triage must survive the merge.
    applyTriage(
      store.db,
      duplicate?.id as number,
      { status: 'acknowledged', addTags: ['billing'], note: 'Called them back' },
      'ana',
      new Date(),
    );

    const outcome = await reconcile(5);
    expect(outcome).toMatchObject({ merged: 1, removed: 0, found: 0, alerted: 0 });
    const rows = reviewsOf(store.db, APP);
    expect(rows).toHaveLength(60);
    const merged = rows.find((r) => r.id === original?.id);
    expect(merged).toMatchObject({ rating: 1, content: 'Edited: it broke everything', removedAt: null });
    expect(rows.some((r) => r.id === duplicate?.id)).toBe(false);
    // The alert the poll raised now points at the row that stays; the edit is on record.
    expect(alertRows().map((a) => a.reviewRowId)).toEqual([original?.id]);
    expect(triageOf(store.db, original?.id as number)).toMatchObject({
      status: 'acknowledged',
      tags: ['billing'],
    });
    expect(notesOf(store.db, original?.id as number).map((n) => n.body)).toEqual(['Called them back']);
    const edits = store.db.select().from(reviewEdits).all();
    expect(edits).toMatchObject([{ reviewRowId: original?.id, oldRating: target.rating, newRating: 1 }]);
    // And the next poll takes the listed review for the stored one.
    expect(await poll()).toMatchObject({ newReviews: [], editedReviews: [] });
    expect(await reconcile(5)).toMatchObject({ merged: 0, removed: 0, found: 0 });
  });

  it('merges an edit no poll saw into its row as an edit found late', async () => {
    const target = uniqueAuthor();
    const original = reviewsOf(store.db, APP).find((r) => r.content === target.review_content);
    sim.controls.editReview(APP, target.review_id, { rating: 1, content: 'Edited later' });
    const outcome = await reconcile(5);
    expect(outcome).toMatchObject({ merged: 1, found: 0, removed: 0, alerted: 1 });
    expect(reviewsOf(store.db, APP)).toHaveLength(60);
    expect(reviewsOf(store.db, APP).find((r) => r.id === original?.id)).toMatchObject({
      rating: 1,
      content: 'Edited later',
    });
    if (target.rating > 1) {
      expect(alertRows()[0]?.payload).toMatchObject({
        foundLate: true,
        review: { previousRating: target.rating },
      });
    }
  });

  it('merges nothing when another listed review shares the reviewer and location', async () => {
    const target = uniqueAuthor();
    sim.controls.editReview(APP, target.review_id, { rating: 2, content: 'Edited' });
    sim.controls.addReviews(APP, [
      { reviewer: target.reviewer, reviewer_location: target.reviewer_location },
    ]);
    const outcome = await reconcile(5);
    expect(outcome.merged).toBe(0);
    expect(outcome.found).toBe(2);
  });
});

it('migration 0006 keeps every poll run as a poll and every review listed', () => {
  const temp = tempDir();
  try {
    const folder = join(temp.dir, 'drizzle');
    cpSync('drizzle', folder, { recursive: true });
    const journalPath = join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: Array<{ tag: string }> };
    const at = journal.entries.findIndex((e) => e.tag === '0006_reconcile');
    writeFileSync(journalPath, JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
    const path = join(temp.dir, 'old.db');
    const old = new Database(path);
    migrate(drizzle({ client: old }), { migrationsFolder: folder });
    // Plain SQL: the schema before the migration, not the one store/review-fields.ts describes.
    old.exec(`
      insert into apps (handle) values ('shop');
      insert into poll_runs (app_handle, started_at, finished_at, status, requests, pages, new_reviews, edited_reviews)
      values ('shop', 1000, 1100, 'baseline', 1, 1, 1, 0);
      insert into reviews (app_handle, identity, fingerprint, review_id, reviewer, location, rating, content,
        created_date, time_using_app, app_name, app_url, from_baseline, first_seen_at, updated_at, poll_run_id)
      values ('shop', '1', 'f', '1', 'A', 'B', 5, 'ok', '2025-01-01', '', 'Shop', '', 1, 1100, 1100, 1);
    `);
    old.close();
    const migrated = openStore(path);
    try {
      expect(migrated.db.select().from(pollRuns).all()).toMatchObject([{ kind: 'poll', requests: 1 }]);
      expect(reviewsOf(migrated.db, 'shop')).toMatchObject([{ reviewId: '1', removedAt: null }]);
    } finally {
      migrated.close();
    }
  } finally {
    temp.cleanup();
  }
});

describe('planReconcile', () => {
  const stored = (over: Partial<StoredReview>): StoredReview => ({
    rowId: 1,
    identity: '1',
    fingerprint: 'f1',
    reviewId: '1',
    reviewer: 'A',
    location: 'X',
    rating: 5,
    content: 'ok',
    createdDate: '2025-03-10T00:00:00+00:00',
    createdAt: new Date('2025-03-10T00:00:00Z'),
    firstSeenAt: new Date(1_000),
    updatedAt: new Date(1_000),
    removedAt: null,
    ...over,
  });
  const listedReview = (id: string, date: string) =>
    identify({
      reviewId: id,
      reviewer: `R${id}`,
      location: 'Y',
      rating: 4,
      content: `text ${id}`,
      createdDate: date,
      timeUsingApp: '',
      appName: 'App',
      appUrl: '',
    });

  it('leaves alone what a poll wrote after the read began, and what lies outside the span', () => {
    const fetched = [
      listedReview('9', '2025-03-20T00:00:00+00:00'),
      listedReview('8', '2025-03-05T00:00:00+00:00'),
    ];
    const input = {
      fetched,
      stored: [
        stored({ rowId: 1, identity: '1' }),
        stored({ rowId: 2, identity: '2', firstSeenAt: new Date(5_000), updatedAt: new Date(5_000) }),
        stored({ rowId: 3, identity: '3', createdAt: new Date('2025-03-05T00:00:00Z') }),
        stored({ rowId: 4, identity: '4', createdAt: null }),
      ],
      span: spanOf(fetched, false),
      stable: true,
      readStartedAt: 4_000,
      recentSince: 0,
    };
    // 2 was stored by a poll after the read began; 3 shares the oldest day read (it may be on the next
    // page); 4 has no date to place it by.
    expect(planReconcile(input).removed).toEqual([1]);
    expect(planReconcile({ ...input, stable: false })).toMatchObject({
      removed: [],
      removalsSkipped: 'the listing changed while it was read',
    });
    expect(planReconcile({ ...input, span: 'all' }).removed).toEqual([1, 3, 4]);
  });
});
