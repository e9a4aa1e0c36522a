/**
 * The market the simulator's category pages show: organic ranks that drift with realistic noise, ads above
 * them, occasional marketplace-wide reshuffles, and a script of events (a price cut, a new entrant
 * climbing, an app falling). Everything is a pure function of (seed, category, app, tick), so any tick can
 * be served in any order and two simulators with one seed agree.
 *
 * Time is counted in ticks, four a day (a snapshot every 6 h, the default `market.every`).
 */
import { unitHash } from './random.js';

export const TICKS_PER_DAY = 4;

export interface RankNoise {
  /** Standard deviation, in places, of an app's daily level around its place: the day-to-day wobble. */
  dailySd: number;
  /** Extra jitter of each tick around the day's level. */
  tickSd: number;
  /** Share of app-days with a bigger excursion (a feature, a burst of installs), and its deviation. */
  spikeChance: number;
  spikeSd: number;
  /** Chance that a day starts with a marketplace-wide reshuffle, and how far it moves each app. */
  reshufflePerDay: number;
  reshuffleSd: number;
}

/**
 * About ±3 places a day (95% of days within three places of the day before), with heavier tails from
 * spikes, and a reshuffle about every six weeks: what rank trackers show (docs/catalog-api.md).
 */
export const DEFAULT_NOISE: Readonly<RankNoise> = Object.freeze({
  dailySd: 1.5,
  tickSd: 0.25,
  spikeChance: 0.02,
  spikeSd: 3,
  reshufflePerDay: 1 / 45,
  reshuffleSd: 6,
});

/** A standard normal from two stable hashes (Box-Muller). */
function gaussian(seed: number, ...key: Array<string | number>): number {
  const u = Math.max(unitHash(seed, 'g1', ...key), 1e-12);
  const v = unitHash(seed, 'g2', ...key);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function dailyKnot(seed: number, category: string, handle: string, day: number, noise: RankNoise): number {
  const spike = unitHash(seed, 'spike', category, handle, day) < noise.spikeChance;
  return gaussian(seed, 'day', category, handle, day) * (spike ? noise.spikeSd : noise.dailySd);
}

/** How far an app's score wanders from its place at a tick: daily knots, smoothly joined, plus jitter. */
export function wobble(
  seed: number,
  category: string,
  handle: string,
  tick: number,
  noise: RankNoise,
): number {
  const day = Math.floor(tick / TICKS_PER_DAY);
  const f = (tick - day * TICKS_PER_DAY) / TICKS_PER_DAY;
  const k0 = dailyKnot(seed, category, handle, day, noise);
  const k1 = dailyKnot(seed, category, handle, day + 1, noise);
  const s = f * f * (3 - 2 * f);
  return k0 + (k1 - k0) * s + gaussian(seed, 'tick', category, handle, tick) * noise.tickSd;
}

/** Whether a marketplace-wide reshuffle happens at the start of `day` (day 0 never: the start is calm). */
export function isReshuffleDay(seed: number, day: number, noise: RankNoise): boolean {
  return day > 0 && unitHash(seed, 'reshuffle', day) < noise.reshufflePerDay;
}

/** The day of the last reshuffle at or before `tick`, or -1. */
export function lastReshuffleDay(seed: number, tick: number, noise: RankNoise): number {
  for (let day = Math.floor(tick / TICKS_PER_DAY); day > 0; day--) {
    if (isReshuffleDay(seed, day, noise)) return day;
  }
  return -1;
}

/** Where the last reshuffle put an app, relative to its place: a new offset each reshuffle, not a sum. */
export function reshuffleOffset(
  seed: number,
  category: string,
  handle: string,
  day: number,
  noise: RankNoise,
): number {
  return day < 0 ? 0 : gaussian(seed, 'reshuffled', category, handle, day) * noise.reshuffleSd;
}

// ---------------------------------------------------------------------------------------------------------
// The script

/** Events that change the market at a tick. Listing events change what the app detail answers. */
export type MarketEvent =
  /** A sustained move: from `at` on, the app's score is `places` worse (negative: better). */
  | { kind: 'rank'; at: number; handle: string; places: number }
  /** A new app listed in `category` at `at`, climbing from `fromRank` to `toRank` over `overTicks`. */
  | {
      kind: 'enter';
      at: number;
      handle: string;
      category: string;
      fromRank: number;
      toRank: number;
      overTicks: number;
      title?: string;
    }
  /** An app put in `category` at `rank` (its steady place) from the start: for demos and tests. */
  | { kind: 'place'; handle: string; category: string; rank: number }
  /** A plan's price set (a cut or a raise); a plan not listed yet is added. */
  | { kind: 'price'; at: number; handle: string; plan: string; price: string }
  | { kind: 'remove-plan'; at: number; handle: string; plan: string }
  | { kind: 'listing'; at: number; handle: string; title?: string; description?: string }
  | { kind: 'badge'; at: number; handle: string; builtFor: boolean };

export const MARKET_EVENT_KINDS = [
  'rank',
  'enter',
  'place',
  'price',
  'remove-plan',
  'listing',
  'badge',
] as const;

/** The score of an entrant at `tick`: linear from its first rank to its target. */
export function entrantScore(event: Extract<MarketEvent, { kind: 'enter' }>, tick: number): number {
  const progress = event.overTicks <= 0 ? 1 : Math.min(1, Math.max(0, (tick - event.at) / event.overTicks));
  return event.fromRank - 1 + (event.toRank - event.fromRank) * progress - 0.5;
}

// ---------------------------------------------------------------------------------------------------------
// Sponsored slots

/** Ads on a page: two or three on page 1, one on later pages, changing daily. */
export function sponsoredCount(seed: number, category: string, page: number, day: number): number {
  if (page === 1) return unitHash(seed, 'ads', category, day) < 0.5 ? 2 : 3;
  return 1;
}

/**
 * Which member holds an ad slot on a day: mostly apps from the lower half (the ones that buy ads), and
 * for several days running (campaigns), so a slot changing hands is news.
 */
export function sponsorIndex(
  seed: number,
  category: string,
  slot: number,
  day: number,
  members: number,
): number {
  const campaign = Math.floor((day + Math.floor(unitHash(seed, 'campaign-phase', category, slot) * 5)) / 5);
  const r = unitHash(seed, 'sponsor', category, slot, campaign);
  return Math.min(members - 1, Math.floor(members * (0.25 + 0.75 * r)));
}
