/**
 * One snapshot of one tracked category (endpoint 2): its first `pages` pages, turned into organic ranks
 * (market/snapshot.ts), stored, and judged against the category's last nine days (market/rank-alerts.ts):
 * per-app rank alerts with their explanations, one message for a reshuffle, one for new entrants, and
 * the Built-for badges of watched apps that changed. A page that fails makes the whole snapshot a gap:
 * stored as failed, never as ranks of 0, and skipped by the detector.
 */
import {
  appChannels,
  categoryChannels,
  categorySubject,
  type MarketRaise,
  raiseMarketAlerts,
} from '../alerts/market.js';
import type { AppRef, CategoryRef, EntrantRef, MarketAlert } from '../alerts/types.js';
import { listingUrl } from '../catalog/handle.js';
import type { CatalogNotFoundError, CategoryPage } from '../catalog/index.js';
import type { CategoryConfig, Config } from '../config/index.js';
import {
  type BadgeChange,
  badgeChanges,
  type CategorySnapshot,
  describeChange,
  detectRankAlerts,
  type ListingChange,
  type ListingChangeNote,
  type NewEntrants,
  newEntrants,
  type OwnEventNote,
  type RankDetection,
  type SnapshotApp,
  snapshotOf,
} from '../market/index.js';
import type { StoreDb } from '../store/db.js';
import { lastRankAlertAt, rankAlertKey } from '../store/market/alerts.js';
import { categoryRow } from '../store/market/categories.js';
import {
  insertListingChanges,
  latestListing,
  listingChangesSince,
  recordListing,
} from '../store/market/listings.js';
import { appsSeenIn, recordCategorySnapshot, snapshotsSince } from '../store/market/snapshots.js';
import { reviewAlertsSince } from '../store/review-reads.js';
import {
  finishRun,
  type GoneMark,
  type MarketDeps,
  type MarketOutcome,
  type MarketReadOptions,
  type MarketRun,
  outcomeOf,
  recordReadError,
  startRead,
} from './market-read.js';

/** The detector's history: a week of level and band, plus the move's own snapshots and some slack. */
export const RANK_HISTORY_MS = 9 * 24 * 3_600_000;

export async function snapshotCategory(
  deps: MarketDeps,
  entry: CategoryConfig,
  options: MarketReadOptions,
): Promise<MarketOutcome> {
  const handle = entry.handle;
  const { run, now } = startRead(deps, 'category', handle, 0);
  const pages: CategoryPage[] = [];
  try {
    for (let page = 1; page <= entry.pages; page++) {
      run.requests++;
      const read = await deps.client.category(handle, { page });
      pages.push(read);
      // A short category ends before `pages`: what it has is all there is, not a failure.
      if (read.pagination?.hasNextPage === false) break;
    }
  } catch (err) {
    return recordReadError(deps, run, err, options, {
      gone: (notFound) => unavailableMark(deps, run, notFound),
      // The last attempt failed: the moment is a gap in the category's history.
      failed: () => {
        recordCategorySnapshot(deps.store.db, {
          category: handle,
          takenAt: run.startedAt,
          status: 'failed',
          requests: run.requests,
          error: err instanceof Error ? err.message : String(err),
        });
      },
    });
  }
  const at = now();
  const snapshot = snapshotOf(handle, pages, at.getTime());
  const category: CategoryRef = { handle, name: pages[0]?.name.trim() || handle };
  const { db } = deps.store;
  const result = await deps.store.writes.run(() => {
    const judged = judge(deps, db, snapshot, category, at);
    const { id, wasUnavailable } = recordCategorySnapshot(db, {
      category: handle,
      takenAt: at,
      status: 'ok',
      requests: run.requests,
      snapshot,
    });
    finishRun(db, run, at, 'ok');
    const raised = raiseMarketAlerts(db, deps.config.channels, judged.raises(id), at);
    judged.storeBadges();
    return { raised, wasUnavailable, reshuffled: judged.reshuffled };
  });
  if (result.wasUnavailable)
    deps.logger.info({ category: handle }, `category ${handle} answers again: no longer marked unavailable`);
  if (snapshot.duplicates > 0) {
    deps.logger.debug(
      { category: handle, duplicates: snapshot.duplicates },
      'category pages listed apps twice: kept each once',
    );
  }
  deps.logger.info(
    { category: handle, requests: run.requests, ranked: snapshot.depth, alerts: result.raised.kinds.length },
    `${handle}: snapshot of ${snapshot.depth} ranked apps${result.reshuffled ? ' (the category reshuffled)' : ''}`,
  );
  return outcomeOf(run, 'ok', { raised: result.raised });
}

/** What one snapshot was judged to show, with what raising it needs. */
interface Judgement {
  config: Config;
  db: StoreDb;
  snapshot: CategorySnapshot;
  /** The category's last successful snapshot before this one. */
  previous: CategorySnapshot | undefined;
  category: CategoryRef;
  detection: RankDetection;
  entrants: NewEntrants | null;
  badges: BadgeChange[];
  /** Badge changes are stored, never alerted (`listing.ignore` has `badge`). */
  ignoreBadge: boolean;
  categoryNotify: string[];
}

/**
 * Everything judged against the store as it was before this snapshot (read inside the transaction, so
 * two snapshots of one category cannot both think an app new): the detector's history, the apps seen,
 * the previous snapshot's badges. What it raises needs the new snapshot's id, so it is handed back as
 * functions of it.
 */
function judge(deps: MarketDeps, db: StoreDb, snapshot: CategorySnapshot, category: CategoryRef, at: Date) {
  const { config } = deps;
  const handle = category.handle;
  const since = new Date(at.getTime() - RANK_HISTORY_MS);
  const baselineAt = categoryRow(db, handle)?.baselineAt ?? null;
  const seen = appsSeenIn(db, handle);
  const history = snapshotsSince(db, handle, since);
  const previous = history.at(-1);
  const watched = new Set(config.apps.map((a) => a.handle));
  const ignoreBadge = config.listing.ignore.includes('badge');
  const judged: Judgement = {
    config,
    db,
    snapshot,
    previous,
    category,
    detection: detectRanks(db, config, snapshot, history, { since, baselineAt, seen }),
    entrants: newEntrants(snapshot, new Set(seen.keys()), { baseline: baselineAt === null }),
    badges: previous ? badgeChanges(previous, snapshot, watched) : [],
    ignoreBadge,
    categoryNotify: categoryChannels(config, handle),
  };
  return {
    reshuffled: judged.detection.reshuffled,
    /** The alerts, named by the new snapshot's id (a retried job's snapshot is another moment). */
    raises: (id: number): MarketRaise[] => [
      ...rankRaises(judged, id),
      ...categoryRaises(judged, id),
      ...(ignoreBadge ? [] : badgeRaises(judged, id)),
    ],
    storeBadges: (): void => storeBadgeChanges(db, judged.badges, ignoreBadge, at),
  };
}

/** The rank detector run on the stored history plus this snapshot, with what may explain each move. */
function detectRanks(
  db: StoreDb,
  config: Config,
  snapshot: CategorySnapshot,
  history: CategorySnapshot[],
  stored: { since: Date; baselineAt: Date | null; seen: ReturnType<typeof appsSeenIn> },
): RankDetection {
  const { since, baselineAt, seen } = stored;
  const own = config.apps.filter((a) => a.role === 'own').map((a) => a.handle);
  const ranked = snapshot.apps.map((a) => a.handle);
  const listingNotes: ListingChangeNote[] = listingChangesSince(db, ranked, since).map((row) => ({
    handle: row.appHandle,
    at: row.at.getTime(),
    summary: describeChange(row.change as ListingChange),
  }));
  const ownEvents: OwnEventNote[] = reviewAlertsSince(db, own, since).map((row) => ({
    handle: row.handle,
    at: row.at.getTime(),
    kind: row.kind,
    summary: ownEventSummary(row.kind, row.payload, row.at),
  }));
  // Entrants in the window: apps never ranked before, or first ranked after the category's baseline.
  const recent = new Set(
    ranked.filter((h) => {
      const first = seen.get(h);
      return first === undefined || (baselineAt !== null && first > baselineAt && first >= since);
    }),
  );
  return detectRankAlerts({
    history: [...history, snapshot],
    ownApps: own,
    lastAlertAt: lastRankAlertAt(db, snapshot.category, own),
    context: { listingChanges: listingNotes, ownEvents, newEntrants: recent },
  });
}

/** An app as alerts name it: its configured name, else its name in the snapshot. */
function appRefIn(judged: Judgement, handle: string): AppRef {
  const app = judged.snapshot.apps.find((a) => a.handle === handle);
  return {
    handle,
    name: judged.config.apps.find((a) => a.handle === handle)?.name ?? app?.name ?? handle,
    url: listingUrl(handle),
  };
}

/** One alert per own app that moved, to the category's channels or else the app's. */
function rankRaises(judged: Judgement, id: number): MarketRaise[] {
  const { config, category, snapshot, previous, categoryNotify } = judged;
  return judged.detection.alerts.map((move) => {
    const alert: MarketAlert = {
      kind: 'rank',
      app: appRefIn(judged, move.handle),
      category,
      priority: move.kind === 'fell' || move.kind === 'left' ? 'high' : 'medium',
      move,
      names: sponsorNames(move, snapshot, previous),
    };
    const notify = categoryNotify.length > 0 ? categoryNotify : appChannels(config, move.handle);
    return { subject: move.handle, alert, dedupeKey: rankAlertKey(category.handle, move.handle, id), notify };
  });
}

/** The category-wide messages: a reshuffle, new entrants. */
function categoryRaises(judged: Judgement, id: number): MarketRaise[] {
  const { db, category, detection, entrants, categoryNotify } = judged;
  const handle = category.handle;
  const out: MarketRaise[] = [];
  if (detection.reshuffle) {
    out.push({
      subject: categorySubject(handle),
      alert: { kind: 'reshuffle', category, priority: 'medium', reshuffle: detection.reshuffle },
      dedupeKey: `reshuffle:${handle}:${id}`,
      notify: categoryNotify,
    });
  }
  if (entrants) {
    out.push({
      subject: categorySubject(handle),
      alert: {
        kind: 'entrants',
        category,
        priority: 'medium',
        apps: entrants.apps.map((a) => entrantOf(db, a)),
      },
      dedupeKey: `entrants:${handle}:${id}`,
      notify: categoryNotify,
    });
  }
  return out;
}

/** A listing alert per watched app whose Built-for badge changed. */
function badgeRaises(judged: Judgement, id: number): MarketRaise[] {
  const { config, category } = judged;
  return judged.badges.map((change) => ({
    subject: change.handle,
    alert: {
      kind: 'listing',
      app: appRefIn(judged, change.handle),
      role: config.apps.find((a) => a.handle === change.handle)?.role ?? 'competitor',
      priority: 'medium',
      changes: [badgeChange(change.kind, true)],
    },
    dedupeKey: `badge:${change.handle}:${category.handle}:${id}`,
    notify: appChannels(config, change.handle),
  }));
}

/** A badge change is part of the app's listing history: a new version with the badge, and the change. */
function storeBadgeChanges(
  db: StoreDb,
  badges: readonly BadgeChange[],
  ignoreBadge: boolean,
  at: Date,
): void {
  for (const change of badges) {
    const stored = latestListing(db, change.handle);
    if (stored === undefined) continue;
    const builtFor = change.kind === 'gained';
    if (stored.builtFor === builtFor) continue;
    const version = recordListing(db, { ...stored, handle: change.handle, builtFor, at });
    insertListingChanges(
      db,
      change.handle,
      version.current,
      [{ ...badgeChange(change.kind, !ignoreBadge), alerted: !ignoreBadge }],
      at,
    );
  }
}

/** The names of the apps a rank alert's sponsored-slot reason names by handle. */
function sponsorNames(
  move: { reasons: ReadonlyArray<{ kind: string; gained?: string[]; lost?: string[] }> },
  ...snapshots: Array<CategorySnapshot | undefined>
): Record<string, string> {
  const names: Record<string, string> = {};
  for (const reason of move.reasons) {
    for (const handle of [...(reason.gained ?? []), ...(reason.lost ?? [])]) {
      const found = snapshots
        .flatMap((s) => [...(s?.apps ?? []), ...(s?.sponsored ?? [])])
        .find((a) => a.handle === handle);
      if (found) names[handle] = found.name;
    }
  }
  return names;
}

function badgeChange(kind: 'gained' | 'lost', alerts: boolean): ListingChange {
  return { field: 'badge', alerts, kind: 'badge', from: kind === 'lost', to: kind === 'gained' };
}

/** An entrant with what its stored listing says, when it was read (a watched app). */
function entrantOf(db: StoreDb, app: SnapshotApp): EntrantRef {
  const stored = latestListing(db, app.handle);
  return {
    handle: app.handle,
    name: app.name,
    url: listingUrl(app.handle),
    rank: app.rank ?? 0,
    developer: app.developer,
    rating: app.rating,
    builtFor: app.builtFor,
    ...(stored
      ? {
          listing: {
            pricing: stored.listing.pricing,
            plans: stored.listing.plans.map((p) => ({ name: p.name, price: p.price })),
          },
        }
      : {}),
  };
}

/** "rating fell from 4.62 to 4.41 on 12 Mar" from a stored alert's payload, none of it taken for granted. */
function ownEventSummary(kind: 'rating-drop' | 'incident', payload: unknown, at: Date): string {
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as {
    from?: { average?: unknown };
    to?: { average?: unknown };
    reviews?: unknown;
  };
  const day = at.toISOString().slice(0, 10);
  if (kind === 'rating-drop') {
    const from = p.from?.average;
    const to = p.to?.average;
    return typeof from === 'number' && typeof to === 'number'
      ? `rating fell from ${from.toFixed(2)} to ${to.toFixed(2)} (${day})`
      : `rating drop (${day})`;
  }
  const n = Array.isArray(p.reviews) ? p.reviews.length : null;
  return n === null ? `several low reviews (${day})` : `${n} low reviews at once (${day})`;
}

/** A 404: the category is marked unavailable (a gap), said once; the mark clears when it answers. */
function unavailableMark(deps: MarketDeps, run: MarketRun, err: CatalogNotFoundError): GoneMark {
  const { db } = deps.store;
  const category = run.subject;
  const write = () => {
    const newly = categoryRow(db, category)?.unavailableSince == null;
    const { startedAt: takenAt, requests } = run;
    recordCategorySnapshot(db, { category, takenAt, status: 'unavailable', requests, error: err.message });
    return newly;
  };
  const wording = {
    fields: { category },
    quietly: 'snapshots continue quietly',
    still: 'category still unavailable',
  };
  return { write, wording };
}
