/**
 * What topics add to a poll cycle's CPU, issue 24's ingest goal (at most 10%): `--pairs` pairs of
 * `bench/poll.ts --topics on` and `--topics off`, the two of a pair started together so that they share
 * the machine's state, which of them starts first alternating from pair to pair. Each pair gives the
 * difference of the CPU an app costs the poller's process in the cycle storing ten reviews an app (the
 * baseline) and in the one storing five new each; the report is their mean, its standard error and the
 * range. A single pair varies by ±10 points on a 2-core machine (bench/README.md, "Stored topics"): only
 * the mean of many says anything.
 *
 *   npx tsx bench/topics-cost.ts [--pairs 10] [--apps 1000]
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { pairs: { type: 'string', default: '10' }, apps: { type: 'string', default: '1000' } },
});
const PAIRS = Number(values.pairs);
const APPS = Number(values.apps);
const CYCLES = {
  baseline: 'baseline cycle (1 page each)',
  fiveNew: 'poll cycle, 5 new each',
} as const;
type Cycle = keyof typeof CYCLES;

interface Figure {
  phase: string;
  cpuMsPerApp: number;
  /** Of it, the main thread's (Linux): the rest is V8's compiler and collector threads, and libuv's. */
  mainThreadMsPerApp?: number;
}

/** One `bench/poll.ts` run; resolves with its figures, or rejects with the end of what it printed. */
function pollBench(topics: 'on' | 'off', out: string): Promise<Figure[]> {
  const args = ['--import', 'tsx', 'bench/poll.ts', '--apps', String(APPS), '--rounds', '3'];
  const child = spawn(process.execPath, [...args, '--topics', topics, '--out', out], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(readFileSync(out, 'utf8')) as Figure[]);
      else reject(new Error(`bench/poll.ts --topics ${topics} exited with ${code}:\n${stderr}`));
    });
  });
}

function figureOf(figures: readonly Figure[], cycle: Cycle): Figure {
  const figure = figures.find((f) => f.phase === CYCLES[cycle]);
  if (figure === undefined) throw new Error(`bench/poll.ts reported no "${CYCLES[cycle]}"`);
  return figure;
}

function cpuOf(figures: readonly Figure[], cycle: Cycle): number {
  return figureOf(figures, cycle).cpuMsPerApp;
}

const dir = mkdtempSync(join(tmpdir(), 'reviewwatch-topics-cost-'));
const differences: Record<Cycle, number[]> = { baseline: [], fiveNew: [] };
/** On minus off, ms an app, of the main thread and of the others, where bench/poll.ts could tell them. */
const threads: Record<Cycle, { main: number[]; others: number[] }> = {
  baseline: { main: [], others: [] },
  fiveNew: { main: [], others: [] },
};
const rows: string[] = [];
try {
  for (let pair = 1; pair <= PAIRS; pair += 1) {
    const order: Array<'on' | 'off'> = pair % 2 === 1 ? ['on', 'off'] : ['off', 'on'];
    const runs = new Map<'on' | 'off', Promise<Figure[]>>();
    for (const topics of order) {
      runs.set(topics, pollBench(topics, join(dir, `${pair}-${topics}.json`)));
      // Apart, so that their simulators do not both take the port freePort() found free at one moment.
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    // Both settle before either's failure is reported: no run is left behind writing into `dir`.
    const [onRun, offRun] = await Promise.allSettled([runs.get('on'), runs.get('off')]);
    if (onRun.status === 'rejected') throw onRun.reason;
    if (offRun.status === 'rejected') throw offRun.reason;
    const on = onRun.value as Figure[];
    const off = offRun.value as Figure[];
    const cells = (['baseline', 'fiveNew'] as const).map((cycle) => {
      const difference = (100 * cpuOf(on, cycle)) / cpuOf(off, cycle) - 100;
      differences[cycle].push(difference);
      const [onMain, offMain] = [figureOf(on, cycle), figureOf(off, cycle)].map((f) => f.mainThreadMsPerApp);
      if (onMain !== undefined && offMain !== undefined) {
        threads[cycle].main.push(onMain - offMain);
        threads[cycle].others.push(cpuOf(on, cycle) - onMain - (cpuOf(off, cycle) - offMain));
      }
      return `${cpuOf(on, cycle).toFixed(3)} / ${cpuOf(off, cycle).toFixed(3)} (${difference >= 0 ? '+' : ''}${difference.toFixed(1)}%)`;
    });
    rows.push(`| ${pair} | ${order[0]} | ${cells.join(' | ')} |`);
    process.stderr.write(`pair ${pair} of ${PAIRS}: ${cells.join(', ')}\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** The mean of `list` and its standard error. */
function meanAndError(list: readonly number[]): { mean: number; error: number } {
  const mean = list.reduce((a, b) => a + b, 0) / list.length;
  const variance = list.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, list.length - 1);
  return { mean, error: Math.sqrt(variance / list.length) };
}

const signed = (value: number, digits: number) => `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;

function summary(list: readonly number[]): string {
  const { mean, error } = meanAndError(list);
  return `**${signed(mean, 1)}%** ± ${error.toFixed(1)} (${Math.min(...list).toFixed(1)} to ${Math.max(...list).toFixed(1)})`;
}

function ms(list: readonly number[]): string {
  const { mean, error } = meanAndError(list);
  return `${signed(mean, 3)} ± ${error.toFixed(3)}`;
}

const report = [
  `${PAIRS} pairs at ${APPS} apps, Node ${process.version}, ${new Date().toISOString()}: CPU ms per app, on / off`,
  '',
  '| pair | started first | baseline (10 reviews an app) | poll cycle, 5 new each |',
  '| ---: | --- | --- | --- |',
  ...rows,
  `| mean ± standard error (range) | | ${summary(differences.baseline)} | ${summary(differences.fiveNew)} |`,
  ...(threads.baseline.main.length === 0
    ? []
    : [
        '',
        'On minus off, ms an app (mean ± standard error): the main thread, where the poll runs, and the',
        "others (V8's optimizing compiler and collector helpers, libuv's threads)",
        '',
        '| cycle | main thread | other threads |',
        '| --- | ---: | ---: |',
        ...(['baseline', 'fiveNew'] as const).map(
          (cycle) => `| ${CYCLES[cycle]} | ${ms(threads[cycle].main)} | ${ms(threads[cycle].others)} |`,
        ),
      ]),
].join('\n');
process.stdout.write(`${report}\n`);
mkdirSync('bench/results', { recursive: true });
writeFileSync(
  `bench/results/topics-cost-${Date.now()}.json`,
  JSON.stringify({ APPS, differences, threads }, null, 2),
);
