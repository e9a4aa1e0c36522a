/**
 * Adaptive poll scheduling on a virtual clock: the product's scheduling code (src/schedule/) over 10,000
 * simulated apps for 14 simulated days, against `fixed` and against the best any schedule could do.
 *
 *   npx tsx bench/schedule.ts [--apps 10000] [--days 14] [--seed 1] [--replan 3h] [--tolerance 0.2] [--full]
 *
 * --full adds a log-normal σ = 2 world, 10,000 apps with own apps and competitors mixed, more seeds for
 * the watch-list check, and the same runs re-planned hourly and without the tightening.
 *
 * Tables (Markdown) go to stdout, progress to stderr, everything as JSON to bench/results/.
 */
import { parseArgs } from 'node:util';
import { parseDuration } from '../src/config/duration.js';
import { configSchema } from '../src/config/schema.js';
import { DEFAULT_LOW_SHARE, DEFAULT_RELAX_RATIO, type ScheduleSettings } from '../src/schedule/index.js';
import { bounds, cycleGain } from './schedule-bounds.js';
import { type SimCosts, type SimResult, simulate } from './schedule-sim.js';
import {
  buildWorld,
  DAY,
  type Distribution,
  trueRates,
  type World,
  type WorldOptions,
} from './schedule-world.js';
import { writeResult } from './support.js';

const { values } = parseArgs({
  options: {
    apps: { type: 'string', default: '10000' },
    days: { type: 'string', default: '14' },
    seed: { type: 'string', default: '1' },
    replan: { type: 'string', default: '3h' },
    tolerance: { type: 'string', default: '0.2' },
    full: { type: 'boolean', default: false },
  },
});
const APPS = Number(values.apps);
const DAYS = Number(values.days);
const SEED = Number(values.seed);
const REPLAN = parseDuration(values.replan) ?? 3 * 3_600_000;
const TOLERANCE = Number(values.tolerance);
const FULL = values.full;
const began = performance.now();
const stamp = Date.now();

// The product's defaults, read from the config schema itself.
const defaults = configSchema.parse({ apps: [{ handle: 'bench-app' }] });
const base: Omit<ScheduleSettings, 'reservedPerDay' | 'policy'> = {
  everyMs: defaults.poll.every,
  minEveryMs: defaults.poll.minEvery,
  maxEveryMs: defaults.poll.maxEvery,
  dailyRequestBudget: null,
  relaxRatio: DEFAULT_RELAX_RATIO,
  lowShare: DEFAULT_LOW_SHARE,
};
const costs: SimCosts = {
  reconcilePagesPerDay: (defaults.poll.reconcilePages * DAY) / defaults.poll.reconcileEvery,
  baselinePages: defaults.poll.baselinePages,
};

const LOGNORMAL = (sigma: number): Distribution => ({
  kind: 'lognormal',
  median: 1.58,
  sigma,
  min: 0.05,
  max: 50,
});
/** Most apps a review a month or less (68%), about 0.6% of them dozens a day: a power law, α = 0.6. */
const MARKETPLACE: Distribution = { kind: 'pareto', min: 0.005, alpha: 0.6, max: 100 };

const worldOptions = (distribution: Distribution, extra: Partial<WorldOptions> = {}): WorldOptions => ({
  apps: APPS,
  days: DAYS,
  seed: SEED,
  distribution,
  own: APPS,
  weights: { own: 1, competitor: 1 },
  cycle: 0.5,
  burstShare: 0.01,
  addedShare: 0.02,
  historyDays: 360,
  lowShare: 0.15,
  ...extra,
});

const log = (text: string) => process.stderr.write(text);
const out: string[] = [];
const print = (line = '') => {
  out.push(line);
  process.stdout.write(`${line}\n`);
};
/** Prose wrapped as the pages keep it (about 110 characters a line), so the output pastes as it is. */
const printParagraph = (text: string) => {
  const lines: string[] = [];
  for (const word of text.split(' ')) {
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + word.length <= 110)
      lines[lines.length - 1] = `${last} ${word}`;
    else lines.push(word);
  }
  for (const line of lines) print(line);
};
const results: Record<string, unknown> = {
  options: { APPS, DAYS, SEED, REPLAN, TOLERANCE, FULL },
  defaults: base,
  costs,
};

function run(
  world: World,
  label: string,
  settings: Omit<ScheduleSettings, 'reservedPerDay'>,
  options: { replan?: number; trueRates?: boolean; capOwn?: boolean } = {},
) {
  log(`  ${label.padEnd(44)} `);
  const t0 = performance.now();
  const policy = {
    name: label,
    settings,
    replanEveryMs: options.replan ?? REPLAN,
    tolerance: TOLERANCE,
    trueRates: options.trueRates ?? false,
    capOwn: options.capOwn ?? false,
  };
  const result = simulate(world, policy, costs, (d) => log(d % 7 === 0 ? String(d) : '.'));
  log(` ${((performance.now() - t0) / 1000).toFixed(1)}s\n`);
  return result;
}

const f0 = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—');
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '—');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '—');
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const minutes = (n: number) => (n >= 120 ? `${(n / 60).toFixed(1)} h` : `${f1(n)} min`);

function describeWorld(name: string, world: World) {
  const rates = Array.from(world.apps, (a) => a.rate);
  const perDay = world.measured / world.options.days;
  printParagraph(
    `**${name}**: ${world.apps.length.toLocaleString('en-US')} apps, ${f0(perDay)} reviews a day in all; ` +
      `${((rates.filter((r) => r <= 1 / 30).length / rates.length) * 100).toFixed(0)}% of apps get a review a month or less, ` +
      `${rates.filter((r) => r >= 24).length} get 24 a day or more (the busiest ${f1(Math.max(...rates))} a day).`,
  );
  print();
}

function policyTable(rows: SimResult[], fixed: SimResult) {
  // The polls alone are in the bounds table that follows: ten columns would not fit a page's line.
  print('| policy | requests/day | vs fixed | tightened | mean delay | p95 | max | incident: mean | p95 |');
  print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const d = r.delays;
    print(
      `| ${r.name} | ${f0(r.perDay.total)} | ${ratio(r.perDay.total, fixed.perDay.total)} | ` +
        `${(r.tightenedShare * 100).toFixed(1)}% | ${minutes(d.all.mean)} | ${minutes(d.all.p95)} | ${minutes(d.all.max)} | ` +
        `${minutes(d.burst.mean)} | ${minutes(d.burst.p95)} |`,
    );
  }
  print();
}

/** One distribution, every app weighted alike: the policies against fixed and against the bounds. */
function distributionStudy(key: string, name: string, distribution: Distribution) {
  log(`${name}\n  building the world… `);
  // Every app watched from the start: the bounds assume each app's rate holds over the whole period.
  const world = buildWorld(worldOptions(distribution, { addedShare: 0 }));
  log(`${world.measured.toLocaleString('en-US')} reviews to find\n`);
  const rates = trueRates(world);
  const b = bounds(rates, base.minEveryMs, base.maxEveryMs);
  const fixed = run(world, 'fixed 15m', { ...base, policy: 'fixed' });
  const adaptive = run(world, 'adaptive', { ...base, policy: 'adaptive' });
  // Budgets the mean-optimal plan would need (reserved requests on top), and a tenth of fixed.
  const reserved = fixed.perDay.reconcile + fixed.perDay.baseline;
  const meanPolls = b.pollsForMean(fixed.delays.all.mean);
  const p95Polls = b.meanPlanPollsForP95(fixed.delays.all.p95);
  const budgets: Array<[string, number]> = [
    [`budget ${f0(meanPolls + reserved)} (mean-matched)`, meanPolls + reserved],
    [`budget ${f0(p95Polls + reserved)} (p95-matched)`, p95Polls + reserved],
    [`budget ${f0(fixed.perDay.total / 10)} (fixed ÷ 10)`, fixed.perDay.total / 10],
  ];
  const budgetRuns = budgets.map(([label, daily]) =>
    run(world, label, { ...base, policy: 'budget', dailyRequestBudget: Math.round(daily) }),
  );
  const extra: SimResult[] = [];
  if (FULL) {
    const [label, daily] = budgets[0] as [string, number];
    const settings = { ...base, policy: 'budget' as const, dailyRequestBudget: Math.round(daily) };
    extra.push(run(world, `${label}, re-planned hourly`, settings, { replan: 3_600_000 }));
    extra.push(run(world, `${label}, true rates`, settings, { trueRates: true }));
    extra.push(run(world, `${label}, no tightening`, { ...settings, relaxRatio: 0 }));
    extra.push(run(world, 'adaptive, no tightening', { ...base, policy: 'adaptive', relaxRatio: 0 }));
  }

  print(`### ${name}`);
  print();
  describeWorld(name, world);
  policyTable([fixed, adaptive, ...budgetRuns, ...extra], fixed);

  printParagraph(
    'Against the best possible on these rates: polls only (reserved requests are the same for every schedule), ' +
      'delays in minutes of the reviews outside bursts (the bounds assume Poisson arrivals; no schedule can plan ' +
      'for a burst). Least mean: the least mean delay these polls could buy; fewest polls: the fewest that ' +
      "could keep this p95; p95 plan's mean: the mean delay of that p95-optimal plan:",
  );
  print();
  print("| run | polls/day | mean delay | least mean | × | p95 | fewest polls | × | p95 plan's mean |");
  print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const boundRows = [fixed, adaptive, ...budgetRuns, ...extra].map((r) => {
    const polls = r.perDay.polls;
    const { mean, p95 } = r.delays.steady;
    const bestMean = b.meanDelayFor(polls);
    const fewest = b.pollsForP95(p95);
    print(
      `| ${r.name} | ${f0(polls)} | ${f2(mean)} | ${f2(bestMean)} | ${ratio(mean, bestMean)} | ` +
        `${f1(p95)} | ${f0(fewest)} | ${ratio(polls, fewest)} | ${minutes(b.meanOfP95Plan(p95))} |`,
    );
    return { name: r.name, polls, mean, bestMean, p95, fewestForP95: fewest };
  });
  print();

  // Savings at fixed's delay: the mean-matched run, carried to fixed's mean exactly by mean ∝ 1/polls
  // (the rule's mean delay is inversely proportional to the polls while few apps sit at a bound).
  const [meanRun, p95Run] = budgetRuns as [SimResult, SimResult];
  const pollsAtFixedMean = meanRun.perDay.polls * (meanRun.delays.all.mean / fixed.delays.all.mean);
  const pollsAtFixedP95 = p95Run.perDay.polls * (p95Run.delays.all.p95 / fixed.delays.all.p95);
  const summary = {
    fixedPolls: fixed.perDay.polls,
    budgetAtFixedMean: pollsAtFixedMean,
    boundAtFixedMean: b.pollsForMean(fixed.delays.all.mean),
    budgetAtFixedP95: pollsAtFixedP95,
    boundAtFixedP95: b.pollsForP95(fixed.delays.all.p95),
    adaptivePolls: adaptive.perDay.polls,
    adaptiveMean: adaptive.delays.all.mean,
  };
  results[key] = {
    world: { measured: world.measured, distribution },
    runs: [fixed, adaptive, ...budgetRuns, ...extra],
    bounds: boundRows,
    summary,
  };
  return { name, summary, fixed };
}

/** The watch list: 20 own apps and 2,000 competitors, default weights. */
function watchListCheck(seeds: number[]) {
  print('### 20 own apps and 2,000 competitors (log-normal σ = 1.5, default weights)');
  print();
  printParagraph(
    `Requests include reconciliations (${f0(costs.reconcilePagesPerDay)} a day per app at the defaults) and baselines. ` +
      '`budget` is given a tenth of what `fixed` spends in the same world.',
  );
  print();
  print(
    '| seed | policy | requests/day | fewer than fixed | own: mean | own p95 | own max | competitors: mean | p95 | max | warnings |',
  );
  print('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  const rows: unknown[] = [];
  for (const seed of seeds) {
    log(`watch list, seed ${seed}\n`);
    const world = buildWorld({
      ...worldOptions(LOGNORMAL(1.5)),
      apps: 2_020,
      own: 20,
      weights: undefined,
      seed,
    });
    const fixed = run(world, 'fixed 15m', { ...base, policy: 'fixed' });
    const adaptive = run(world, 'adaptive, uncapped', { ...base, policy: 'adaptive' });
    // As the product plans it: no own app polled less often than poll.every.
    const capped = run(
      world,
      'adaptive, own ≤ poll.every',
      { ...base, policy: 'adaptive' },
      { capOwn: true },
    );
    const budget = run(
      world,
      'budget, own ≤ poll.every',
      { ...base, policy: 'budget', dailyRequestBudget: Math.floor(fixed.perDay.total / 10) },
      { capOwn: true },
    );
    for (const r of [fixed, adaptive, capped, budget]) {
      const d = r.delays;
      print(
        `| ${seed} | ${r.name} | ${f0(r.perDay.total)} | ${(fixed.perDay.total / r.perDay.total).toFixed(1)}× | ` +
          `${minutes(d.own.mean)} | ${minutes(d.own.p95)} | ${minutes(d.own.max)} | ${minutes(d.competitor.mean)} | ` +
          `${minutes(d.competitor.p95)} | ${minutes(d.competitor.max)} | ${r.warnings.length} |`,
      );
      rows.push({ seed, ...r });
    }
  }
  print();
  results.watchList = rows;
}

/** 10,000 apps, 2% of them own, default weights: how own apps and competitors fare side by side. */
function mixedStudy() {
  log('mixed roles\n');
  const world = buildWorld({
    ...worldOptions(LOGNORMAL(1.5)),
    own: Math.round(APPS * 0.02),
    weights: undefined,
  });
  const fixed = run(world, 'fixed 15m', { ...base, policy: 'fixed' });
  const adaptive = run(world, 'adaptive', { ...base, policy: 'adaptive' });
  const budget = run(world, 'budget (fixed ÷ 10)', {
    ...base,
    policy: 'budget',
    dailyRequestBudget: Math.floor(fixed.perDay.total / 10),
  });
  print(`### ${APPS.toLocaleString('en-US')} apps, 2% own (log-normal σ = 1.5, default weights)`);
  print();
  print(
    '| policy | requests/day | vs fixed | own: mean | own p95 | own max | competitors: mean | p95 | max |',
  );
  print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of [fixed, adaptive, budget]) {
    const d = r.delays;
    print(
      `| ${r.name} | ${f0(r.perDay.total)} | ${ratio(r.perDay.total, fixed.perDay.total)} | ${minutes(d.own.mean)} | ` +
        `${minutes(d.own.p95)} | ${minutes(d.own.max)} | ${minutes(d.competitor.mean)} | ${minutes(d.competitor.p95)} | ` +
        `${minutes(d.competitor.max)} |`,
    );
  }
  print();
  results.mixed = [fixed, adaptive, budget];
}

print(`## Adaptive poll scheduling (\`bench/schedule.ts\`)`);
print();
printParagraph(
  `${APPS.toLocaleString('en-US')} apps, ${DAYS} simulated days, seed ${SEED}, re-planned every ${REPLAN / 3_600_000} h, ` +
    `intervals rewritten when they move by more than ${TOLERANCE * 100}%. Product defaults: poll.every ` +
    `${base.everyMs / 60_000}m, minEvery ${base.minEveryMs / 60_000}m, maxEvery ${base.maxEveryMs / 3_600_000}h. ` +
    `Daily cycle ±50% (knowing it would lower the least mean delay by ${((1 - cycleGain(0.5)) * 100).toFixed(1)}%), ` +
    '1% of apps get one 6-hour burst of mostly low reviews ("incident"). In the watch-list check 2% of ' +
    'the apps are added during the run (half of them new listings: cold starts).',
);
print();
const studies = [
  distributionStudy('lognormal15', 'Log-normal, σ = 1.5 (0.05 to 50 reviews a day)', LOGNORMAL(1.5)),
  distributionStudy(
    'marketplace',
    'Marketplace: power law, α = 0.6 (0.005 to 100 reviews a day)',
    MARKETPLACE,
  ),
];
if (FULL)
  studies.push(distributionStudy('lognormal2', 'Log-normal, σ = 2 (0.05 to 50 reviews a day)', LOGNORMAL(2)));

print('### Savings over fixed (polls a day; every app weighted alike)');
print();
print(
  '| distribution | fixed | budget at fixed’s mean | best possible | budget at fixed’s p95 | best possible | adaptive (its mean) |',
);
print('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const { name, summary: s } of studies) {
  // The distribution's short name: its range is in its own section's heading.
  print(
    `| ${name.replace(/^Marketplace: power law,/, 'Marketplace,').replace(/ \(.*\)$/, '')} | ${f0(s.fixedPolls)} | ${f0(s.budgetAtFixedMean)} (${ratio(s.budgetAtFixedMean, s.fixedPolls)}) | ` +
      `${f0(s.boundAtFixedMean)} (${ratio(s.boundAtFixedMean, s.fixedPolls)}) | ${f0(s.budgetAtFixedP95)} ` +
      `(${ratio(s.budgetAtFixedP95, s.fixedPolls)}) | ${f0(s.boundAtFixedP95)} (${ratio(s.boundAtFixedP95, s.fixedPolls)}) | ` +
      `${f0(s.adaptivePolls)} (${ratio(s.adaptivePolls, s.fixedPolls)}, ${f2(s.adaptiveMean)} min) |`,
  );
}
print();

watchListCheck(FULL ? [1, 2, 3, 4, 5] : [1, 2, 3]);
if (FULL) mixedStudy();

const seconds = (performance.now() - began) / 1000;
print(`Run time ${seconds.toFixed(0)} s (Node ${process.version}).`);
results.markdown = out.join('\n');
const file = writeResult('schedule', stamp, JSON.stringify(results, null, 2));
log(`results: ${file}\n`);
