import { type ChildProcess, spawn } from 'node:child_process';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ROOT = new URL('../../', import.meta.url).pathname;
// Absolute paths: a test may run the CLI from another directory (the demo writes to ./data).
const ENTRY = ['--import', `file://${ROOT}node_modules/tsx/dist/loader.mjs`, `${ROOT}src/cli/main.ts`];

/** Runs the real CLI (from source, through tsx) in a child process. */
export function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
  cwd?: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, env, cwd);
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
