/**
 * Rank alerts that earn their place. An own app's move alerts only when it leaves the app's own recent
 * volatility band, persists over two snapshots, and is not explained by a category-wide shift. Entering
 * or leaving the tracked pages or the top 10 counts whatever the band. When more than a fifth of the
 * tracked apps moved three places or more in one snapshot, the category reshuffled: one message, and no
 * per-app alerts until each app has a new level. Every alert carries what may explain it, taken from data
 * already fetched.
 *
 * Pure: the caller passes the category's recent successful snapshots (a failed snapshot is a gap: it is
 * simply not in the list, never a rank of 0) and when each own app last alerted.
 */
import { type CategorySnapshot, ranksOf, type SnapshotApp, sponsorsOf } from './snapshot.js';

export interface RankAlertOptions {
  /** The smallest band: a move of this many places or more can leave it. */
  floor: number;
  /** The band is this many robust standard deviations of the app's ranks around its level, at least `floor`. */
  bandFactor: number;
  /**
   * A move must be beyond the band on average over its two snapshots, and each of them at most this many
   * places inside it (0: both at least `band` away).
   */
  persistSlack: number;
  /** How far back the level and band look. */
  windowMs: number;
  /** Snapshots the level needs (after an alert the app settles until it has them). */
  minReference: number;
  /** The same after a reshuffle: the whole category is still settling, so a longer wait. */
  minReferenceAfterReshuffle: number;
  /** Apps whose level lies within this many places of the app's say how the category around it moved. */
  neighbourhood: number;
  /** Fewer neighbours than this: no category shift is estimated (taken as 0). */
  minNeighbours: number;
  /** A reshuffle: more than `reshuffleShare` of the apps in both snapshots moved `reshuffleMoved` places or more. */
  reshuffleShare: number;
  reshuffleMoved: number;
  /** Fewer apps than this in both snapshots say nothing about a reshuffle. */
  reshuffleMinApps: number;
  /** A second reshuffle within this time is the same one still rolling out: no second message. */
  reshuffleCooldownMs: number;
  /** The top-N boundary that counts whatever the band. */
  topN: number;
  /**
   * How far on the other side of a boundary (top N, the tracked pages) the app's level must have been for
   * crossing it to count: an app whose level sits on the boundary crosses it with every wobble.
   */
  boundaryMargin: number;
  /** A boundary crossing that stays within the band is not alerted again this soon after the app's last alert. */
  boundaryCooldownMs: number;
  /** Explanations look this far before the move's first snapshot. */
  explainLookbackMs: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const DEFAULT_RANK_ALERT_OPTIONS: Readonly<RankAlertOptions> = Object.freeze({
  floor: 4,
  bandFactor: 3,
  persistSlack: 0,
  windowMs: 7 * 24 * HOUR,
  minReference: 4,
  minReferenceAfterReshuffle: 8,
  neighbourhood: 10,
  minNeighbours: 5,
  reshuffleShare: 0.2,
  reshuffleMoved: 3,
  reshuffleMinApps: 10,
  reshuffleCooldownMs: 24 * HOUR,
  topN: 10,
  boundaryMargin: 3,
  boundaryCooldownMs: 7 * 24 * HOUR,
  explainLookbackMs: 24 * HOUR,
});

/** A listing change recorded for an app (listing-diff.ts), summarised for an explanation. */
export interface ListingChangeNote {
  handle: string;
  at: number;
  summary: string;
}

/** A rating drop or incident of an own app (the review alerts). */
export interface OwnEventNote {
  handle: string;
  at: number;
  kind: 'rating-drop' | 'incident';
  summary: string;
}

export interface RankContext {
  listingChanges?: readonly ListingChangeNote[];
  ownEvents?: readonly OwnEventNote[];
  /**
   * Handles the category's whole stored history had never ranked before the window: new entrants. Without
   * it, an app missing from every reference snapshot is said to be back in the tracked pages, not new.
   */
  newEntrants?: ReadonlySet<string>;
}

export interface RankDetectionInput {
  /** Successful snapshots of one category, oldest first; the last is the one just taken. */
  history: readonly CategorySnapshot[];
  ownApps: readonly string[];
  /** When each own app last had a rank alert in this category (the snapshot's time). */
  lastAlertAt?: ReadonlyMap<string, number>;
  context?: RankContext;
  options?: Partial<RankAlertOptions>;
}

export interface PassingApp {
  handle: string;
  name: string;
  /** Its level before (null: it was not in the tracked pages). */
  from: number | null;
  to: number;
  /** Its listing changes in the window. */
  changes: string[];
}

export type RankReason =
  /** For a fall: the apps that passed it; for a rise: the apps it passed. */
  | { kind: 'passed'; apps: PassingApp[] }
  | { kind: 'new-entrants'; apps: Array<{ handle: string; name: string; rank: number }> }
  | { kind: 'returned'; apps: Array<{ handle: string; name: string; rank: number }> }
  | { kind: 'sponsored'; gained: string[]; lost: string[] }
  | { kind: 'own-sponsored'; change: 'gained' | 'lost' }
  | { kind: 'rating'; from: number; to: number }
  | { kind: 'badge'; change: 'gained' | 'lost' }
  | { kind: 'own-event'; event: OwnEventNote }
  | { kind: 'own-listing'; changes: string[] }
  | { kind: 'category-shift'; places: number }
  | { kind: 'none' };

export interface RankAlert {
  category: string;
  handle: string;
  name: string;
  at: number;
  /** fell/rose: beyond the band; entered/left: the tracked pages. */
  kind: 'fell' | 'rose' | 'entered' | 'left';
  /** The top-N boundary crossed, if any. */
  topN: 'entered' | 'left' | null;
  /** The app's level before the move (median of the reference), null when it was not in the tracked pages. */
  from: number | null;
  /** Its rank now, null when it is no longer in the tracked pages. */
  to: number | null;
  /** The rank at the snapshot before (the move's first). */
  previous: number | null;
  /** How far the app usually wobbles, in places. */
  band: number;
  /** The move less the category's shift around it. */
  ownMove: number | null;
  reasons: RankReason[];
}

export interface ReshuffleAlert {
  category: string;
  at: number;
  /** Apps in both snapshots, and how many of them moved `reshuffleMoved` places or more. */
  compared: number;
  moved: number;
  ownApps: Array<{ handle: string; name: string; from: number | null; to: number | null }>;
}

export interface RankDetection {
  /** At most one per call; null also when this reshuffle continues one already reported. */
  reshuffle: ReshuffleAlert | null;
  /** True when the newest snapshot is a reshuffle (reported or not): per-app alerts wait for new levels. */
  reshuffled: boolean;
  alerts: RankAlert[];
}

/** The median; +∞ when at least half the values are (an app missing from at least half the snapshots). */
function median(values: number[]): number {
  const sorted = values.slice().sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length % 2 === 1) return sorted[mid] as number;
  const hi = sorted[mid] as number;
  return hi === Number.POSITIVE_INFINITY ? hi : ((sorted[mid - 1] as number) + hi) / 2;
}

/** Whether the move from `before` to `after` is a reshuffle, with the counts. */
export function reshuffleBetween(
  before: CategorySnapshot,
  after: CategorySnapshot,
  options: Partial<RankAlertOptions> = {},
): { reshuffled: boolean; compared: number; moved: number } {
  const o = { ...DEFAULT_RANK_ALERT_OPTIONS, ...options };
  const was = ranksOf(before);
  let compared = 0;
  let moved = 0;
  for (const app of after.apps) {
    if (app.rank === null) continue;
    const old = was.get(app.handle);
    if (old === undefined) continue;
    compared++;
    if (Math.abs(app.rank - old) >= o.reshuffleMoved) moved++;
  }
  return {
    reshuffled: compared >= o.reshuffleMinApps && moved > compared * o.reshuffleShare,
    compared,
    moved,
  };
}

/** An app's rank in a snapshot: its organic rank, or +∞ when it is below the pages read. */
function rankIn(ranks: ReadonlyMap<string, number>, handle: string): number {
  return ranks.get(handle) ?? Number.POSITIVE_INFINITY;
}

export function detectRankAlerts(input: RankDetectionInput): RankDetection {
  const o = { ...DEFAULT_RANK_ALERT_OPTIONS, ...input.options };
  const history = input.history;
  const n = history.length;
  const none: RankDetection = { reshuffle: null, reshuffled: false, alerts: [] };
  if (n < 2) return none;
  const cur = history[n - 1] as CategorySnapshot;
  const prev = history[n - 2] as CategorySnapshot;
  const ranks = history.map(ranksOf);

  // Reshuffles in the window: the latest one restarts every app's level.
  let lastReshuffle = -1;
  let earlierReshuffleAt: number | null = null;
  for (let i = 1; i < n; i++) {
    const s = history[i] as CategorySnapshot;
    if (cur.at - s.at > o.windowMs + o.reshuffleCooldownMs) continue;
    if (reshuffleBetween(history[i - 1] as CategorySnapshot, s, o).reshuffled) {
      if (i < n - 1) earlierReshuffleAt = s.at;
      lastReshuffle = i;
    }
  }
  if (lastReshuffle === n - 1) {
    const { compared, moved } = reshuffleBetween(prev, cur, o);
    const continues = earlierReshuffleAt !== null && cur.at - earlierReshuffleAt < o.reshuffleCooldownMs;
    const prevRanks = ranks[n - 2] as Map<string, number>;
    const curRanks = ranks[n - 1] as Map<string, number>;
    const reshuffle: ReshuffleAlert = {
      category: cur.category,
      at: cur.at,
      compared,
      moved,
      ownApps: input.ownApps.map((handle) => ({
        handle,
        name: nameIn(history, handle),
        from: prevRanks.get(handle) ?? null,
        to: curRanks.get(handle) ?? null,
      })),
    };
    return { reshuffle: continues ? null : reshuffle, reshuffled: true, alerts: [] };
  }

  const alerts: RankAlert[] = [];
  for (const handle of input.ownApps) {
    const alert = detectOne(handle, history, ranks, lastReshuffle, input, o);
    if (alert !== null) alerts.push(alert);
  }
  return { reshuffle: null, reshuffled: false, alerts };
}

function nameIn(history: readonly CategorySnapshot[], handle: string): string {
  for (let i = history.length - 1; i >= 0; i--) {
    const app = (history[i] as CategorySnapshot).apps.find((a) => a.handle === handle);
    if (app !== undefined) return app.name;
  }
  return handle;
}

/**
 * The snapshots the app's level is taken from: the window before the move's two snapshots, after the app's
 * last alert and the last reshuffle; null when there are too few of them for a level.
 */
function referenceOf(
  history: readonly CategorySnapshot[],
  lastReshuffle: number,
  lastAlert: number,
  o: RankAlertOptions,
): number[] | null {
  const n = history.length;
  const cur = history[n - 1] as CategorySnapshot;
  const reference: number[] = [];
  for (let i = 0; i < n - 2; i++) {
    const s = history[i] as CategorySnapshot;
    if (cur.at - s.at > o.windowMs || s.at < lastAlert || i < lastReshuffle) continue;
    reference.push(i);
  }
  // The reference starts at a reshuffle unless the app's own alert came later.
  const sinceReshuffle = lastReshuffle >= 0 && (history[lastReshuffle] as CategorySnapshot).at >= lastAlert;
  return reference.length < (sinceReshuffle ? o.minReferenceAfterReshuffle : o.minReference)
    ? null
    : reference;
}

/** How an app's two latest ranks `a`, `b` (+∞: below the pages read) stand against its level and band. */
interface Move {
  kind: RankAlert['kind'] | null;
  ownMove: number | null;
  /** The category's shift around the app's level. */
  shift: number;
  /** Whether it left or entered the tracked pages. */
  crossed: boolean;
}

function classifyMove(
  handle: string,
  level: number,
  a: number,
  b: number,
  band: number,
  history: readonly CategorySnapshot[],
  now: ReadonlyMap<string, number>,
  levelOf: (h: string) => number,
  o: RankAlertOptions,
): Move {
  const n = history.length;
  const cur = history[n - 1] as CategorySnapshot;
  const inf = Number.POSITIVE_INFINITY;
  const none: Move = { kind: null, ownMove: null, shift: 0, crossed: false };
  if (level !== inf && a === inf && b === inf) {
    // Out of the pages read: counts when its level was clearly inside them.
    const depthNow = Math.min((history[n - 2] as CategorySnapshot).depth, cur.depth);
    return level <= depthNow - o.boundaryMargin + 1 ? { ...none, kind: 'left', crossed: true } : none;
  }
  if (level === inf && a !== inf && b !== inf) return { ...none, kind: 'entered', crossed: true };
  if (level === inf) return none;
  // Beyond the depth counts as one place below it: the least it fell.
  const devA = (a === inf ? cur.depth + 1 : a) - level;
  const devB = (b === inf ? cur.depth + 1 : b) - level;
  const shift = neighbourhoodShift(handle, level, now, levelOf, o);
  // On average beyond the band over both snapshots, each of them (nearly) out of it: a rank sitting on
  // the band's edge (the wobble's commonest large value) has not left it.
  const each = band - o.persistSlack;
  const beyond = Math.abs(devA) >= each && Math.abs(devB) >= each && Math.abs(devA + devB) / 2 > band;
  if (Math.sign(devA) !== Math.sign(devB) || !beyond) return { ...none, shift };
  const ownMove = devB - shift;
  const kind =
    Math.sign(ownMove) === Math.sign(devB) && Math.abs(ownMove) >= band ? (devB > 0 ? 'fell' : 'rose') : null;
  return { kind, ownMove, shift, crossed: false };
}

/** The top-N boundary the app crossed over both snapshots, from clearly on the other side of it. */
function topNCrossing(level: number, a: number, b: number, o: RankAlertOptions): RankAlert['topN'] {
  const top = o.topN;
  if (level !== Number.POSITIVE_INFINITY && level <= top - o.boundaryMargin + 1 && a > top && b > top) {
    return 'left';
  }
  if (level >= top + o.boundaryMargin && a <= top && b <= top) return 'entered';
  return null;
}

function detectOne(
  handle: string,
  history: readonly CategorySnapshot[],
  ranks: readonly Map<string, number>[],
  lastReshuffle: number,
  input: RankDetectionInput,
  o: RankAlertOptions,
): RankAlert | null {
  const n = history.length;
  const cur = history[n - 1] as CategorySnapshot;
  const lastAlert = input.lastAlertAt?.get(handle) ?? Number.NEGATIVE_INFINITY;
  const reference = referenceOf(history, lastReshuffle, lastAlert, o);
  if (reference === null) return null;

  const levelOf = (h: string): number =>
    median(reference.map((i) => rankIn(ranks[i] as Map<string, number>, h)));
  const level = levelOf(handle);
  const a = rankIn(ranks[n - 2] as Map<string, number>, handle);
  const b = rankIn(ranks[n - 1] as Map<string, number>, handle);
  const inf = Number.POSITIVE_INFINITY;

  // The band: the app's own wobble, from how far it moved in a day over the whole window (a robust spread
  // of daily differences, which a move or an alert only touches a few times), never below the floor.
  const band = Math.max(
    o.floor,
    Math.round(o.bandFactor * dailyWobble(handle, history, ranks, lastReshuffle, o)),
  );

  const move = classifyMove(
    handle,
    level,
    a,
    b,
    band,
    history,
    ranks[n - 1] as Map<string, number>,
    levelOf,
    o,
  );
  const topN = topNCrossing(level, a, b, o);
  if (move.kind === null && topN === null) return null;

  const beyondBand = move.kind === 'fell' || move.kind === 'rose';
  const crossed = move.crossed || topN !== null;
  if (!beyondBand && crossed && cur.at - lastAlert < o.boundaryCooldownMs) return null;
  const kind = move.kind ?? (topN === 'entered' ? 'rose' : 'fell');

  const reasons = explain(handle, kind, level, history, reference, ranks, levelOf, input.context ?? {}, o);
  if (!beyondBand && Math.abs(move.shift) >= 1) {
    // A crossing within the band: the category around it moving is the first thing to say.
    reasons.splice(0, reasons[0]?.kind === 'none' ? 1 : 0, {
      kind: 'category-shift',
      places: Math.round(move.shift),
    });
  }
  return {
    category: cur.category,
    handle,
    name: nameIn(history, handle),
    at: cur.at,
    kind,
    topN,
    from: level === inf ? null : Math.round(level),
    to: b === inf ? null : b,
    previous: a === inf ? null : a,
    band,
    ownMove: move.ownMove === null ? null : Math.round(move.ownMove),
    reasons,
  };
}

/**
 * How far an app's rank wanders from its level, estimated from its day-to-day moves over the window
 * (after the last reshuffle): 1.4826 × the median absolute daily move is their standard deviation, and a
 * daily move is the difference of two deviations, hence the √2.
 */
function dailyWobble(
  handle: string,
  history: readonly CategorySnapshot[],
  ranks: readonly Map<string, number>[],
  lastReshuffle: number,
  o: RankAlertOptions,
): number {
  const n = history.length;
  const cur = history[n - 1] as CategorySnapshot;
  const moves: number[] = [];
  let k = Math.max(0, lastReshuffle);
  for (let i = Math.max(0, lastReshuffle); i < n - 2; i++) {
    const s = history[i] as CategorySnapshot;
    if (cur.at - s.at > o.windowMs) continue;
    // The snapshot about a day before this one (from 20 to 28 hours).
    while (k < i && s.at - (history[k] as CategorySnapshot).at > DAY + 4 * HOUR) k++;
    const before = history[k] as CategorySnapshot;
    if (k >= i || s.at - before.at < DAY - 4 * HOUR) continue;
    const r = (ranks[i] as Map<string, number>).get(handle);
    const q = (ranks[k] as Map<string, number>).get(handle);
    if (r !== undefined && q !== undefined) moves.push(Math.abs(r - q));
  }
  return moves.length === 0 ? 0 : (median(moves) * 1.4826) / Math.SQRT2;
}

/** The median move of the apps around the app's level: how the category around it shifted. */
function neighbourhoodShift(
  handle: string,
  level: number,
  now: ReadonlyMap<string, number>,
  levelOf: (h: string) => number,
  o: RankAlertOptions,
): number {
  const moves: number[] = [];
  for (const [other, rank] of now) {
    if (other === handle) continue;
    const l = levelOf(other);
    if (l === Number.POSITIVE_INFINITY || Math.abs(l - level) > o.neighbourhood) continue;
    moves.push(rank - l);
  }
  return moves.length < o.minNeighbours ? 0 : median(moves);
}

function explain(
  handle: string,
  kind: RankAlert['kind'],
  level: number,
  history: readonly CategorySnapshot[],
  reference: readonly number[],
  ranks: readonly Map<string, number>[],
  levelOf: (h: string) => number,
  context: RankContext,
  o: RankAlertOptions,
): RankReason[] {
  const n = history.length;
  const cur = history[n - 1] as CategorySnapshot;
  const refLast = history[reference[reference.length - 1] as number] as CategorySnapshot;
  const since = (history[n - 2] as CategorySnapshot).at - o.explainLookbackMs;
  const now = ranks[n - 1] as Map<string, number>;
  const inf = Number.POSITIVE_INFINITY;
  const own = rankIn(now, handle);
  const reasons: RankReason[] = [];
  const changesOf = (h: string): string[] =>
    (context.listingChanges ?? [])
      .filter((c) => c.handle === h && c.at >= since && c.at <= cur.at)
      .map((c) => c.summary);

  const falling = kind === 'fell' || kind === 'left';
  const passed: PassingApp[] = [];
  const entrants: Array<{ handle: string; name: string; rank: number }> = [];
  const returned: Array<{ handle: string; name: string; rank: number }> = [];
  for (const app of cur.apps) {
    if (app.rank === null || app.handle === handle) continue;
    const l = levelOf(app.handle);
    const to = app.rank;
    const pass = () =>
      passed.push({
        handle: app.handle,
        name: app.name,
        from: Math.round(l),
        to,
        changes: changesOf(app.handle),
      });
    if (falling && app.rank < own) {
      if (l === inf) {
        const entry = { handle: app.handle, name: app.name, rank: app.rank };
        if (context.newEntrants === undefined || context.newEntrants.has(app.handle)) entrants.push(entry);
        else returned.push(entry);
      } else if (l > level) {
        pass();
      }
    } else if (!falling && app.rank > own && l !== inf && l < level) {
      pass();
    }
  }
  // Apps with listing changes first: they are the likelier explanation.
  passed.sort((x, y) => y.changes.length - x.changes.length || x.to - y.to);
  if (passed.length > 0) reasons.push({ kind: 'passed', apps: passed });
  if (entrants.length > 0) reasons.push({ kind: 'new-entrants', apps: entrants });
  if (returned.length > 0) reasons.push({ kind: 'returned', apps: returned });

  const before = new Set(sponsorsOf(refLast));
  const after = new Set(sponsorsOf(cur));
  const gained = [...after].filter((h) => !before.has(h));
  const lost = [...before].filter((h) => !after.has(h));
  if (gained.includes(handle)) reasons.push({ kind: 'own-sponsored', change: 'gained' });
  if (lost.includes(handle)) reasons.push({ kind: 'own-sponsored', change: 'lost' });
  const others = (list: string[]) => list.filter((h) => h !== handle);
  if (others(gained).length > 0 || others(lost).length > 0) {
    reasons.push({ kind: 'sponsored', gained: others(gained), lost: others(lost) });
  }

  const was: SnapshotApp | undefined = refLast.apps.find((x) => x.handle === handle);
  const is: SnapshotApp | undefined = cur.apps.find((x) => x.handle === handle);
  if (was?.rating != null && is?.rating != null && is.rating !== was.rating) {
    reasons.push({ kind: 'rating', from: was.rating, to: is.rating });
  }
  if (was?.builtFor != null && is?.builtFor != null && was.builtFor !== is.builtFor) {
    reasons.push({ kind: 'badge', change: is.builtFor ? 'gained' : 'lost' });
  }
  for (const event of context.ownEvents ?? []) {
    if (event.handle === handle && event.at >= since && event.at <= cur.at)
      reasons.push({ kind: 'own-event', event });
  }
  const ownChanges = changesOf(handle);
  if (ownChanges.length > 0) reasons.push({ kind: 'own-listing', changes: ownChanges });
  if (reasons.length === 0) reasons.push({ kind: 'none' });
  return reasons;
}
