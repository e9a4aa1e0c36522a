/**
 * Market watch: how quiet and how quick the rank alerts are (src/market/rank-alerts.ts) on the
 * simulator's categories (src/simulator/market.ts), and what the market watch costs in requests.
 *
 *   npx tsx bench/market.ts [--categories 50] [--days 90] [--seed 1] [--pages 2]
 *
 * Each category's pages are built as the simulator serves them (views.ts, without HTTP), read through the
 * client's schema and `snapshotOf`, one snapshot every 6 h, and the detector runs on each new snapshot
 * with the stored history a phase-2 worker would pass it. Three own apps per category, at seeded places
 * in the tracked pages. Runs:
 *
 *  - noise: the daily wobble and spikes, no reshuffle, nothing moving for real: every alert is false;
 *  - reshuffles: the same plus marketplace-wide reshuffles (about one in 45 days): messages per reshuffle;
 *  - moves: noise plus one sustained move of 5 to 15 places per own app at a seeded snapshot.
 *
 * A measured baseline comes first: the noise itself (how far organic ranks move from day to day), so the
 * figures can be judged against what the detector was up against. Tables go to stdout, JSON to
 * bench/results/.
 */
import { parseArgs } from 'node:util';
import { CatalogClient } from '../src/catalog/client.js';
import { categoryPageSchema } from '../src/catalog/schemas.js';
import {
  type CategorySnapshot,
  DEFAULT_RANK_ALERT_OPTIONS,
  detectRankAlerts,
  type RankAlert,
  type RankAlertOptions,
  ranksOf,
  snapshotOf,
} from '../src/market/index.js';
import { CATEGORIES, startSimulator } from '../src/simulator/index.js';
import type { MarketEvent, RankNoise } from '../src/simulator/market.js';
import { isReshuffleDay, TICKS_PER_DAY } from '../src/simulator/market.js';
import { Rng } from '../src/simulator/random.js';
import { SimulatorState } from '../src/simulator/state.js';
import { categoryData } from '../src/simulator/views.js';
import { percentile, round, writeResult } from './support.js';

const { values: args } = parseArgs({
  options: {
    categories: { type: 'string', default: '50' },
    days: { type: 'string', default: '90' },
    seed: { type: 'string', default: '1' },
    pages: { type: 'string', default: '2' },
    /** Override detector options, e.g. --option floor=5 --option bandFactor=2.5 */
    option: { type: 'string', multiple: true, default: [] },
    /** Override the simulator's noise, e.g. --noise dailySd=1.5, to see how the detector copes with more. */
    noise: { type: 'string', multiple: true, default: [] },
  },
});
const CATEGORY_COUNT = Number(args.categories);
const DAYS = Number(args.days);
const SEED = Number(args.seed);
const PAGES = Number(args.pages);
const OWN_PER_CATEGORY = 3;
const HOUR = 3_600_000;
const STEP = 6 * HOUR;
/** Enough history for the detector's window (7 days) and the reshuffle cooldown. */
const KEEP =
  Math.ceil(
    (DEFAULT_RANK_ALERT_OPTIONS.windowMs + 2 * DEFAULT_RANK_ALERT_OPTIONS.reshuffleCooldownMs) / STEP,
  ) + 4;
const T0 = Date.UTC(2025, 0, 6);

const overrides: Partial<RankAlertOptions> = {};
for (const pair of args.option ?? []) {
  const [key, value] = pair.split('=');
  (overrides as Record<string, number>)[key as string] = Number(value);
}
const OPTIONS: RankAlertOptions = { ...DEFAULT_RANK_ALERT_OPTIONS, ...overrides };
const NOISE: Partial<RankNoise> = {};
for (const pair of args.noise ?? []) {
  const [key, value] = pair.split('=');
  (NOISE as Record<string, number>)[key as string] = Number(value);
}

const log = (...parts: unknown[]) => console.error(...parts);

interface CategoryWorld {
  state: SimulatorState;
  category: string;
  index: number;
  own: string[];
}

/** 50 categories: the simulator's 8 under several seeds, about 100 apps each (so 2 pages are tracked). */
function worlds(
  noise: Partial<RankNoise>,
  events: (w: CategoryWorld, rng: Rng) => MarketEvent[] = () => [],
): CategoryWorld[] {
  const out: CategoryWorld[] = [];
  for (let s = 0; out.length < CATEGORY_COUNT; s++) {
    for (let index = 0; index < CATEGORIES.length && out.length < CATEGORY_COUNT; index++) {
      const seed = SEED * 1000 + s;
      const options = { seed, appCount: 800, maxReviewsPerApp: 5, now: () => T0 };
      const category = (CATEGORIES[index] as (typeof CATEGORIES)[number]).handle;
      const probe = new SimulatorState({ ...options, market: { noise } });
      const first = snapshotAt(probe, category, 0);
      const ranked = first.apps.filter((a) => a.rank !== null && a.rank <= first.depth - 4);
      const own = Rng.from(SEED, 'own', s, index)
        .sample(ranked, OWN_PER_CATEGORY)
        .map((a) => a.handle);
      const world = { state: probe, category, index, own };
      const script = events(world, Rng.from(SEED, 'events', s, index));
      // The script goes in the options: reset() (each run starts from tick 0) applies it again.
      world.state = new SimulatorState({ ...options, market: { noise, events: script } });
      out.push(world);
    }
  }
  return out;
}

function snapshotAt(state: SimulatorState, category: string, tick: number): CategorySnapshot {
  state.advanceMarket(tick - state.marketTick());
  const pages = [];
  for (let page = 1; page <= PAGES; page++) {
    const data = categoryData(state, category, page);
    pages.push(categoryPageSchema.parse(data));
    if (!(data.pagination as { hasNextPage: boolean }).hasNextPage) break;
  }
  return snapshotOf(category, pages, T0 + tick * STEP);
}

interface Fired {
  tick: number;
  alert: RankAlert;
}

interface Run {
  alerts: Fired[];
  reshuffleMessages: number[];
  reshuffledTicks: number[];
  /** Ranks of every tracked app per tick, for the noise baseline. */
  ranks: Array<Map<string, number>>;
}

/** Every snapshot of one category over `days`, the detector run on each as a worker would. */
function run(w: CategoryWorld, days: number): Run {
  const history: CategorySnapshot[] = [];
  const lastAlertAt = new Map<string, number>();
  const out: Run = { alerts: [], reshuffleMessages: [], reshuffledTicks: [], ranks: [] };
  // The market clock only moves forward: reset() takes it back to tick 0, script and all.
  w.state.reset();
  for (let tick = 0; tick < days * TICKS_PER_DAY; tick++) {
    const snapshot = snapshotAt(w.state, w.category, tick);
    history.push(snapshot);
    if (history.length > KEEP) history.shift();
    out.ranks.push(ranksOf(snapshot));
    const result = detectRankAlerts({ history, ownApps: w.own, lastAlertAt, options: OPTIONS });
    if (result.reshuffle !== null) out.reshuffleMessages.push(tick);
    if (result.reshuffled) out.reshuffledTicks.push(tick);
    for (const alert of result.alerts) {
      out.alerts.push({ tick, alert });
      lastAlertAt.set(alert.handle, alert.at);
    }
  }
  return out;
}

const results: Record<string, unknown> = {
  options: OPTIONS,
  categories: CATEGORY_COUNT,
  days: DAYS,
  seed: SEED,
  pages: PAGES,
};
const started = performance.now();

// ---------------------------------------------------------------------------------------------------------
// Noise only

log(`noise: ${CATEGORY_COUNT} categories x ${DAYS} days …`);
const noiseWorlds = worlds({ ...NOISE, reshufflePerDay: 0 });
const noiseRuns = noiseWorlds.map((w) => run(w, DAYS));

// The baseline: how far tracked organic ranks move in a day (4 snapshots) and in one snapshot.
const daily: number[] = [];
const perSnapshot: number[] = [];
for (const r of noiseRuns) {
  for (let t = TICKS_PER_DAY; t < r.ranks.length; t++) {
    const now = r.ranks[t] as Map<string, number>;
    const dayBefore = r.ranks[t - TICKS_PER_DAY] as Map<string, number>;
    const before = r.ranks[t - 1] as Map<string, number>;
    for (const [h, rank] of now) {
      const d = dayBefore.get(h);
      if (d !== undefined) daily.push(Math.abs(rank - d));
      const b = before.get(h);
      if (b !== undefined) perSnapshot.push(Math.abs(rank - b));
    }
  }
}
daily.sort((a, b) => a - b);
perSnapshot.sort((a, b) => a - b);
const share = (values: number[], max: number) =>
  round((100 * values.filter((v) => v <= max).length) / values.length, 1);
const noiseBaseline = {
  dailyMoveP50: percentile(daily, 50),
  dailyMoveP90: percentile(daily, 90),
  dailyMoveP95: percentile(daily, 95),
  dailyMoveP99: percentile(daily, 99),
  dailyWithin3: share(daily, 3),
  snapshotMoveP95: percentile(perSnapshot, 95),
};

const noiseAlerts = noiseRuns.flatMap((r) => r.alerts);
const months = (CATEGORY_COUNT * DAYS) / 30;
const byKind = (alerts: Fired[]) => {
  const counts: Record<string, number> = {};
  for (const { alert } of alerts) {
    const key =
      alert.topN !== null &&
      alert.kind !== 'entered' &&
      alert.kind !== 'left' &&
      Math.abs(alert.ownMove ?? 0) < alert.band
        ? `top10-${alert.topN}`
        : alert.kind;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
};
const perCategoryMonth = noiseRuns.map((r) => (r.alerts.length * 30) / DAYS).sort((a, b) => a - b);
const noise = {
  falseAlerts: noiseAlerts.length,
  perCategoryPer30Days: round(noiseAlerts.length / months, 2),
  worstCategoryPer30Days: round(perCategoryMonth.at(-1) ?? 0, 2),
  categoriesOverOne: perCategoryMonth.filter((v) => v > 1).length,
  byKind: byKind(noiseAlerts),
  reshuffleMessages: noiseRuns.reduce((n, r) => n + r.reshuffleMessages.length, 0),
};
results.noiseBaseline = noiseBaseline;
results.noise = noise;
results.noiseAlerts = noiseAlerts.map(({ tick, alert }) => ({
  tick,
  handle: alert.handle,
  kind: alert.kind,
  topN: alert.topN,
  from: alert.from,
  previous: alert.previous,
  to: alert.to,
  band: alert.band,
  ownMove: alert.ownMove,
}));

// ---------------------------------------------------------------------------------------------------------
// Reshuffles

log('reshuffles …');
const reshuffleWorlds = worlds({ ...NOISE });
const reshuffleRuns = reshuffleWorlds.map((w) => run(w, DAYS));
let reshuffles = 0;
let reshuffleMessages = 0;
let alertsAfter = 0;
let missed = 0;
for (let i = 0; i < reshuffleRuns.length; i++) {
  const r = reshuffleRuns[i] as Run;
  const w = reshuffleWorlds[i] as CategoryWorld;
  const days = Array.from({ length: DAYS }, (_, d) => d).filter((d) =>
    isReshuffleDay(w.state.seed, d, w.state.noise),
  );
  reshuffles += days.length;
  // Each message goes to the latest reshuffle at or before it, if that was within 3 days: two reshuffles
  // a day apart are two reshuffles, each with its own message.
  const owner = (tick: number): number | undefined => {
    const day = days.filter((d) => d * TICKS_PER_DAY <= tick).at(-1);
    return day !== undefined && tick < (day + 3) * TICKS_PER_DAY ? day : undefined;
  };
  const messagesOf = new Map<number, number>();
  for (const tick of r.reshuffleMessages) {
    const day = owner(tick);
    if (day === undefined) continue;
    reshuffleMessages++;
    messagesOf.set(day, (messagesOf.get(day) ?? 0) + 1);
  }
  missed += days.filter((d) => !messagesOf.has(d)).length;
  // Per-app alerts in the three days after a reshuffle are messages it caused too.
  alertsAfter += r.alerts.filter((a) => owner(a.tick) !== undefined).length;
}
const reshuffle = {
  reshuffles,
  reshuffleMessages,
  perAppAlertsWithin3Days: alertsAfter,
  messagesPerReshuffle: reshuffles === 0 ? null : round((reshuffleMessages + alertsAfter) / reshuffles, 2),
  reshufflesWithoutMessage: missed,
  reshuffleMessagesOnNoise:
    reshuffleRuns.reduce((n, r) => n + r.reshuffleMessages.length, 0) - reshuffleMessages,
  allAlertsPerCategoryPer30Days: round(reshuffleRuns.reduce((n, r) => n + r.alerts.length, 0) / months, 2),
};
results.reshuffle = reshuffle;

// ---------------------------------------------------------------------------------------------------------
// Sustained moves

log('sustained moves …');
interface Move {
  world: number;
  handle: string;
  at: number;
  places: number;
}
const moves: Move[] = [];
const WARMUP = 8 * TICKS_PER_DAY;
const moveWorlds = worlds({ ...NOISE, reshufflePerDay: 0 }, (w, rng) =>
  w.own.map((handle) => {
    const at = rng.int(WARMUP, DAYS * TICKS_PER_DAY - 3 * TICKS_PER_DAY);
    const size = rng.int(5, 15);
    const first = snapshotAt(w.state, w.category, 0);
    const rank = first.apps.find((a) => a.handle === handle)?.rank ?? 20;
    // Up when there is room above it, else down; half of each where both are possible.
    const up = rank > size + 1 && (rank + size > first.depth - 2 || rng.chance(0.5));
    return { kind: 'rank', at, handle, places: up ? -size : size } as MarketEvent;
  }),
);
moveWorlds.forEach((w, world) => {
  for (const e of w.state.marketScript()) {
    if (e.kind === 'rank') moves.push({ world, handle: e.handle, at: e.at, places: e.places });
  }
});
const moveRuns = moveWorlds.map((w) => run(w, DAYS));
const delays: number[] = [];
let within2 = 0;
let caught = 0;
const bySize = new Map<number, { n: number; within2: number }>();
const lateMoves: unknown[] = [];
let falseInMoves = 0;
/** Median of an app's ranks over ticks [from, to), below the pages counting as one place below them. */
const medianRank = (r: Run, handle: string, from: number, to: number): number => {
  const values = r.ranks
    .slice(Math.max(0, from), to)
    .map((m) => m.get(handle) ?? 49)
    .sort((a, b) => a - b);
  return values[values.length >> 1] ?? Number.NaN;
};
// The move as the ranks show it: the two days after it against the week before. The noise of the apps
// around it makes an injected shift of 7 show as anything from about 4 to 10 places.
let realised5 = 0;
let realised5Within2 = 0;
for (const move of moves) {
  const r = moveRuns[move.world] as Run;
  const right = move.places > 0 ? ['fell', 'left'] : ['rose', 'entered'];
  const hit = r.alerts.find(
    (a) => a.alert.handle === move.handle && a.tick >= move.at && right.includes(a.alert.kind),
  );
  const size = Math.abs(move.places);
  const realised = Math.abs(
    medianRank(r, move.handle, move.at, move.at + 8) - medianRank(r, move.handle, move.at - 28, move.at),
  );
  const entry = bySize.get(size) ?? { n: 0, within2: 0 };
  entry.n++;
  const delay = hit === undefined ? null : hit.tick - move.at + 1;
  if (realised >= 5) realised5++;
  if (delay !== null) {
    caught++;
    // The move's first snapshot is the one at its tick: detected at it is a delay of 1 snapshot.
    delays.push(delay);
    if (delay <= 2) {
      within2++;
      entry.within2++;
      if (realised >= 5) realised5Within2++;
    }
  }
  bySize.set(size, entry);
  if (delay === null || delay > 2) {
    const w = moveWorlds[move.world] as CategoryWorld;
    lateMoves.push({
      ...move,
      category: w.category,
      realised,
      delay,
      ranksAround: r.ranks.slice(move.at - 3, move.at + 3).map((m) => m.get(move.handle) ?? null),
    });
  }
}
for (let i = 0; i < moveRuns.length; i++) {
  const r = moveRuns[i] as Run;
  for (const a of r.alerts) {
    const move = moves.find((m) => m.world === i && m.handle === a.alert.handle);
    if (move === undefined || a.tick < move.at) falseInMoves++;
  }
}
delays.sort((a, b) => a - b);
const sustained = {
  moves: moves.length,
  detected: caught,
  within2Snapshots: within2,
  sharePercentWithin2: round((100 * within2) / moves.length, 1),
  realised5: realised5,
  realised5Within2: realised5Within2,
  realised5SharePercentWithin2: round((100 * realised5Within2) / Math.max(1, realised5), 1),
  delaySnapshotsP50: percentile(delays, 50),
  delaySnapshotsP95: percentile(delays, 95),
  delaySnapshotsMax: delays.at(-1) ?? null,
  bySize: [...bySize.entries()]
    .sort(([a], [b]) => a - b)
    .map(([size, v]) => ({ size, n: v.n, within2: v.within2 })),
  falseAlertsBeforeTheMoves: falseInMoves,
};
results.sustained = sustained;
results.lateMoves = lateMoves;

// ---------------------------------------------------------------------------------------------------------
// Requests a day

log('requests: one simulated day over HTTP …');
const everyMarket = 6;
const everyListing = 24;
const categoriesPlan = 50;
const pagesPlan = 3;
const listingsPlan = 2000;
const planned = {
  categoryPages: categoriesPlan * pagesPlan * (24 / everyMarket),
  listings: listingsPlan * (24 / everyListing),
};
const sim = await startSimulator({ seed: SEED, appCount: 2000, maxReviewsPerApp: 2 });
const client = new CatalogClient({ baseUrl: sim.url, apiKey: 'bench' });
const httpStarted = performance.now();
for (let snapshot = 0; snapshot < 24 / everyMarket; snapshot++) {
  for (let c = 0; c < categoriesPlan; c++) {
    const handle = (CATEGORIES[c % CATEGORIES.length] as (typeof CATEGORIES)[number]).handle;
    for (let page = 1; page <= pagesPlan; page++) await client.category(handle, { page });
  }
  sim.controls.advanceMarket(1);
}
const handles = sim.controls.handles();
for (let i = 0; i < listingsPlan; i += 16) {
  await Promise.all(handles.slice(i, i + 16).map((h) => client.app(h)));
}
const httpMs = performance.now() - httpStarted;
const counted = sim.controls.stats();
await client.close();
await sim.close();
const requests = {
  planned: { ...planned, total: planned.categoryPages + planned.listings },
  measured: {
    category: counted.byEndpoint.category ?? 0,
    app: counted.byEndpoint.app ?? 0,
    total: counted.requests,
  },
  seconds: round(httpMs / 1000, 1),
  reviewPollsForComparison: { apps: 2000, every15m: 2000 * 96 },
};
results.requests = requests;
results.seconds = round((performance.now() - started) / 1000, 1);

// ---------------------------------------------------------------------------------------------------------

const row = (cells: Array<string | number | null>) => `| ${cells.join(' | ')} |`;
console.log(
  `\nNoise baseline (${CATEGORY_COUNT} categories, ${DAYS} days, ${PAGES} pages tracked, organic ranks)\n`,
);
console.log(row(['daily move p50', 'p90', 'p95', 'p99', 'days within 3 places', 'one-snapshot move p95']));
console.log(row(['---:', '---:', '---:', '---:', '---:', '---:']));
console.log(
  row([
    noiseBaseline.dailyMoveP50,
    noiseBaseline.dailyMoveP90,
    noiseBaseline.dailyMoveP95,
    noiseBaseline.dailyMoveP99,
    `${noiseBaseline.dailyWithin3}%`,
    noiseBaseline.snapshotMoveP95,
  ]),
);
console.log('\nRank alerts\n');
console.log(row(['run', 'figure', 'goal']));
console.log(row(['---', '---:', '---']));
console.log(
  row([
    'noise only',
    `${noise.perCategoryPer30Days} false alerts per category per 30 days (worst category ${noise.worstCategoryPer30Days}; ${noise.falseAlerts} in all: ${JSON.stringify(noise.byKind)})`,
    '≤ 1',
  ]),
);
console.log(
  row([
    'reshuffles',
    `${reshuffle.messagesPerReshuffle} messages per reshuffle (${reshuffle.reshuffles} reshuffles, ${reshuffle.reshuffleMessages} reshuffle messages, ${reshuffle.perAppAlertsWithin3Days} per-app alerts within 3 days, ${reshuffle.reshufflesWithoutMessage} without a message)`,
    '1',
  ]),
);
console.log(
  row([
    'sustained moves',
    `${sustained.realised5SharePercentWithin2}% of the ${sustained.realised5} moves the ranks show as 5+ places caught within two snapshots; ${sustained.sharePercentWithin2}% of all ${sustained.moves} injected shifts of 5-15 places (delay p50 ${sustained.delaySnapshotsP50}, p95 ${sustained.delaySnapshotsP95}, max ${sustained.delaySnapshotsMax} snapshots; ${sustained.detected} caught at all; ${sustained.falseAlertsBeforeTheMoves} false alerts in these runs)`,
    '≥ 95%',
  ]),
);
console.log(
  `\nBy injected shift (caught within two snapshots / moves): ${sustained.bySize.map((s) => `${s.size}: ${s.within2}/${s.n}`).join(', ')}`,
);
console.log(
  `\nRequests a day: ${requests.planned.total} planned (${requests.planned.categoryPages} category pages + ${requests.planned.listings} listings); measured ${requests.measured.total} over HTTP in ${requests.seconds} s`,
);
const path = writeResult('market', Date.now(), JSON.stringify(results, null, 2));
log(`done in ${results.seconds} s; ${path}`);
