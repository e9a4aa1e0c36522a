/** One category over time (`/categories/HANDLE`, `/api/categories/HANDLE`, `reviewwatch market --category`). */
import { exitsOf, gapsOf, rankIn, type SnapshotGap, sponsorChanges } from '../../market/history.js';
import type { CategorySnapshot } from '../../market/snapshot.js';
import type { Db } from '../../store/db.js';
import { categoryStates } from '../../store/market/categories.js';
import { listingChangesSince } from '../../store/market/listings.js';
import { categorySnapshotsBetween, firstSeenBetween } from '../../store/market/snapshots.js';
import { reviewAlertsSince } from '../../store/review-reads.js';
import { type MarketApp, type MarketViewInput, nameOf, ownFirst } from './input.js';
import { changeSummary } from './listing-timeline.js';
import { lastAlertMoves, type MoveItem, marketMoves } from './moves.js';
import { type CategoryRank, type CategoryStatus, DAY_MS, ranksIn, statusOf } from './ranks.js';

/** A category's page shows this many days unless asked for another span. */
export const CATEGORY_DAYS = 90;

/** Besides the watched apps, a category's chart follows its leaders: the top of the latest snapshot. */
const LEADERS = 5;

/** Lines on one chart, at most: more cannot be told apart. */
const MAX_SERIES = 10;
/** Apps that passed an own app get a line beyond that, up to this many lines in all. */
const MAX_SERIES_WITH_PASSERS = 14;

/** The current ranking a category's page lists. */
const TOP = 10;

export interface RankSeries {
  handle: string;
  name: string;
  /**
   * leader: not watched, followed because it is near the top of the latest snapshot; passer: not watched,
   * followed because a rank alert says it passed an own app (an entrant, often).
   */
  role: 'own' | 'competitor' | 'leader' | 'passer';
  /** One point per successful snapshot, oldest first; rank null: not in the tracked pages then. */
  points: Array<{ at: Date; rank: number | null }>;
  /** Its rank in the latest snapshot, and places climbed over the week before it. */
  rank: number | null;
  move: number | null;
  /** A watched app's rank story: the week's move and its last rank alert here (market-views/rank-story.ts). */
  story?: CategoryRank;
}

/** An event that may explain a move, for the chart's markers and its list. */
export interface ChartEvent {
  at: Date;
  kind: 'listing' | 'entrant' | 'sponsored' | 'incident' | 'rating-drop' | 'rank' | 'reshuffle';
  label: string;
}

export interface CategoryView {
  handle: string;
  /** As the category's pages name it, else the handle. */
  name: string;
  since: Date;
  until: Date;
  status: CategoryStatus;
  /** The market alerts of this category and of the apps it ranks, newest first. */
  moves: MoveItem[];
  /** What may explain the moves, oldest first: the chart's markers. */
  events: ChartEvent[];
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
      const moves = movesIn(marketMoves(tx, since, until), handle, new Set(names.keys()));
      const series = followedSeries(tx, {
        handle,
        watched,
        latest,
        ok,
        okAt,
        ranks,
        moves,
        name,
      });

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

      const sponsorChanged = sponsorChanges(ok).map((c) => ({ ...c, at: new Date(c.at) }));
      const own = watched.filter((a) => a.role === 'own').map((a) => a.handle);
      return {
        handle,
        name: latest?.name?.trim() || handle,
        since,
        until: options.now,
        moves,
        events: eventsOf({
          moves,
          entrants,
          sponsored: sponsorChanged,
          own: reviewAlertsSince(tx, own, since).map((r) => ({ ...r, name: name(r.handle) })),
          // Every listing change that alerts, of any app the category ranked: what passed an own app.
          listings: listingChangesSince(tx, [...names.keys()], since)
            .filter((row) => row.alerted && row.at < until)
            .map((row) => ({ at: row.at, text: `${name(row.appHandle)}: ${changeSummary(row).text}` })),
        }),
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
          changes: [...sponsorChanged].reverse(),
        },
      };
    },
    { behavior: 'deferred' },
  );
}

/** The lines a category's chart follows: the watched apps, the leaders, and the apps that passed an own app. */
function followedSeries(
  tx: Db,
  c: {
    handle: string;
    watched: readonly MarketApp[];
    latest: CategorySnapshot | undefined;
    ok: readonly CategorySnapshot[];
    okAt: readonly Date[];
    ranks: Map<string, CategoryRank> | undefined;
    moves: readonly MoveItem[];
    name: (handle: string) => string;
  },
): RankSeries[] {
  const { handle, watched, latest, ok, okAt, ranks } = c;
  const alerted = lastAlertMoves(c.moves);
  const leaders = (latest?.apps ?? [])
    .filter((a) => a.rank !== null && !watched.some((w) => w.handle === a.handle))
    .slice(0, LEADERS);
  const base = [
    ...watched.map((a) => ({ handle: a.handle, name: nameOf(tx, a), role: a.role })),
    ...leaders.map((a) => ({ handle: a.handle, name: a.name, role: 'leader' as const })),
  ].slice(0, MAX_SERIES);
  const passers = passersOf(c.moves, handle)
    .filter((a) => !base.some((b) => b.handle === a.handle))
    .map((a) => ({ handle: a.handle, name: c.name(a.handle), role: 'passer' as const }));
  const followed = [...base, ...passers].slice(0, Math.max(base.length, MAX_SERIES_WITH_PASSERS));
  return followed.map((app) => {
    const rank = ranks?.get(app.handle);
    const watchedApp = app.role === 'own' || app.role === 'competitor';
    return {
      ...app,
      points: ok.map((snapshot, i) => ({ at: okAt[i] as Date, rank: rankIn(snapshot, app.handle) })),
      rank: latest ? rankIn(latest, app.handle) : null,
      move: rank?.move ?? null,
      ...(watchedApp && rank
        ? { story: { ...rank, alert: alerted.get(`${handle} ${app.handle}`) ?? null } }
        : {}),
    };
  });
}

/** The moves of this category, and the listing changes of the apps it ranks. */
function movesIn(moves: readonly MoveItem[], category: string, ranked: ReadonlySet<string>): MoveItem[] {
  return moves.filter((m) =>
    m.category ? m.category.handle === category : m.subject !== undefined && ranked.has(m.subject),
  );
}

/** The apps rank alerts here say passed an own app (or entered above it), newest alert first. */
function passersOf(moves: readonly MoveItem[], category: string): Array<{ handle: string }> {
  return moves
    .filter((m) => m.kind === 'rank' && m.category?.handle === category)
    .flatMap((m) => m.apps.filter((a) => a.handle !== m.subject));
}

/** The chart's markers: listing changes, entrants, sponsored-slot changes, own incidents and drops, alerts. */
function eventsOf(input: {
  moves: readonly MoveItem[];
  entrants: ReadonlyArray<{ name: string; at: Date; rank: number | null }>;
  sponsored: ReadonlyArray<{ at: Date; added: Array<{ name: string }>; removed: Array<{ name: string }> }>;
  own: ReadonlyArray<{ name: string; kind: 'rating-drop' | 'incident'; at: Date }>;
  listings: ReadonlyArray<{ at: Date; text: string }>;
}): ChartEvent[] {
  const names = (apps: ReadonlyArray<{ name: string }>) => apps.map((a) => a.name).join(', ');
  const events: ChartEvent[] = [
    ...input.moves.flatMap((m): ChartEvent[] =>
      // A listing alert's changes are among the stored ones below: marked once, from those.
      m.kind === 'rank' || m.kind === 'reshuffle' ? [{ at: m.at, kind: m.kind, label: m.title }] : [],
    ),
    ...input.listings.map((l): ChartEvent => ({ at: l.at, kind: 'listing', label: l.text })),
    ...input.entrants.map(
      (e): ChartEvent => ({
        at: e.at,
        kind: 'entrant',
        label: `New entrant: ${e.name}${e.rank === null ? '' : ` at #${e.rank}`}`,
      }),
    ),
    ...input.sponsored.map(
      (c): ChartEvent => ({
        at: c.at,
        kind: 'sponsored',
        label: `Sponsored slots: ${[
          c.added.length > 0 ? `${names(c.added)} took one` : '',
          c.removed.length > 0 ? `${names(c.removed)} gave one up` : '',
        ]
          .filter(Boolean)
          .join('; ')}`,
      }),
    ),
    ...input.own.map(
      (o): ChartEvent => ({
        at: o.at,
        kind: o.kind,
        label: `${o.kind === 'incident' ? 'Possible incident' : 'Rating drop'} of ${o.name}`,
      }),
    ),
  ];
  return events.sort((a, b) => a.at.getTime() - b.at.getTime());
}
