import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { recordCategorySnapshot } from '../../src/store/market/snapshots.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/index.js';
import { seedMarketHistory } from '../helpers/market.js';
import { moveTo, snap } from '../market/helpers.js';

/** Each CLI run starts a Node process: a second or more apiece on a busy two-core box. */
const CLI_TEST_MS = 120_000;
const EVIL = '\u001b[2J\u001b[31mEvil\u0007 Corp';

let dir: ReturnType<typeof tempDir>;
let env: Record<string, string>;

beforeAll(() => {
  dir = tempDir();
  const config = join(dir.dir, 'reviewwatch.yaml');
  writeFileSync(
    config,
    [
      'apps:',
      '  - { handle: shop, name: Shop }',
      '  - { handle: rival, role: competitor }',
      'categories:',
      '  - handle: store-design',
      '  - handle: finances',
    ].join('\n'),
  );
  env = { REVIEWWATCH_CONFIG: config, DATABASE_PATH: join(dir.dir, 'reviewwatch.db') };
  const store = openStore(env.DATABASE_PATH as string);
  const now = Date.now();
  seedMarketHistory(store, now);
  // The latest snapshot: an app whose name would drive the terminal.
  const order = [
    'a01',
    'a02',
    'rival',
    'a04',
    'a06',
    'a07',
    'a08',
    'a09',
    'a10',
    'a11',
    'a12',
    'a13',
    'new-kid',
  ];
  recordCategorySnapshot(store.db, {
    category: 'store-design',
    takenAt: new Date(now - 3_600_000),
    status: 'ok',
    requests: 1,
    snapshot: snap(now - 3_600_000, [...moveTo(order, 'shop', 12), 'evil'], {
      names: { evil: EVIL, 'new-kid': '<script>alert(1)</script>Kid' },
      sponsored: ['a10'],
    }),
  });
  store.close();
});

afterAll(() => dir.cleanup());

describe('reviewwatch market', () => {
  it(
    "prints each watched app's rating, open low reviews and last change, then its rank per category",
    async () => {
      const out = await runCli(['market'], env);
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(/^APP\s+ROLE\s+RATING\s+7 DAYS\s+OPEN LOW\s+LAST LISTING CHANGE$/m);
      expect(out.stdout).toMatch(
        /^Rival\s+competitor\s+-\s+-\s+0\s+\d{4}-\d\d-\d\d: Plan added: "<img src=x onerror=alert\(1\)>Pro" \(\$9\/month\) \(\+1 more\)$/m,
      );
      expect(out.stdout).toMatch(/^store-design: last snapshot .* UTC, the top 15 organic places tracked$/m);
      expect(out.stdout).toMatch(/^ {2}Shop\s+#12 ▼7 \(from #5\)$/m);
      expect(out.stdout).toContain('finances: waiting for its first snapshot');

      const json = JSON.parse((await runCli(['market', '--json'], env)).stdout);
      expect(json.apps.map((a: { handle: string }) => a.handle)).toEqual(['shop', 'rival']);
      expect(json.apps[0].ranks[0]).toMatchObject({ category: 'store-design', rank: 12, move: -7 });
      expect(json.apps[0].url).toBe('/apps/shop');
    },
    CLI_TEST_MS,
  );

  it(
    'prints one category: its gap, watched apps, top ten, entrants and ads; no control character gets out',
    async () => {
      const out = await runCli(['market', '--category', 'store-design'], env);
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(
        /^last 90 days: 10 snapshots; 1 failed \(\d{4}-\d\d-\d\d\): no ranks then$/m,
      );
      expect(out.stdout).toMatch(/^ {2}Shop\s+own\s+#12\s+▼7$/m);
      expect(out.stdout).toMatch(
        /^ {2}\d{4}-\d\d-\d\d {2}<script>alert\(1\)<\/script>Kid: came in at #14, now #14$/m,
      );
      expect(out.stdout).toContain('[2J[31mEvil Corp: came in at #15, now #15');
      expect([...out.stdout].filter((c) => c !== '\n' && (c < ' ' || c === '\u007f'))).toEqual([]);
      expect(out.stdout).toMatch(/^SPONSORED: A10$/m);
      const json = JSON.parse((await runCli(['market', '--category', 'store-design', '--json'], env)).stdout);
      expect(json.gaps).toHaveLength(1);
      expect(json.series[0]).toMatchObject({ handle: 'shop', rank: 12 });
    },
    CLI_TEST_MS,
  );

  it(
    'exits 2 naming an unknown category, and the ones it knows',
    async () => {
      const out = await runCli(['market', '--category', 'productivity'], env);
      expect(out.code).toBe(2);
      expect(out.stderr).toContain(
        'reviewwatch: unknown category "productivity": it is not under categories in the config and was never snapshotted (tracked: store-design, finances)',
      );
      expect(out.stdout).toBe('');
      expect((await runCli(['market', '--bogus'], env)).code).toBe(2);
    },
    CLI_TEST_MS,
  );
});
