import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/index.js';

const dir = tempDir();
afterAll(() => dir.cleanup());

it('check-config prints what a config will cost a day, polls and market reads, before any start', {
  timeout: 120_000,
}, async () => {
  const config = join(dir.dir, 'market.yaml');
  writeFileSync(
    config,
    [
      'catalog: { baseUrl: "http://127.0.0.1:9", apiKey: k, dailyRequestBudget: 1000 }',
      'poll: { every: 15m }',
      'apps:',
      '  - handle: my-app',
      '  - handle: rival-app',
      '    role: competitor',
      'categories:',
      '  - handle: store-design',
      '    pages: 2',
    ].join('\n'),
  );
  const database = join(dir.dir, 'never-created.db');
  const result = await runCli(['check-config', '--config', config], { DATABASE_PATH: database });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  // Polls: 2 apps × 96 a day; baselines 2 × 20 pages and reconciliation 2 × 5; category pages 2 × 4 a
  // day; listings 2 and the competitor's developer once a day: 192 + 50 + 8 + 2 + 1.
  expect(result.stdout).toContain(
    'cost:     about 253 API requests a day (polls 192 under the fixed schedule, baselines and reconciliation 50, category pages 8, listings 2, developers 1 (at most)), within catalog.dailyRequestBudget 1,000',
  );
  expect(result.stdout).toMatch(/unknown until the first snapshot of store-design/);
  expect(existsSync(database)).toBe(false);
});
