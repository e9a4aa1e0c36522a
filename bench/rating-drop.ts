/**
 * Rating-drop messages per scenario: how many a real fall gets, how many come with no fall at all (a
 * hover, a bounce), and whether every real fall is still said (issue 18, point 8; issue 23).
 *
 *   npx tsx bench/rating-drop.ts [--seeds 200] [--json]
 *
 * Each scenario is a series of polls of one app's rating summary (test/fixtures/rating-month.ts, and the
 * demo's patterns built below): reviews arriving at random (seeded) from a mix, plus scripted real falls.
 * The rules are the product's own: `evaluateRating`, then, where this checkout has it, `dropDelivery`
 * (src/alerts/drop-delivery.ts), which says a drop as a message of its own, as a line on the poll's review
 * alerts, or not at all. A checkout without it (main before issue 23) sent every drop as a message: run
 * this same file there (copied in) for the "before" figures. Pure computation: no clock, no I/O.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type DropState, evaluateRating, type StarCounts } from '../src/alerts/rating-drop.js';
import { Rng } from '../src/simulator/random.js';
import { evidenceFrom, HOVERING_APP, type MonthPoll, monthOfPolls } from '../test/fixtures/rating-month.js';

const { values } = parseArgs({
  options: { seeds: { type: 'string', default: '200' }, json: { type: 'boolean', default: false } },
});
const SEEDS = Number(values.seeds);
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);
/** The defaults; `recoveryHoldMs` is ignored by a checkout that has no such rule. */
const RULE = { minDrop: 0.05, displayed: true, recovery: 0.05, recoveryHoldMs: DAY, maxRating: 2 };

type Delivery = typeof import('../src/alerts/drop-delivery.js');
const delivery: Delivery | undefined = await import('../src/alerts/drop-delivery.js').catch(() => undefined);

interface Said {
  at: number;
  how: 'message' | 'line';
}

/** The drops of a series of polls as this checkout says them. */
function saidOver(polls: readonly MonthPoll[]): Said[] {
  let state: DropState | undefined;
  const said: Said[] = [];
  polls.forEach((poll, i) => {
    const result = evaluateRating(state, poll, RULE, evidenceFrom(polls.slice(0, i + 1)));
    let next = result.next;
    const drop = result.drop;
    if (drop && !delivery) said.push({ at: poll.at.getTime(), how: 'message' });
    if (drop && delivery && next) {
      const alerted = poll.added.filter((r) => r <= RULE.maxRating);
      const share = delivery.alertedShare(drop.to, drop.from.average - drop.to.average, {
        added: alerted,
        rerated: [],
      });
      const how = delivery.dropDelivery(drop, {
        explainedShare: Math.max(share, drop.explanation.lowReviewsShare),
        reviewsReachItsChannels: alerted.length > 0,
        competitor: false,
        competitorsImmediate: false,
      });
      if (how.message) said.push({ at: poll.at.getTime(), how: 'message' });
      else if (how.fold) said.push({ at: poll.at.getTime(), how: 'line' });
      next = delivery.stateAfter(next, drop, how);
    }
    if (next) state = next;
  });
  return said;
}

interface Scenario {
  name: string;
  /** What really fell, in words. */
  falls: string;
  polls: (seed: number) => MonthPoll[];
  /** Each real fall's window (ms): what is said inside it is said about that fall. */
  windows: (polls: readonly MonthPoll[]) => Array<[number, number]>;
}

/** The day of a scripted fall, and the day after (a fall spread over the day is said by its end). */
const dayWindow = (day: number): Array<[number, number]> => [[START + day * DAY, START + (day + 2) * DAY]];

/** A poll of `stars` at `at`, with the reviews that arrived since the last one. */
function pollOf(at: number, stars: readonly number[], added: number[]): MonthPoll {
  const count = stars.reduce((a, b) => a + b, 0);
  const sum = stars.reduce((a, n, i) => a + n * (i + 1), 0);
  return { at: new Date(at), stars: [...stars] as unknown as StarCounts, average: sum / count, count, added };
}

/**
 * The demo's competitor: a small app (20 ratings, 2.55) whose reviews come as a 1-star, then a 4-star, in
 * turn, one every one to three hours (seeded), for three days: its average bounces by more than
 * `recovery` at first, by less as the ratings add up.
 */
function bouncingByReviews(seed: number): MonthPoll[] {
  const rng = new Rng(seed);
  const stars = [9, 2, 2, 3, 4];
  const polls = [pollOf(START, stars, [])];
  let at = START;
  for (let i = 0; at < START + 3 * DAY; i++) {
    at += (1 + Math.floor(rng.next() * 3)) * 3_600_000;
    const rating = i % 2 === 0 ? 1 : 4;
    stars[rating - 1] = (stars[rating - 1] ?? 0) + 1;
    polls.push(pollOf(at, stars, [rating]));
  }
  return polls;
}

/**
 * A fall no review explains (3.93 → 3.82: ratings without text), then the summary bouncing between the
 * two for three days, back at the level before the fall for one or two polls at a time, as the issue saw.
 */
function bouncingSummary(seed: number): MonthPoll[] {
  const rng = new Rng(seed);
  const high = [3, 1, 2, 5, 4];
  const low = [4, 1, 2, 5, 4];
  const polls = [pollOf(START, high, [])];
  let at = START + 3_600_000;
  polls.push(pollOf(at, low, []));
  let up = false;
  while (at < START + 3 * DAY) {
    at += 15 * 60_000 * (1 + Math.floor(rng.next() * 8));
    up = !up;
    polls.push(pollOf(at, up ? high : low, []));
  }
  return polls;
}

const scenarios: Scenario[] = [
  {
    name: 'hovering at 4.35',
    falls: 'none',
    polls: (seed) => monthOfPolls({ ...HOVERING_APP, seed }),
    windows: () => [],
  },
  {
    name: 'hovering, from a displayed 4.4',
    falls: 'the first dip to 4.3, whenever it comes',
    polls: (seed) => monthOfPolls({ ...HOVERING_APP, seed, start: [62, 30, 50, 212, 646] }),
    // From the first poll the listing shows 4.3, for a day; none in a month that never dips.
    windows: (polls) => {
      const dip = polls.find((p) => p.average < 4.35);
      return dip ? [[dip.at.getTime(), dip.at.getTime() + DAY]] : [];
    },
  },
  {
    name: 'hovering, 25 one-star reviews in one poll on day 12',
    falls: '1 (about −0.08)',
    polls: (seed) => monthOfPolls({ ...HOVERING_APP, seed, falls: [{ day: 12, ones: 25, at: 'once' }] }),
    windows: () => dayWindow(12),
  },
  {
    name: 'hovering, 25 one-star reviews over day 12',
    falls: '1 bad day (about −0.08)',
    polls: (seed) => monthOfPolls({ ...HOVERING_APP, seed, falls: [{ day: 12, ones: 25 }] }),
    windows: () => dayWindow(12),
  },
  {
    name: 'hovering, 60 one-star reviews over day 12',
    falls: '1 bad day (about −0.19)',
    polls: (seed) => monthOfPolls({ ...HOVERING_APP, seed, falls: [{ day: 12, ones: 60 }] }),
    windows: () => dayWindow(12),
  },
  {
    name: 'hovering, 400 reviews, 5 a day',
    falls: 'none (drifts about ±0.04 a month)',
    polls: (seed) => monthOfPolls({ ...HOVERING_APP, seed, start: [25, 12, 20, 88, 255], reviewsPerDay: 5 }),
    windows: () => [],
  },
  {
    name: 'hovering, 60 reviews, 5 a day',
    falls: 'none (but one one-star review is −0.055)',
    polls: (seed) => monthOfPolls({ ...HOVERING_APP, seed, start: [4, 1, 4, 13, 38], reviewsPerDay: 5 }),
    windows: () => [],
  },
  {
    name: 'small app (24 ratings, 4.58), five one-star reviews one by one on day 10',
    falls: '1 (4.58 → 3.9, review by review)',
    polls: (seed) =>
      monthOfPolls({
        ...HOVERING_APP,
        seed,
        start: [1, 0, 1, 4, 18],
        mix: [0, 0, 0, 0.3, 0.7],
        reviewsPerDay: 1,
        falls: [{ day: 10, ones: 5 }],
      }),
    windows: () => dayWindow(10),
  },
  {
    name: 'small app bouncing on 2.5/2.6 (1★ and 4★ in turn, 3 days)',
    falls: 'none',
    polls: bouncingByReviews,
    windows: () => [],
  },
  {
    name: 'a fall 3.93 → 3.82 no review explains, then bouncing between the two (3 days)',
    falls: '1 (the first)',
    polls: bouncingSummary,
    windows: () => [[START, START + 2 * 3_600_000]],
  },
  {
    name: 'big app (5,000 ratings, 4.68), 400 one-star reviews over day 12',
    falls: '1 (4.68 → 4.42, under 4.5)',
    polls: (seed) =>
      monthOfPolls({
        ...HOVERING_APP,
        seed,
        start: [150, 75, 125, 550, 4100],
        mix: [0.03, 0.015, 0.025, 0.11, 0.82],
        reviewsPerDay: 20,
        falls: [{ day: 12, ones: 400 }],
      }),
    windows: () => dayWindow(12),
  },
];

interface Row {
  scenario: string;
  realFalls: string;
  /** Messages per seed, mean and max. */
  messages: { mean: number; max: number };
  /** The most messages any one real fall got, over the seeds. */
  perFallMax: number;
  /** Messages outside every real fall's window (a hover, a bounce), mean and max. */
  noFall: { mean: number; max: number };
  /** Lines on review alerts per seed, mean. */
  lines: number;
  /** Real falls said (a message or a line inside the window), over all seeds' real falls. */
  fallsSaid: string;
}

const rows: Row[] = scenarios.map((scenario) => {
  const messages: number[] = [];
  const noFall: number[] = [];
  let lines = 0;
  let perFallMax = 0;
  let falls = 0;
  let fallsSaid = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const polls = scenario.polls(seed);
    const said = saidOver(polls);
    const windows = scenario.windows(polls);
    const inside = (s: Said, [from, to]: [number, number]) => s.at >= from && s.at < to;
    messages.push(said.filter((s) => s.how === 'message').length);
    noFall.push(said.filter((s) => s.how === 'message' && !windows.some((w) => inside(s, w))).length);
    lines += said.filter((s) => s.how === 'line').length;
    for (const w of windows) {
      falls++;
      if (said.some((s) => inside(s, w))) fallsSaid++;
      perFallMax = Math.max(perFallMax, said.filter((s) => s.how === 'message' && inside(s, w)).length);
    }
  }
  return {
    scenario: scenario.name,
    realFalls: scenario.falls,
    messages: stats(messages),
    perFallMax,
    noFall: stats(noFall),
    lines: lines / SEEDS,
    fallsSaid: falls === 0 ? '–' : `${fallsSaid}/${falls}`,
  };
});

function stats(counts: number[]): { mean: number; max: number } {
  return { mean: counts.reduce((a, b) => a + b, 0) / counts.length, max: Math.max(...counts) };
}

const rules = delivery ? 'this checkout (dropDelivery)' : 'this checkout (every drop a message)';
const result = { seeds: SEEDS, rule: RULE, rules, rows };
if (values.json) {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} else {
  process.stdout.write(
    `Rating-drop messages, ${rules}; ${SEEDS} seeds; minDrop ${RULE.minDrop}, recovery ${RULE.recovery}\n\n`,
  );
  process.stdout.write(
    '| scenario | real falls | messages: mean (max) | most for one fall | with no fall: mean (max) | lines | falls said |\n|---|---|--:|--:|--:|--:|--:|\n',
  );
  for (const r of rows) {
    process.stdout.write(
      `| ${r.scenario} | ${r.realFalls} | ${r.messages.mean.toFixed(1)} (${r.messages.max}) | ${r.perFallMax} | ${r.noFall.mean.toFixed(1)} (${r.noFall.max}) | ${r.lines.toFixed(1)} | ${r.fallsSaid} |\n`,
    );
  }
}
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/rating-drop.json', JSON.stringify(result, null, 2));
