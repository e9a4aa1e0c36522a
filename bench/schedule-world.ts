/**
 * The simulated marketplace of bench/schedule.ts: apps with heavy-tailed review rates, daily cycles, a few
 * bursts of bad reviews, and apps added while it runs. Every arrival is drawn up front from a seeded
 * stream, so every policy is measured on exactly the same reviews.
 */
import { ARRIVALS_READ_PER_APP } from '../src/schedule/index.js';
import { Rng } from '../src/simulator/random.js';

export const DAY = 86_400_000;
export const HOUR = 3_600_000;
export const MINUTE = 60_000;

/** Time zero of the simulations: a Monday, 00:00 UTC. Arrivals before it are the stored history. */
export const T0 = Date.UTC(2026, 0, 5);

export type Distribution =
  | { kind: 'lognormal'; median: number; sigma: number; min: number; max: number }
  | { kind: 'pareto'; min: number; alpha: number; max: number };

export interface WorldOptions {
  apps: number;
  days: number;
  seed: number;
  distribution: Distribution;
  /** How many of the apps are own apps (the rest are competitors); placed at random. */
  own: number;
  /** Weight of every own app and of every competitor (undefined: the product's defaults by role). */
  weights?: { own: number; competitor: number };
  /** Relative amplitude of the daily cycle: the rate swings between (1 − a) and (1 + a) times its mean. */
  cycle: number;
  /** Share of apps that get one burst (an incident): 6 hours of extra, mostly low, reviews. */
  burstShare: number;
  /** Share of apps first polled while the simulation runs; half of them are brand-new listings. */
  addedShare: number;
  /**
   * Days the apps watched from the start have been watched: their baseline was this long before time
   * zero. Their reviews are drawn back to then, or far enough to hold twice the reviews the rate model
   * reads (store/arrivals.ts), whichever is nearer: older ones would never be read.
   */
  historyDays: number;
  /** Share of ordinary reviews that are low (a burst's are 80% low). */
  lowShare: number;
}

export interface WorldApp {
  handle: string;
  role: 'own' | 'competitor';
  weight: number | undefined;
  /** Mean reviews a day, before the cycle and bursts. */
  rate: number;
  /** When its first poll happens (T0 for apps watched from the start). */
  addedAt: number;
  /** Its first possible review: the listing's start, or as far back as the history is drawn. */
  listedAt: number;
  /** Arrival times, ascending, through the simulated period plus a tail. */
  arrivals: Float64Array;
  low: Uint8Array;
  burst: Uint8Array;
}

export interface World {
  options: WorldOptions;
  apps: WorldApp[];
  start: number;
  end: number;
  /** Reviews arriving in [start, end) of apps already added: the ones whose delay is measured. */
  measured: number;
}

const BURST_HOURS = 6;

export function drawRate(rng: Rng, d: Distribution): number {
  for (;;) {
    const x =
      d.kind === 'lognormal'
        ? Math.exp(Math.log(d.median) + d.sigma * gaussian(rng))
        : d.min * (1 - rng.next()) ** (-1 / d.alpha);
    // Truncated, not clipped: no pile of apps at the bounds.
    if (x >= d.min && x <= d.max) return x;
  }
}

function gaussian(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

function exponential(rng: Rng, rate: number): number {
  return -Math.log(1 - rng.next()) / rate;
}

export function buildWorld(options: WorldOptions): World {
  const rng = Rng.from(options.seed, 'schedule-world', options.distribution.kind);
  const start = T0;
  const end = T0 + options.days * DAY;
  // A tail past the end, so that every measured review is eventually found.
  const tailEnd = end + 3 * DAY;
  const ownSet = new Set<number>();
  while (ownSet.size < Math.min(options.own, options.apps)) ownSet.add(Math.floor(rng.next() * options.apps));
  const apps: WorldApp[] = [];
  let measured = 0;
  for (let i = 0; i < options.apps; i++) {
    const rate = drawRate(rng, options.distribution);
    const role = ownSet.has(i) ? 'own' : 'competitor';
    const added = rng.chance(options.addedShare);
    const addedAt = added ? start + rng.next() * (options.days - 2) * DAY : start;
    const history = Math.min(options.historyDays, (2 * ARRIVALS_READ_PER_APP) / rate) * DAY;
    const listedAt = added && rng.chance(0.5) ? addedAt : start - history;
    // Most of a marketplace's buyers share a few time zones: peaks within a quarter of a day.
    const phase = rng.next() * 0.25;
    const times: number[] = [];
    const lows: number[] = [];
    const peak = rate * (1 + options.cycle);
    for (let t = listedAt; ; ) {
      t += exponential(rng, peak) * DAY;
      if (t >= tailEnd) break;
      const cycle = 1 + options.cycle * Math.sin(2 * Math.PI * ((t - T0) / DAY - phase));
      if (rng.next() * (1 + options.cycle) > cycle) continue;
      times.push(t);
      lows.push(rng.chance(options.lowShare) ? 1 : 0);
    }
    const burstTimes: number[] = [];
    if (rng.chance(options.burstShare)) {
      const from = Math.max(addedAt, start) + rng.next() * Math.max(0, end - Math.max(addedAt, start) - DAY);
      const extra = 8 + 10 * rate * (BURST_HOURS / 24);
      for (let t = from; ; ) {
        t += exponential(rng, extra) * BURST_HOURS * HOUR;
        if (t >= from + BURST_HOURS * HOUR) break;
        burstTimes.push(t);
      }
    }
    // Both lists are in time order: merge them.
    const total = times.length + burstTimes.length;
    const arrivals = new Float64Array(total);
    const low = new Uint8Array(total);
    const burst = new Uint8Array(total);
    for (let k = 0, a = 0, b = 0; k < total; k++) {
      const fromBurst =
        b < burstTimes.length && (a >= times.length || (burstTimes[b] as number) < (times[a] as number));
      if (fromBurst) {
        arrivals[k] = burstTimes[b++] as number;
        low[k] = rng.chance(0.8) ? 1 : 0;
        burst[k] = 1;
      } else {
        arrivals[k] = times[a] as number;
        low[k] = lows[a++] as number;
      }
    }
    for (const t of arrivals) if (t >= Math.max(start, addedAt) && t < end) measured++;
    apps.push({
      handle: `app-${i}`,
      role,
      weight: options.weights ? options.weights[role] : undefined,
      rate,
      addedAt,
      listedAt,
      arrivals,
      low,
      burst,
    });
  }
  return { options, apps, start, end, measured };
}

/**
 * Each app's mean reviews a day: what a schedule that knew the rates (but not when reviews come) would
 * plan for, so what the bounds are computed for. The bursts are not in it: nobody can plan for those.
 */
export function trueRates(world: World): Float64Array {
  return Float64Array.from(world.apps, (app) => app.rate);
}
