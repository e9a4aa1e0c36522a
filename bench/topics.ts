/**
 * The topic statistics on simulated months (seeded): how quiet the topic-spike rule is on noise, how
 * often it catches injected waves by the poll that completes them, the trend rule's false-alarm rate
 * and power, and the throughput of `topicsOf`.
 *
 *   npx tsx bench/topics.ts [--apps 100] [--months 3] [--seed 1] [--waves 3]
 *
 * Each app gets its own rate of low reviews (log-uniform, 0.1 to 10 a day) and its own mix of
 * complaints, written as text (bench/topics-world.ts) so that the real matcher and phrase extraction
 * run. Polls every 15 minutes; a poll that brought new low reviews runs `detectSpikes` on the app's
 * low reviews of the last 24 h against the 28 days before (recomputed once a day, as a caller caching
 * it would). Goals (issue 24): on noise at most 1 false spike per app per month; waves of >= 5 reviews
 * about one thing within a day caught by the poll that completes them at least 90% of the time.
 */
import { parseArgs } from 'node:util';
import { Rng } from '../src/simulator/random.js';
import { BUILT_IN_TAXONOMY, topicsOf, topicTrend } from '../src/topics/index.js';
import { round, writeResult } from './support.js';
import {
  type App,
  DAY,
  type Fired,
  makeApps,
  noiseOf,
  pollSpikes,
  type SimReview,
  waveOf,
} from './topics-world.js';

const { values: args } = parseArgs({
  options: {
    apps: { type: 'string', default: '100' },
    months: { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
    waves: { type: 'string', default: '3' },
  },
});
const APPS = Number(args.apps);
const MONTHS = Number(args.months);
const SEED = Number(args.seed);
const WAVES = Number(args.waves);
const WARM_UP_DAYS = 29;
const DAYS = WARM_UP_DAYS + MONTHS * 30;
const POLL = 15 * 60_000;
const START = Date.UTC(2026, 0, 1);

interface WaveResult {
  rate: number;
  caught: boolean;
  caughtWithinDay: boolean;
}

/** Was each wave caught by the poll that completed its fifth review (or within the day after)? */
function judgeWaves(reviews: readonly SimReview[], fired: readonly Fired[], app: App): WaveResult[] {
  const waves = new Map<number, SimReview[]>();
  for (const r of reviews) if (r.wave !== undefined) waves.set(r.wave, [...(waves.get(r.wave) ?? []), r]);
  return [...waves.values()].map((wave) => {
    const ids = new Set(wave.map((r) => r.id));
    const fifth = (wave[4] as SimReview).at.getTime();
    const completing = Math.ceil((fifth - START) / POLL) * POLL + START;
    const hits = fired.filter((f) => f.spike.reviewIds.filter((id) => ids.has(id)).length >= 3);
    const start = (wave[0] as SimReview).at.getTime();
    return {
      rate: app.rate,
      caught: hits.some((f) => f.at >= start && f.at <= completing),
      caughtWithinDay: hits.some((f) => f.at >= start && f.at <= completing + DAY),
    };
  });
}

function spikeBench(apps: readonly App[]) {
  const noiseRng = new Rng(SEED * 7 + 1);
  let falseSpikes = 0;
  const falseByKind = { topic: 0, phrase: 0 };
  const examples: string[] = [];
  const waveResults: WaveResult[] = [];
  let falseInWaves = 0;
  for (const app of apps) {
    const noise = noiseOf(noiseRng, app, START, DAYS);
    const fired = pollSpikes(noise, START, DAYS, WARM_UP_DAYS);
    falseSpikes += fired.length;
    for (const f of fired) {
      falseByKind[f.spike.kind] += 1;
      if (examples.length < 5)
        examples.push(
          `${app.handle} (${round(app.rate, 1)}/day): ${f.spike.key} ${f.spike.count} vs ${f.spike.expected}`,
        );
    }
    const waveRng = new Rng(SEED * 7919 + app.handle.length + waveResults.length);
    const waves: SimReview[] = [];
    for (let w = 0; w < WAVES; w += 1) {
      const at =
        START + (WARM_UP_DAYS + 1 + (w + waveRng.next() * 0.6) * ((DAYS - WARM_UP_DAYS - 2) / WAVES)) * DAY;
      waves.push(...waveOf(waveRng, app, at, waveRng.int(5, 8), 2 + waveRng.next() * 20, w));
    }
    const withWaves = [...noise, ...waves];
    const firedWaves = pollSpikes(withWaves, START, DAYS, WARM_UP_DAYS);
    waveResults.push(...judgeWaves(withWaves, firedWaves, app));
    const waveIds = new Set(waves.map((r) => r.id));
    falseInWaves += firedWaves.filter((f) => !f.spike.reviewIds.some((id) => waveIds.has(id))).length;
  }
  const appMonths = apps.length * MONTHS;
  const caught = waveResults.filter((w) => w.caught).length;
  const buckets = [
    [0, 1],
    [1, 3],
    [3, 10.1],
  ].map(([lo, hi]) => {
    const inBucket = waveResults.filter((w) => w.rate >= (lo as number) && w.rate < (hi as number));
    return {
      lowReviewsPerDay: `${lo}-${hi === 10.1 ? 10 : hi}`,
      waves: inBucket.length,
      caught: round(inBucket.filter((w) => w.caught).length / Math.max(1, inBucket.length), 3),
    };
  });
  return {
    falseSpikesPerAppMonth: round(falseSpikes / appMonths, 3),
    falseSpikes,
    falseByKind,
    examples,
    waves: waveResults.length,
    caughtByCompletingPoll: round(caught / waveResults.length, 3),
    caughtWithinDay: round(waveResults.filter((w) => w.caughtWithinDay).length / waveResults.length, 3),
    byRate: buckets,
    otherSpikesInWaveRunPerAppMonth: round(falseInWaves / appMonths, 3),
  };
}

function poisson(rng: Rng, mean: number): number {
  if (mean > 60) return Math.max(0, Math.round(mean + Math.sqrt(mean) * gaussian(rng)));
  let k = 0;
  let p = Math.exp(-mean);
  let s = p;
  const u = rng.next();
  while (u > s) {
    k += 1;
    p *= mean / k;
    s += p;
  }
  return k;
}

function gaussian(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

function binomial(rng: Rng, n: number, p: number): number {
  let k = 0;
  for (let i = 0; i < n; i += 1) if (rng.next() < p) k += 1;
  return k;
}

/** Stationary weeks (false alarms) and weeks whose share doubled or tripled (power). */
function trendBench(cases: number) {
  const rng = new Rng(SEED * 31 + 5);
  const said = { flat: 0, up: 0, down: 0 };
  let doubled = 0;
  let tripled = 0;
  for (let i = 0; i < cases; i += 1) {
    const mean = 5 * 100 ** rng.next();
    const p = 0.01 + rng.next() * 0.39;
    const week = (share: number) => {
      const appReviews = poisson(rng, mean);
      return { appReviews, topicReviews: binomial(rng, appReviews, share) };
    };
    const history = Array.from({ length: 8 }, () => week(p));
    said[topicTrend(week(p), history).direction] += 1;
    if (topicTrend(week(Math.min(0.95, 2 * p)), history).direction === 'up') doubled += 1;
    if (topicTrend(week(Math.min(0.95, 3 * p)), history).direction === 'up') tripled += 1;
  }
  const falseRate = (said.up + said.down) / cases;
  return {
    cases,
    falseAlarmRate: round(falseRate, 4),
    falseUp: said.up,
    falseDown: said.down,
    // Ten topics a week, about 4.35 weeks a month.
    falseAlarmsPerAppMonth: round(falseRate * 10 * 4.35, 3),
    doubledSaidUp: round(doubled / cases, 3),
    tripledSaidUp: round(tripled / cases, 3),
  };
}

function throughput(texts: readonly string[]): number {
  let done = 0;
  const started = performance.now();
  while (performance.now() - started < 1_000) {
    for (const text of texts) topicsOf(text, BUILT_IN_TAXONOMY);
    done += texts.length;
  }
  return Math.round(done / ((performance.now() - started) / 1_000));
}

const apps = makeApps(new Rng(SEED), APPS, 0.1, 10);
const startedAt = performance.now();
const spikes = spikeBench(apps);
const trends = trendBench(20_000);
const texts = noiseOf(new Rng(SEED + 99), { handle: 't', rate: 50, mix: apps[0]?.mix ?? {} }, START, 20).map(
  (r) => r.content,
);
const result = {
  seed: SEED,
  apps: APPS,
  months: MONTHS,
  spikes,
  trends,
  topicsOfPerSecond: throughput(texts),
  seconds: round((performance.now() - startedAt) / 1_000, 1),
};
console.log(JSON.stringify(result, null, 2));
console.log(`written to ${writeResult('topics', Date.now(), JSON.stringify(result, null, 2))}`);
