/**
 * What the market views show, read from the store (every statement is in market.ts) and put together
 * with the pure history logic of src/market: the overview of every watched app (`/market`, `/api/market`,
 * `reviewwatch market`), one category over time (`/categories/HANDLE`), and an app's listing changes
 * (its page, `/api/apps/:handle/changes`). Dates are Dates; the JSON and the pages format them.
 */
import type { Config } from '../config/index.js';
import { ExitCode, ReviewwatchError } from '../errors.js';
import { type ChangeTone, changeTone, describeChange } from '../market/change-text.js';
import {
  entryBefore,
  exitsOf,
  gapsOf,
  placesClimbed,
  rankIn,
  type SnapshotGap,
  sponsorChanges,
} from '../market/history.js';
import type { ListingChange } from '../market/listing.js';
import type { CategorySnapshot } from '../market/snapshot.js';
import { getApp } from './apps.js';
import type { Db } from './db.js';
import {
  type CategoryState,
  categorySnapshotsBetween,
  categoryStates,
  firstSeenBetween,
  lastListingChanges,
  lastSnapshotBefore,
  latestListing,
  listingChangesOf,
  listingKnown,
  openLowReviews,
  ratingsAt,
  type StoredSnapshot,
} from './market.js';
import type { ListingChangeRow } from './schema.js';

const DAY_MS = 86_400_000;
/** "The week's move": against the snapshot a week before the latest. */
export const WEEK_MS = 7 * DAY_MS;
/** A category's page shows this many days unless asked for another span. */
export const CATEGORY_DAYS = 90;
/** Besides the watched apps, a category's chart follows its leaders: the top of the latest snapshot. */
const LEADERS = 5;
/** Lines on one chart, at most: more cannot be told apart. */
const MAX_SERIES = 10;
/** The current ranking a category's page lists. */
const TOP = 10;

export interface MarketApp {
  handle: string;
  /** The config's name, which wins over the listing's title. */
  name?: string | undefined;
  role: 'own' | 'competitor';
}

/** What the views cover: the watched apps, the tracked categories, and what "low" means. */
export interface MarketViewInput {
  apps: MarketApp[];
  categories: string[];
  maxRating: number;
}

export function marketInputOf(config: Config): MarketViewInput {
  return {
    apps: config.apps.map((a) => ({ handle: a.handle, name: a.name, role: a.role })),
    categories: config.categories.map((c) => c.handle),
    maxRating: config.alerts.lowRating.maxRating,
  };
}

/** An app's name: the config's, else its listing's title, else the polls' title, else its handle. */
function nameOf(db: Db, app: { handle: string; name?: string | undefined }): string {
  return (
    app.name?.trim() ||
    latestListing(db, app.handle)?.listing.title.trim() ||
    getApp(db, app.handle)?.title?.trim() ||
    app.handle
  );
}

export interface CategoryStatus {
  handle: string;
  /** waiting: configured, never snapshotted; unavailable: the API does not know it (404). */
  state: 'ok' | 'waiting' | 'unavailable';
  lastSnapshotAt: Date | null;
  /** Organic places the last snapshot's pages covered: an app below them is "not in the tracked pages". */
  depth: number | null;
  unavailableSince: Date | null;
  /** The last failed snapshot's error, cleared by a successful one. */
  lastError: string | null;
}

function statusOf(handle: string, state: CategoryState | undefined, latest: StoredSnapshot | undefined) {
  return {
    handle,
    state: state?.unavailableSince ? 'unavailable' : latest ? 'ok' : 'waiting',
    lastSnapshotAt: latest?.takenAt ?? null,
    depth: latest?.snapshot?.depth ?? null,
    unavailableSince: state?.unavailableSince ?? null,
    lastError: state?.lastError ?? null,
  } satisfies CategoryStatus;
}

export interface CategoryRank {
  category: string;
  /** Organic rank in the category's latest snapshot; null when the app is not in the tracked pages. */
  rank: number | null;
  /** It also held a sponsored slot then. */
  sponsored: boolean;
  at: Date;
  /** The snapshot the week's move is measured against: a week before the latest, or the oldest kept. */
  before: { rank: number | null; at: Date } | null;
  /** Places climbed since `before` (negative: fell); null when either side is outside the tracked pages. */
  move: number | null;
}

export interface ChangeSummary {
  id: number;
  at: Date;
  field: string;
  kind: string;
  /** One line of plain text (market/change-text.ts); untrusted parts are quoted, not escaped. */
  text: string;
  tone: ChangeTone;
  alerted: boolean;
}

export interface OverviewApp {
  handle: string;
  name: string;
  role: 'own' | 'competitor';
  /** The listed rating from the latest review poll; null before the first. */
  rating: number | null;
  /** Against the rating stored a week before now; null without one. */
  ratingChange: number | null;
  /** One entry per tracked category that has a snapshot. */
  ranks: CategoryRank[];
  /** Low-rated reviews still new or acknowledged. */
  openLow: number;
  /** The latest listing version that changed something, with its changes; null when none did. */
  lastChange: { at: Date; changes: ChangeSummary[] } | null;
}

export interface MarketOverview {
  at: Date;
  categories: CategoryStatus[];
  /** Own apps first, then competitors; config order within each. */
  apps: OverviewApp[];
}

export function changeSummary(row: ListingChangeRow): ChangeSummary {
  const change = row.change as ListingChange;
  return {
    id: row.id,
    at: row.at,
    field: row.field,
    kind: String(change.kind ?? row.field),
    text: describeChange(change),
    tone: changeTone(change),
    alerted: row.alerted,
  };
}

/** Where each app stands in a category now and a week before, from the snapshots of the last 8 days. */
function ranksIn(db: Db, category: string, now: Date): Map<string, CategoryRank> | undefined {
  const latest = lastSnapshotBefore(db, category, new Date(now.getTime() + 1));
  if (!latest?.snapshot) return undefined;
  const window = categorySnapshotsBetween(
    db,
    category,
    new Date(latest.takenAt.getTime() - WEEK_MS - DAY_MS),
    new Date(latest.takenAt.getTime() + 1),
  ).filter((s) => s.snapshot !== null);
  const before = entryBefore(
    window.map((s) => ({ at: s.takenAt.getTime(), snapshot: s.snapshot as CategorySnapshot })),
    latest.takenAt.getTime(),
    WEEK_MS,
  );
  const comparable = before !== undefined && before.at < latest.takenAt.getTime() ? before : undefined;
  const ranks = new Map<string, CategoryRank>();
  const handles = new Set([
    ...latest.snapshot.apps.map((a) => a.handle),
    ...(comparable?.snapshot.apps.map((a) => a.handle) ?? []),
  ]);
  for (const handle of handles) {
    const rank = rankIn(latest.snapshot, handle);
    const then = comparable ? rankIn(comparable.snapshot, handle) : null;
    ranks.set(handle, {
      category,
      rank,
      sponsored: latest.snapshot.apps.find((a) => a.handle === handle)?.sponsored ?? false,
      at: latest.takenAt,
      before: comparable ? { rank: then, at: new Date(comparable.at) } : null,
      move: placesClimbed(then, rank),
    });
  }
  return ranks;
}

/** Own apps first, then competitors, each in config order. */
function ownFirst<T extends { role: 'own' | 'competitor' }>(apps: readonly T[]): T[] {
  return [...apps.filter((a) => a.role === 'own'), ...apps.filter((a) => a.role !== 'own')];
}

/** Every watched app with its rating, its ranks and their week's move, its open low reviews, its last change. */
export function marketOverview(db: Db, input: MarketViewInput, now: Date): MarketOverview {
  const apps = ownFirst(input.apps);
  const handles = apps.map((a) => a.handle);
  return db.transaction(
    (tx) => {
      const states = categoryStates(tx, input.categories);
      const categories: CategoryStatus[] = [];
      const ranks = new Map<string, Map<string, CategoryRank>>();
      for (const category of input.categories) {
        const inCategory = ranksIn(tx, category, now);
        const latest = inCategory ? lastSnapshotBefore(tx, category, new Date(now.getTime() + 1)) : undefined;
        categories.push(statusOf(category, states.get(category), latest));
        if (inCategory) ranks.set(category, inCategory);
      }
      const ratings = ratingsAt(tx, handles, new Date(now.getTime() - WEEK_MS));
      const open = openLowReviews(tx, handles, input.maxRating);
      const changes = lastListingChanges(tx, handles);
      return {
        at: now,
        categories,
        apps: apps.map((app): OverviewApp => {
          const rating = ratings.get(app.handle);
          const latest = rating?.latest ?? null;
          const last = changes.get(app.handle);
          return {
            handle: app.handle,
            name: nameOf(tx, app),
            role: app.role,
            rating: latest?.average ?? null,
            ratingChange:
              latest === null || rating?.before == null ? null : round(latest.average - rating.before),
            ranks: input.categories.flatMap((category) => {
              const inCategory = ranks.get(category);
              if (!inCategory) return [];
              const at = categories.find((c) => c.handle === category)?.lastSnapshotAt ?? now;
              return [
                inCategory.get(app.handle) ?? {
                  category,
                  rank: null,
                  sponsored: false,
                  at,
                  before: null,
                  move: null,
                },
              ];
            }),
            openLow: open.get(app.handle) ?? 0,
            lastChange:
              last && last.length > 0
                ? { at: (last[0] as ListingChangeRow).at, changes: last.map(changeSummary) }
                : null,
          };
        }),
      };
    },
    { behavior: 'deferred' },
  );
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export interface RankSeries {
  handle: string;
  name: string;
  /** leader: not watched, followed because it is near the top of the latest snapshot. */
  role: 'own' | 'competitor' | 'leader';
  /** One point per successful snapshot, oldest first; rank null: not in the tracked pages then. */
  points: Array<{ at: Date; rank: number | null }>;
  /** Its rank in the latest snapshot, and places climbed over the week before it. */
  rank: number | null;
  move: number | null;
}

export interface CategoryView {
  handle: string;
  since: Date;
  until: Date;
  status: CategoryStatus;
  /** Successful snapshots in the span. */
  snapshots: number;
  /** Runs of failed or unavailable snapshots: breaks in every line. */
  gaps: Array<Omit<SnapshotGap, 'from' | 'to'> & { from: Date; to: Date }>;
  series: RankSeries[];
  /** The latest snapshot's top places, with their week's move. */
  top: Array<{
    rank: number;
    handle: string;
    name: string;
    rating: number | null;
    builtFor: boolean | null;
    sponsored: boolean;
    move: number | null;
  }>;
  /** Apps the category's pages ranked for the first time ever in the span (not the first snapshot's). */
  entrants: Array<{ handle: string; name: string; at: Date; rank: number | null; rankNow: number | null }>;
  /** Apps ranked in the span that are not in the tracked pages now, newest exit first. */
  exits: Array<{ handle: string; name: string; at: Date; lastRank: number }>;
  sponsored: {
    now: Array<{ slot: number; page: number; handle: string; name: string }>;
    /** Newest first. */
    changes: Array<{
      at: Date;
      added: Array<{ handle: string; name: string }>;
      removed: Array<{ handle: string; name: string }>;
    }>;
  };
}

/** Whether a category is tracked now or was ever snapshotted: anything else is a 404. */
export function categoryKnown(db: Db, input: MarketViewInput, handle: string): boolean {
  return input.categories.includes(handle) || categoryStates(db, [handle]).has(handle);
}

/**
 * A category over `days` up to `now`: the ranks of the own apps, the competitors and the leaders (one
 * point per successful snapshot, gaps apart), entrants and exits, sponsored slots. Undefined for a
 * category neither tracked nor ever snapshotted.
 */
export function categoryView(
  db: Db,
  input: MarketViewInput,
  handle: string,
  options: { now: Date; days?: number },
): CategoryView | undefined {
  const days = options.days ?? CATEGORY_DAYS;
  const until = new Date(options.now.getTime() + 1);
  const since = new Date(options.now.getTime() - days * DAY_MS);
  return db.transaction(
    (tx) => {
      if (!categoryKnown(tx, input, handle)) return undefined;
      const state = categoryStates(tx, [handle]).get(handle);
      const timeline = categorySnapshotsBetween(tx, handle, since, until);
      const ok = timeline.flatMap((s) => (s.snapshot ? [s.snapshot] : []));
      const okAt = timeline.flatMap((s) => (s.snapshot ? [s.takenAt] : []));
      const latestRow = [...timeline].reverse().find((s) => s.snapshot !== null);
      const latest = latestRow?.snapshot ?? undefined;
      const ranks = ranksIn(tx, handle, options.now);
      const names = new Map<string, string>();
      for (const snapshot of ok) for (const app of snapshot.apps) names.set(app.handle, app.name);
      const name = (h: string) => names.get(h) ?? h;

      const watched = ownFirst(input.apps);
      const leaders = (latest?.apps ?? [])
        .filter((a) => a.rank !== null && !watched.some((w) => w.handle === a.handle))
        .slice(0, LEADERS);
      const followed = [
        ...watched.map((a) => ({ handle: a.handle, name: nameOf(tx, a), role: a.role })),
        ...leaders.map((a) => ({ handle: a.handle, name: a.name, role: 'leader' as const })),
      ].slice(0, MAX_SERIES);
      const series: RankSeries[] = followed.map((app) => ({
        ...app,
        points: ok.map((snapshot, i) => ({ at: okAt[i] as Date, rank: rankIn(snapshot, app.handle) })),
        rank: latest ? rankIn(latest, app.handle) : null,
        move: ranks?.get(app.handle)?.move ?? null,
      }));

      const baseline = state?.baselineAt?.getTime();
      const entrants = firstSeenBetween(tx, handle, since, until)
        .filter((e) => baseline === undefined || e.firstSeenAt.getTime() > baseline)
        .map((e) => {
          const first = ok.find((s) => rankIn(s, e.handle) !== null && s.at >= e.firstSeenAt.getTime());
          return {
            handle: e.handle,
            name: name(e.handle),
            at: e.firstSeenAt,
            rank: first ? rankIn(first, e.handle) : null,
            rankNow: latest ? rankIn(latest, e.handle) : null,
          };
        })
        .reverse();

      return {
        handle,
        since,
        until: options.now,
        status: statusOf(handle, state, latestRow),
        snapshots: ok.length,
        gaps: gapsOf(timeline.map((s) => ({ at: s.takenAt.getTime(), status: s.status }))).map((g) => ({
          ...g,
          from: new Date(g.from),
          to: new Date(g.to),
        })),
        series,
        top: (latest?.apps ?? [])
          .filter((a) => a.rank !== null && a.rank <= TOP)
          .map((a) => ({
            rank: a.rank as number,
            handle: a.handle,
            name: a.name,
            rating: a.rating,
            builtFor: a.builtFor,
            sponsored: a.sponsored,
            move: ranks?.get(a.handle)?.move ?? null,
          })),
        entrants,
        exits: exitsOf(ok).map((e) => ({ ...e, at: new Date(e.at) })),
        sponsored: {
          now: latest?.sponsored ?? [],
          changes: sponsorChanges(ok)
            .map((c) => ({ ...c, at: new Date(c.at) }))
            .reverse(),
        },
      };
    },
    { behavior: 'deferred' },
  );
}

/** Whether an app is watched or its listing was ever read: the changes of anything else are a 404. */
export function listingAppKnown(db: Db, input: MarketViewInput, handle: string): boolean {
  return input.apps.some((a) => a.handle === handle) || listingKnown(db, handle);
}

export interface ListingVersionChanges {
  /** The listing version the changes made (listing_versions.id). */
  versionId: number;
  at: Date;
  /** In the order the diff gave them. */
  changes: ChangeSummary[];
  /** The stored changes themselves (ListingChange as JSON), for the field diffs. */
  rows: ListingChangeRow[];
}

export interface ListingTimeline {
  /** Newest first, at most the number of versions asked for. */
  versions: ListingVersionChanges[];
  /** The cursor of the next (older) page, when there is one: a version id. */
  next: number | undefined;
}

/** An app's listing changes, `versions` versions at a time, newest first, older than `beforeVersion`. */
export function listingTimeline(
  db: Db,
  handle: string,
  options: { versions: number; beforeVersion?: number },
): ListingTimeline {
  const byVersion = new Map<number, ListingVersionChanges>();
  for (const row of listingChangesOf(db, handle, options)) {
    let version = byVersion.get(row.versionId);
    if (!version) {
      version = { versionId: row.versionId, at: row.at, changes: [], rows: [] };
      byVersion.set(row.versionId, version);
    }
    version.changes.push(changeSummary(row));
    version.rows.push(row);
  }
  const all = [...byVersion.values()];
  const page = all.slice(0, options.versions);
  return {
    versions: page,
    next: all.length > options.versions ? page[page.length - 1]?.versionId : undefined,
  };
}

/** `reviewwatch market --category` for a category neither tracked nor ever snapshotted. */
export class UnknownCategoryError extends ReviewwatchError {
  constructor(handle: string, tracked: readonly string[]) {
    super(
      `unknown category "${handle}": it is not under categories in the config and was never snapshotted (tracked: ${
        tracked.length > 0 ? tracked.join(', ') : 'none'
      })`,
      { exitCode: ExitCode.Usage },
    );
  }
}

export type MarketReport =
  | { kind: 'overview'; overview: MarketOverview }
  | { kind: 'category'; category: CategoryView; days: number };

/**
 * What `reviewwatch market` shows: the overview, or one category over `days` (CATEGORY_DAYS unless
 * given). Throws UnknownCategoryError for a category it knows nothing of.
 */
export function marketReport(
  db: Db,
  input: MarketViewInput,
  options: { now: Date; category?: string | undefined; days?: number },
): MarketReport {
  if (options.category === undefined) {
    return { kind: 'overview', overview: marketOverview(db, input, options.now) };
  }
  const days = options.days ?? CATEGORY_DAYS;
  const category = categoryView(db, input, options.category, { now: options.now, days });
  if (!category) throw new UnknownCategoryError(options.category, input.categories);
  return { kind: 'category', category, days };
}
