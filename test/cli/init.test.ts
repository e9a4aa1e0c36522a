import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { cliCommand, runCli } from '../helpers/cli.js';
import { tempDir, waitFor } from '../helpers/index.js';

/** Each CLI run starts a Node process: a second or more apiece on a busy two-core box. */
const CLI_TEST_MS = 120_000;
/** util-linux's `script` gives the CLI a pseudo-terminal, so its questions can be answered as a person would. */
const HAS_SCRIPT = spawnSync('script', ['--version']).status === 0;

/** In the simulator of seed 42 with 50 apps: four apps in three categories, two of them in one. */
const DEVELOPER = 'pine-digital';

let sim: Simulator;
let dir: ReturnType<typeof tempDir>;
let env: Record<string, string>;

beforeAll(async () => {
  sim = await startSimulator({ seed: 42, appCount: 50 });
  dir = tempDir();
  env = {
    CATALOG_API_BASE_URL: sim.url,
    CATALOG_API_KEY: 'test-key',
    DATABASE_PATH: join(dir.dir, 'never-created.db'),
  };
});

afterAll(async () => {
  await sim.close();
  dir.cleanup();
});

interface WrittenConfig {
  apps: Array<{ handle: string; role?: string; notify?: string[] }>;
  categories: Array<{ handle: string; pages: number }>;
  channels: Record<string, { type: string }>;
}

async function api<T>(path: string): Promise<T> {
  const response = await fetch(`${sim.url}/v1/scrape/platform${path}`, { headers: { 'x-api-key': 'k' } });
  return ((await response.json()) as { data: T }).data;
}

/** What the test expects, read from the simulator apart from init: the developer's apps and categories. */
async function expectedOwn(): Promise<Map<string, string>> {
  const developer = await api<{ apps: Array<{ url: string }> }>(`/developer/${DEVELOPER}`);
  const own = new Map<string, string>();
  for (const app of developer.apps) {
    const handle = app.url.split('/').pop() as string;
    const listing = await api<{ categories: Array<{ url: string }> }>(`/app/${handle}`);
    own.set(handle, listing.categories[0]?.url.split('/').pop() as string);
  }
  return own;
}

/** A category's organic results (ads apart), first page. */
async function organic(category: string): Promise<string[]> {
  const page = await api<{ apps: Array<{ handle: string; isSponsored: boolean }> }>(`/category/${category}`);
  return [...new Set(page.apps.filter((a) => !a.isSponsored).map((a) => a.handle))];
}

describe('reviewwatch init against the simulator', () => {
  it("finds a developer's apps, their categories and the competitors ranked beside them, and check-config accepts what it writes", {
    timeout: CLI_TEST_MS,
  }, async () => {
    const output = join(dir.dir, 'found.yaml');
    const result = await runCli(['init', '--developer', DEVELOPER, '--yes', '--output', output], env);
    expect(result.stderr).toContain(`Reading developer ${DEVELOPER}`);
    expect(result.code).toBe(0);

    const own = await expectedOwn();
    expect(own.size).toBeGreaterThanOrEqual(3);
    const config = parse(readFileSync(output, 'utf8')) as WrittenConfig;
    const mine = config.apps.filter((a) => a.role !== 'competitor');
    const rivals = config.apps.filter((a) => a.role === 'competitor');
    expect(mine.map((a) => a.handle).sort()).toEqual([...own.keys()].sort());
    expect(mine.every((a) => a.notify?.every((n) => n in config.channels))).toBe(true);
    expect(config.categories.map((c) => c.handle).sort()).toEqual([...new Set(own.values())].sort());

    // In each category, the three organic results nearest to one of yours: none of yours.
    for (const category of new Set(own.values())) {
      const ranks = await organic(category);
      const ownRanks = [...own].filter(([, c]) => c === category).map(([h]) => ranks.indexOf(h));
      const nearest = ranks
        .map((handle, i) => ({ handle, i, d: Math.min(...ownRanks.map((r) => Math.abs(r - i))) }))
        .filter((e) => !own.has(e.handle))
        .sort((a, b) => a.d - b.d || a.i - b.i)
        .slice(0, 3)
        .map((e) => e.handle);
      expect(nearest.length).toBeGreaterThan(0);
      for (const handle of nearest) expect(rivals.map((r) => r.handle)).toContain(handle);
      expect(result.stdout).toContain(`in ${category}, beside`);
    }
    expect(rivals.some((r) => own.has(r.handle))).toBe(false);
    expect(result.stdout).toMatch(/cost: {5}about [\d,]+ API requests a day/);

    const check = await runCli(['check-config', '--config', output], env);
    expect(check.stderr).toBe('');
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('is valid');
    expect(check.stdout).toContain(`apps:     ${config.apps.length} (`);
    expect(existsSync(env.DATABASE_PATH as string)).toBe(false);
  });

  it('answers a typo with the closest handles and writes nothing', { timeout: CLI_TEST_MS }, async () => {
    const output = join(dir.dir, 'typo.yaml');
    const developer = await runCli(['init', '--developer', 'pine-digitl', '--yes', '-o', output], env);
    expect(developer.code).toBe(2);
    expect(developer.stderr).toContain(
      '"pine-digitl" is not a developer in the marketplace: did you mean pine-digital?',
    );
    const app = await runCli(['init', '--app', 'app-00024', '--app', 'app-0037', '--yes', '-o', output], env);
    expect(app.code).toBe(2);
    expect(app.stderr).toMatch(/"app-0037" is not an app in the marketplace: did you mean [^?]*app-00037/);
    expect(existsSync(output)).toBe(false);
  });

  it('refuses to overwrite a file before spending a request, and overwrites it with --force, waiting out 429s', {
    timeout: CLI_TEST_MS,
  }, async () => {
    const output = join(dir.dir, 'existing.yaml');
    writeFileSync(output, '# mine\n');
    const before = sim.controls.stats().requests;
    const refused = await runCli(['init', '--developer', DEVELOPER, '--yes', '-o', output], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${output} already exists: pass --force to overwrite it`);
    expect(readFileSync(output, 'utf8')).toBe('# mine\n');
    expect(sim.controls.stats().requests).toBe(before);

    sim.controls.failNext(2, { status: 429, retryAfterSec: 0, pathIncludes: '/developer/' });
    const forced = await runCli(['init', '--developer', DEVELOPER, '--yes', '--force', '-o', output], env);
    expect(forced.stderr).toContain('Rate limited (HTTP 429)');
    expect(forced.code).toBe(0);
    expect(readFileSync(output, 'utf8')).toContain(
      `written by \`reviewwatch init --developer ${DEVELOPER}\``,
    );
  });

  it('says what it needs instead of waiting for an answer without a terminal', {
    timeout: CLI_TEST_MS,
  }, async () => {
    const before = sim.controls.stats().requests;
    const result = await runCli(['init', '--developer', DEVELOPER, '-o', join(dir.dir, 'asked.yaml')], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('this is not a terminal: pass --yes');
    expect(sim.controls.stats().requests).toBe(before);
  });

  it.skipIf(!HAS_SCRIPT)(
    'asks in a terminal: the closest handle for a typo, competitors to drop, and before writing',
    {
      timeout: CLI_TEST_MS,
    },
    async () => {
      const output = join(dir.dir, 'asked.yaml');
      const cli = cliCommand().join(' ');
      const child = spawn(
        'script',
        ['-qec', `${cli} init --developer pine-digitl -o ${output}`, '/dev/null'],
        {
          env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', ...env },
          stdio: ['pipe', 'pipe', 'pipe'],
        },
      );
      const screen = capture(child);
      try {
        await waitFor(
          () => screen().includes('Use pine-digital instead of "pine-digitl"? [Y/n]'),
          60_000,
          screen,
        );
        child.stdin?.write('y\n');
        await waitFor(() => screen().includes('Enter keeps them all'), 30_000, screen);
        const listed = [...screen().matchAll(/^\s*(\d+)\. (\S+)/gm)].map((m) => m[2] as string);
        expect(listed.length).toBeGreaterThanOrEqual(3);
        child.stdin?.write('1 3\n');
        await waitFor(() => screen().includes(`Write ${output}? [Y/n]`), 30_000, screen);
        expect(existsSync(output)).toBe(false);
        child.stdin?.write('y\n');
        await waitFor(() => child.exitCode !== null, 30_000, screen);
        expect(child.exitCode).toBe(0);
        const config = parse(readFileSync(output, 'utf8')) as WrittenConfig;
        const rivals = config.apps.filter((a) => a.role === 'competitor').map((a) => a.handle);
        expect(rivals).toEqual(listed.filter((_, i) => i !== 0 && i !== 2));
        expect(readFileSync(output, 'utf8')).toContain(
          `written by \`reviewwatch init --developer ${DEVELOPER}\``,
        );
      } finally {
        child.kill();
      }
    },
  );
});

/** Everything the child printed so far, stdout and stderr together, as its terminal shows it. */
function capture(child: ChildProcess): () => string {
  let text = '';
  child.stdout?.on('data', (d) => {
    text += d;
  });
  child.stderr?.on('data', (d) => {
    text += d;
  });
  return () => text;
}
