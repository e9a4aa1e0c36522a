/** One category over time (`/categories/HANDLE`, `/api/categories/HANDLE`, `reviewwatch market --category`). */
import { exitsOf, gapsOf, rankIn, type SnapshotGap, sponsorChanges } from '../../market/history.js';
import type { Db } from '../../store/db.js';
import { categoryStates } from '../../store/market/categories.js';
import { categorySnapshotsBetween, firstSeenBetween } from '../../store/market/snapshots.js';
import { type MarketViewInput, nameOf, ownFirst } from './input.js';
import { type CategoryStatus, DAY_MS, ranksIn, statusOf } from './ranks.js';

/** A category's page shows this many days unless asked for another span. */
export const CATEGORY_DAYS = 90;

/** Besides the watched apps, a category's chart follows its leaders: the top of the latest snapshot. */
const LEADERS = 5;

/** Lines on one chart, at most: more cannot be told apart. */
const MAX_SERIES = 10;

/** The current ranking a category's page lists. */
const TOP = 10;

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
