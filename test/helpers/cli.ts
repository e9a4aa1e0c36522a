import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ROOT = new URL('../../', import.meta.url).pathname;
// Absolute paths: a test may run the CLI from another directory (the demo writes to ./data).
const ENTRY = ['--import', `file://${ROOT}node_modules/tsx/dist/loader.mjs`, `${ROOT}src/cli/main.ts`];
/** The package's bin, as installed: what `npm run build` makes of src/. */
const BUILT_ENTRY = join(ROOT, 'dist', 'cli', 'main.js');

/** Runs the real CLI (from source, through tsx) in a child process. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
  cwd?: string,
): Promise<CliResult> {
  return collect(spawnCli(args, env, cwd), args, timeoutMs);
}

/** Runs the built CLI (`dist/cli/main.js`, see spawnBuiltCli) in a child process. */
export function runBuiltCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<CliResult> {
  return collect(spawnBuiltCli(args, env), args, timeoutMs);
}

function collect(child: ChildProcess, args: string[], timeoutMs: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d) => {
      stdout += d;
    });
    child.stderr?.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`reviewwatch ${args.join(' ')} timed out\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export function spawnCli(args: string[], env: Record<string, string>, cwd = ROOT): ChildProcess {
  return spawn(process.execPath, [...ENTRY, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * The built CLI, `node dist/cli/main.js`, as a deployment runs it: no tsx loader, so a process starts in
 * a fraction of the time and memory (tests running several at once on a small machine). Throws when
 * dist/ is missing or older than src/, since the test would then exercise old code.
 */
export function spawnBuiltCli(args: string[], env: Record<string, string>): ChildProcess {
  assertBuilt();
  return spawn(process.execPath, [BUILT_ENTRY, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function assertBuilt(): void {
  let builtAt: number;
  try {
    builtAt = statSync(BUILT_ENTRY).mtimeMs;
  } catch {
    throw new Error(`${BUILT_ENTRY} does not exist: run \`npm run build\` before this test`);
  }
  const src = join(ROOT, 'src');
  const newer = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .find((name) => statSync(join(src, name)).mtimeMs > builtAt);
  if (newer)
    throw new Error(`src/${newer} changed after the last build: run \`npm run build\` before this test`);
}
