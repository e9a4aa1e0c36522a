import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/store/db.js';
import { checkLogin } from '../../src/web/users.js';
import { cliCommand } from '../helpers/cli.js';
import { tempDir } from '../helpers/index.js';

const ROOT = new URL('../../', import.meta.url).pathname;

let temp: ReturnType<typeof tempDir>;
let env: Record<string, string>;
beforeEach(() => {
  temp = tempDir();
  const config = join(temp.dir, 'config.yaml');
  writeFileSync(config, 'catalog:\n  simulator: true\napps:\n  - handle: shop\n');
  env = {
    PATH: process.env.PATH ?? '',
    REVIEWWATCH_CONFIG: config,
    DATABASE_PATH: join(temp.dir, 'reviewwatch.db'),
  };
});
afterEach(() => temp.cleanup());

/** The real CLI with `input` on stdin (a pipe, as a script would give it). */
function cli(args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const [node, ...entry] = cliCommand();
    const child = spawn(node as string, [...entry, ...args], {
      cwd: ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdin.end(input);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

it('user add reads the password from stdin, stores a hash, and never prints it; list and remove', async () => {
  const password = 'a password nobody guesses';
  const added = await cli(['user', 'add', 'ana', '--email', 'ana@example.com'], `${password}\n`);
  // The first command on this test's database creates it, and says so; nothing else goes to stderr.
  expect(added.stderr).toMatch(/^reviewwatch: no database was at [^\n]+: created an empty one\.[^\n]*\n$/);
  expect(added.stdout).toBe('Added user ana <ana@example.com>.\n');
  expect(added.code).toBe(0);

  const store = openStore(env.DATABASE_PATH as string);
  try {
    expect(await checkLogin(store, 'ana', password)).toMatchObject({ name: 'ana' });
  } finally {
    store.close();
  }

  const list = await cli(['user', 'list', '--json']);
  expect(JSON.parse(list.stdout)).toEqual([
    { name: 'ana', email: 'ana@example.com', createdAt: expect.any(String) },
  ]);
  expect(list.stdout + list.stderr).not.toContain(password);

  const removed = await cli(['user', 'remove', 'ana']);
  expect(removed.stdout).toBe('Removed user ana; their sessions are ended.\n');
  expect(removed.code).toBe(0);
}, 60_000);

it('user add refuses a short password with the usage exit code, adding no one', async () => {
  const short = await cli(['user', 'add', 'ben'], 'short\n');
  expect(short.stderr).toContain('at least 12 characters');
  expect(short.code).toBe(2);
}, 60_000);
