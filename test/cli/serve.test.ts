import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { spawnCli } from '../helpers/cli.js';
import { REDIS_URL, tempDir, uniquePrefix, waitFor } from '../helpers/index.js';

let temp: ReturnType<typeof tempDir>;
beforeEach(() => {
  temp = tempDir();
});
afterEach(() => temp.cleanup());

it('serve runs the inbox alone against the database, and stops on SIGTERM', async () => {
  const config = join(temp.dir, 'config.yaml');
  writeFileSync(config, 'catalog:\n  simulator: true\napps:\n  - handle: shop\n');
  const child = spawnCli(['serve', '--port', '0'], {
    REVIEWWATCH_CONFIG: config,
    DATABASE_PATH: join(temp.dir, 'reviewwatch.db'),
    REDIS_URL,
    REVIEWWATCH_QUEUE_PREFIX: uniquePrefix(),
    REVIEWWATCH_ADMIN_TOKEN: 'serve-test-token',
  });
  let stdout = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stdout += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    await waitFor(
      () => /inbox at (http:\S+)\//.test(stdout),
      60_000,
      () => stdout,
    );
    const url = /inbox at (http:\S+)\//.exec(stdout)?.[1];
    expect(stdout).toContain('nobody can log in yet');
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const inbox = await fetch(`${url}/`, { redirect: 'manual' });
    expect(inbox.status).toBe(303);
    const api = await fetch(`${url}/api/reviews`, { headers: { authorization: 'Bearer serve-test-token' } });
    expect(api.status).toBe(200);
    expect(await api.json()).toEqual({ reviews: [], next: null });
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
  expect(stdout).toContain('"msg":"stopped"');
}, 90_000);
