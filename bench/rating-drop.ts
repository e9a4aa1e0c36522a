/**
 * Rating-drop alerts per simulated month, before and after the hysteresis (issue 18, point 8).
 *
 *   npx tsx bench/rating-drop.ts [--seeds 200] [--json]
 *
 * Each month is test/fixtures/rating-month.ts: an app whose reviews arrive at random (seeded) from a mix
 * averaging 4.35, the boundary between a displayed 4.3 and 4.4, plus scripted bad days. Both rule sets
 * run over the same polls in the same run: `previousRule` below is the rule as it was before, kept here
 * for comparison only; the current one is the product's `evaluateRating`. Pure computation: no clock,
 * no I/O, the same figures on every machine.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { displayed } from '../src/alerts/rating-drop.js';
import {
  dropsOverMonth,
  HOVERING_APP,
  type MonthPoll,
  type MonthScript,
  monthOfPolls,
} from '../test/fixtures/rating-month.js';

const { values } = parseArgs({
  options: { seeds: { type: 'string', default: '200' }, json: { type: 'boolean', default: false } },
});
const SEEDS = Number(values.seeds);
const RULE = { minDrop: 0.05, displayed: true, recovery: 0.05, recoveryHoldMs: 86_400_000, maxRating: 2 };
const EPSILON = 1e-9;

/**
 * The rule before the hysteresis (git history: src/alerts/rating-drop.ts before issue 18): the level
 * follows every rise, an alert moves it to the rating alerted on, and a fall of minDrop or of the
 * displayed rating from it alerts.
 */
function previousRule(polls: readonly MonthPoll[]): number {
  let level: number | undefined;
  let alerts = 0;
  for (const { average } of polls) {
    if (level === undefined || average > level + EPSILON) {
      level = average;
      continue;
    }
    const fell = level - average;
    const displayFell = Number(displayed(average)) < Number(displayed(level));
    if (fell + EPSILON < RULE.minDrop && !displayFell) continue;
    alerts++;
    level = average;
  }
  return alerts;
}

interface Scenario {
  name: string;
  script: Omit<MonthScript, 'seed'>;
  /** The real falls in it: the scripted bad days, and what each must alert at most. */
  falls: string;
}

const scenarios: Scenario[] = [
  { name: 'hovering at 4.35', script: HOVERING_APP, falls: 'none' },
  {
    name: 'hovering, from a displayed 4.4',
    script: { ...HOVERING_APP, start: [62, 30, 50, 212, 646] },
    falls: 'the first dip to 4.3',
  },
  {
    name: 'hovering, 25 one-star reviews in one poll on day 12',
    script: { ...HOVERING_APP, falls: [{ day: 12, ones: 25, at: 'once' }] },
    falls: '1 (about −0.08)',
  },
  {
    name: 'hovering, 25 one-star reviews over day 12',
    script: { ...HOVERING_APP, falls: [{ day: 12, ones: 25 }] },
    falls: '1 bad day (about −0.08)',
  },
  {
    name: 'hovering, 60 one-star reviews over day 12',
    script: { ...HOVERING_APP, falls: [{ day: 12, ones: 60 }] },
    falls: '1 bad day (about −0.19, minDrop 3 times over)',
  },
  {
    name: 'hovering, 400 reviews, 5 a day',
    script: { ...HOVERING_APP, start: [25, 12, 20, 88, 255], reviewsPerDay: 5 },
    falls: 'none (the average drifts by about ±0.04 a month)',
  },
  {
    name: 'hovering, 60 reviews, 5 a day (one one-star review is −0.055)',
    script: { ...HOVERING_APP, start: [4, 1, 4, 13, 38], reviewsPerDay: 5 },
    falls: 'none (but each one-star review is more than minDrop)',
  },
];

interface Row {
  scenario: string;
  realFalls: string;
  before: { mean: number; max: number };
  after: { mean: number; max: number };
}

const rows: Row[] = scenarios.map((scenario) => {
  const before: number[] = [];
  const after: number[] = [];
  for (let seed = 1; seed <= SEEDS; seed++) {
    const polls = monthOfPolls({ ...scenario.script, seed });
    before.push(previousRule(polls));
    after.push(dropsOverMonth(polls, RULE).length);
  }
  return { scenario: scenario.name, realFalls: scenario.falls, before: stats(before), after: stats(after) };
});

function stats(counts: number[]): { mean: number; max: number } {
  return { mean: counts.reduce((a, b) => a + b, 0) / counts.length, max: Math.max(...counts) };
}

if (values.json) {
  process.stdout.write(`${JSON.stringify({ seeds: SEEDS, rule: RULE, rows }, null, 2)}\n`);
} else {
  process.stdout.write(
    `Rating-drop alerts per simulated month (30 days, polls every 15 min, ${SEEDS} seeds; minDrop ${RULE.minDrop}, recovery ${RULE.recovery})\n\n`,
  );
  process.stdout.write(
    '| scenario | real falls | before: mean (max) | after: mean (max) |\n|---|---|--:|--:|\n',
  );
  for (const r of rows) {
    process.stdout.write(
      `| ${r.scenario} | ${r.realFalls} | ${r.before.mean.toFixed(1)} (${r.before.max}) | ${r.after.mean.toFixed(1)} (${r.after.max}) |\n`,
    );
  }
}
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/rating-drop.json', JSON.stringify({ seeds: SEEDS, rule: RULE, rows }, null, 2));
