import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ROOT = new URL('../../', import.meta.url).pathname;
/** The package's bin, as installed: what `npm run build` makes of src/ (test/build-once.ts keeps it fresh). */
export const BUILT_ENTRY = join(ROOT, 'dist', 'cli', 'main.js');

/**
 * Runs the real CLI, as built (`dist/cli/main.js`), in a child process. The built CLI, not src/ through
 * tsx: tsx's loader cost a second of CPU per process, and the suite starts about a hundred.
 */
export function runCli(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
  cwd?: string,
): Promise<CliResult> {
  return collect(spawnCli(args, env, cwd), args, timeoutMs);
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

/** The command line of the built CLI: `node dist/cli/main.js`, as a deployment runs it. */
export function cliCommand(): string[] {
  assertBuilt();
  return [process.execPath, BUILT_ENTRY];
}

export function spawnCli(args: string[], env: Record<string, string>, cwd = ROOT): ChildProcess {
  const [node, ...entry] = cliCommand();
  return spawn(node as string, [...entry, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function assertBuilt(): void {
  const stale = whyBuildIsStale();
  if (stale) throw new Error(`${stale}: run \`npm run build\` before this test`);
}

/** Why dist/ would run old code (missing, or older than a file of src/), or undefined when it is fresh. */
export function whyBuildIsStale(): string | undefined {
  let builtAt: number;
  try {
    builtAt = statSync(BUILT_ENTRY).mtimeMs;
  } catch {
    return `${BUILT_ENTRY} does not exist`;
  }
  const src = join(ROOT, 'src');
  // Every file: the build copies src/web/static (the inbox's CSS and script) beside the compiled code.
  const newer = readdirSync(src, { recursive: true, encoding: 'utf8' }).find(
    (name) => statSync(join(src, name)).mtimeMs > builtAt,
  );
  return newer ? `src/${newer} changed after the last build` : undefined;
}
