/**
 * Simulated low reviews for bench/topics.ts: apps with their own rate of low reviews and their own mix
 * of complaints, written from snippets merchants write (so the real `topicsOf` and phrase extraction
 * run on them), and injected waves of five or more reviews about one thing within a day.
 */
import type { Rng } from '../src/simulator/random.js';
import {
  BUILT_IN_TAXONOMY,
  detectSpikes,
  type FiredSpike,
  type SpikeBaseline,
  type SpikeReview,
  spikeBaseline,
  type TopicSpike,
  topicsOf,
} from '../src/topics/index.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
const POLL = 15 * 60_000;

/** What each topic's complaints sound like; several phrasings each, so no phrase is a topic's only voice. */
export const SNIPPETS: Readonly<Record<string, readonly string[]>> = {
  billing: [
    'Charged twice this month.',
    'Way too expensive for what it does.',
    'Still waiting on my refund.',
    'The price went up again.',
    'Billed after the trial without warning.',
  ],
  bugs: [
    'The widget crashes on save.',
    'Keeps throwing an error at checkout.',
    'Buttons do nothing half the time.',
    'It stopped working last week.',
    'Glitchy on mobile.',
  ],
  performance: [
    'Slows my store down badly.',
    'Takes forever to load.',
    'The admin is so slow.',
    'Page speed dropped since installing.',
  ],
  support: [
    'Support never replied.',
    'Emailed them twice, no answer.',
    'The support team was rude.',
    'Waited four days for a response.',
  ],
  setup: [
    'Setup took me hours.',
    'Installation instructions are unclear.',
    'Needed a developer to set it up.',
  ],
  integrations: [
    'Does not work with my theme.',
    'Conflicts with another app.',
    'The Mailchimp integration is flaky.',
    'Not compatible with Dawn.',
  ],
  features: [
    'Missing basic features.',
    'Wish it had more options.',
    'Needs an option to hide the badge.',
    'Very limited customization.',
  ],
  'data-loss': [
    'Lost all my settings after the update.',
    'It deleted my products.',
    'Our reviews were wiped.',
  ],
  uninstall: ['Uninstalling today.', 'Removed it after a week.', 'Switched to a competitor.'],
  usability: ['The dashboard is confusing.', 'Clunky interface.', 'Hard to find anything in the settings.'],
};

const FILLER = [
  'Not happy.',
  'Disappointed.',
  'Expected better.',
  'Two stars for now.',
  'Was fine at first.',
  'Avoid.',
  'Meh.',
  'Really frustrating.',
  '',
];

/** Things no topic names, that a wave may be about: the emerging-phrase kind. */
export const NOVEL = [
  ['Klaviyo sync is broken since Monday.', 'Nothing reaches Klaviyo anymore.', 'Klaviyo events stopped.'],
  [
    'The 2.3 update ruined it.',
    'Since the 2.3 update nothing loads right.',
    'Roll back the 2.3 update please.',
  ],
  ['Dark mode please.', 'No dark mode in this day and age?', 'Add a dark mode, the admin is blinding.'],
  ['Gift wrap option vanished.', 'Where did gift wrap go?', 'Gift wrap is gone from checkout.'],
];

export interface App {
  handle: string;
  /** Low reviews a day. */
  rate: number;
  /** Each topic's chance of being in one of its low reviews. */
  mix: Record<string, number>;
}

export interface SimReview extends SpikeReview {
  app: string;
  /** Part of an injected wave. */
  wave?: number;
}

export function makeApps(rng: Rng, count: number, minRate: number, maxRate: number): App[] {
  const names = Object.keys(SNIPPETS);
  return Array.from({ length: count }, (_, i) => {
    const rate = minRate * (maxRate / minRate) ** rng.next();
    // A few topics dominate each app: weights from an exponential, scaled so ~1.2 topics a review.
    const raw = names.map(() => (-Math.log(1 - rng.next())) ** 2);
    const sum = raw.reduce((s, w) => s + w, 0);
    const mix = Object.fromEntries(names.map((n, j) => [n, Math.min(0.9, (1.2 * (raw[j] as number)) / sum)]));
    return { handle: `app-${i}`, rate, mix };
  });
}

function pick<T>(rng: Rng, list: readonly T[]): T {
  return list[rng.int(0, list.length - 1)] as T;
}

let nextId = 0;

export function reviewOf(app: string, at: number, sentences: string[], wave?: number): SimReview {
  const content = sentences.filter((s) => s !== '').join(' ') || 'Bad.';
  nextId += 1;
  return {
    id: `s${nextId}`,
    app,
    reviewer: `m${nextId}`,
    content,
    at: new Date(at),
    topics: topicsOf(content, BUILT_IN_TAXONOMY).map((t) => t.name),
    ...(wave === undefined ? {} : { wave }),
  };
}

/** One app's background low reviews over `days`: a Poisson process, each with its topics' snippets. */
export function noiseOf(rng: Rng, app: App, start: number, days: number): SimReview[] {
  const reviews: SimReview[] = [];
  let at = start;
  for (;;) {
    at += (-Math.log(1 - rng.next()) / app.rate) * DAY;
    if (at >= start + days * DAY) return reviews;
    const sentences: string[] = [];
    for (const [topic, chance] of Object.entries(app.mix)) {
      if (rng.chance(chance)) sentences.push(pick(rng, SNIPPETS[topic] as readonly string[]));
    }
    sentences.push(pick(rng, FILLER));
    reviews.push(reviewOf(app.handle, at, sentences));
  }
}

/** A wave: `size` reviews about one topic or one novel thing, by different merchants, within `spanHours`. */
export function waveOf(
  rng: Rng,
  app: App,
  at: number,
  size: number,
  spanHours: number,
  id: number,
): SimReview[] {
  const novel = rng.chance(0.5) ? pick(rng, NOVEL) : undefined;
  const topic = pick(rng, Object.keys(SNIPPETS));
  return Array.from({ length: size }, () => {
    const when = at + rng.next() * spanHours * HOUR;
    const line = novel ? pick(rng, novel) : pick(rng, SNIPPETS[topic] as readonly string[]);
    return reviewOf(app.handle, when, [line, pick(rng, FILLER)], id);
  }).sort((a, b) => a.at.getTime() - b.at.getTime());
}

export interface Fired {
  at: number;
  spike: TopicSpike;
}

/**
 * Every 15-minute poll of one app from `start` for `days`: a poll that brought new low reviews runs
 * `detectSpikes` on the last 24 h against the 28 days before (recomputed once a day, as a caller
 * caching it would), from `warmUpDays` on. Returns the spikes it fired and when.
 */
export function pollSpikes(
  reviews: readonly SimReview[],
  start: number,
  days: number,
  warmUpDays: number,
): Fired[] {
  const sorted = [...reviews].sort((a, b) => a.at.getTime() - b.at.getTime());
  const fired: FiredSpike[] = [];
  const out: Fired[] = [];
  const baselines = new Map<number, SpikeBaseline>();
  let next = 0;
  for (let t = start + POLL; t <= start + days * DAY; t += POLL) {
    let arrived = 0;
    while (next < sorted.length && (sorted[next] as SimReview).at.getTime() <= t) {
      next += 1;
      arrived += 1;
    }
    if (arrived === 0 || t < start + warmUpDays * DAY) continue;
    const day = Math.floor((t - start) / DAY);
    let baseline = baselines.get(day);
    if (baseline === undefined) {
      const to = start + day * DAY - DAY;
      const from = to - 28 * DAY;
      baseline = spikeBaseline(
        sorted.filter((r) => r.at.getTime() >= from && r.at.getTime() < to),
        28,
      );
      baselines.set(day, baseline);
    }
    const recent = sorted.slice(0, next).filter((r) => r.at.getTime() > t - DAY);
    const spikes = detectSpikes({ app: 'x', now: new Date(t), recent, baseline, fired });
    for (const spike of spikes) {
      fired.push({ key: spike.key, firedAt: new Date(t) });
      out.push({ at: t, spike });
    }
  }
  return out;
}
