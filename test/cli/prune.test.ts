import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import type { PruneResult } from '../../src/store/retention.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/index.js';
import { insertPollHistory } from '../helpers/poll-history.js';

const HOUR = 3_600_000;
const _DAY = 24 * HOUR;

let dir: ReturnType<typeof tempDir>;
let env: Record<string, string>;

beforeEach(() => {
  dir = tempDir();
  const config = join(dir.dir, 'reviewwatch.yaml');
  writeFileSync(config, 'apps:\n  - handle: my-app\nretention:\n  pollRuns: 3d\n');
  env = { REVIEWWATCH_CONFIG: config, DATABASE_PATH: join(dir.dir, 'reviewwatch.db') };
  // Twenty days of polls every 15 minutes, ending now.
  const store = openStore(env.DATABASE_PATH as string);
  insertPollHistory(store, 'my-app', { now: Date.now(), days: 20, everyMs: HOUR / 4 });
  store.close();
});

afterEach(() => dir.cleanup());

function count(table: string): number {
  const store = openStore(env.DATABASE_PATH as string);
  try {
    return (store.db.$client.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
  } finally {
    store.close();
  }
}

it('prune --dry-run counts what prune then deletes, and prune reports it per table', async () => {
  const snapshots = count('rating_snapshots');
  const dry = await runCli(['prune', '--dry-run', '--json'], env);
  expect(dry.stderr).toBe('');
  expect(dry.code).toBe(0);
  const counted = JSON.parse(dry.stdout) as PruneResult;
  // 18 days past the 2 of full detail keep one snapshot an hour of four.
  expect(counted.counts.ratingSnapshots).toBeGreaterThan(18 * 24 * 3 - 8);
  expect(counted.counts.pollRuns).toBeGreaterThan(0);
  expect(count('rating_snapshots')).toBe(snapshots);

  const real = await runCli(['prune'], env);
  expect(real.code).toBe(0);
  expect(real.stdout).toContain('Deleted:');
  expect(real.stdout).toMatch(
    new RegExp(`rating snapshots\\s+${counted.counts.ratingSnapshots.toLocaleString('en')}\\n`),
  );
  expect(real.stdout).toMatch(new RegExp(`poll runs\\s+${counted.counts.pollRuns.toLocaleString('en')}\\n`));
  expect(real.stdout).toMatch(/Database: .* → .*, .* reclaimed \(incremental vacuum\)\./);
  expect(count('rating_snapshots')).toBe(snapshots - counted.counts.ratingSnapshots);
}, 60_000);

it('exits 2 on a usage error and deletes nothing', async () => {
  const snapshots = count('rating_snapshots');
  const unknown = await runCli(['prune', '--bogus'], env);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain("unknown option '--bogus'");
  const both = await runCli(['prune', '--dry-run', '--vacuum'], env);
  expect(both.code).toBe(2);
  expect(both.stderr).toContain('--dry-run and --vacuum cannot be combined');
  writeFileSync(env.REVIEWWATCH_CONFIG as string, 'apps:\n  - handle: my-app\nretention:\n  pollRuns: 2h\n');
  const tooShort = await runCli(['prune'], env);
  expect(tooShort.code).toBe(2);
  expect(tooShort.stderr).toContain('retention.pollRuns: must be at least 1d');
  expect(count('rating_snapshots')).toBe(snapshots);
}, 60_000);
