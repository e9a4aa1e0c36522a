/**
 * Vitest's global setup: the CLI tests run the built CLI (test/helpers/cli.ts), so build it once here when
 * dist/ is missing or older than src/. CI has just built it (.ci/run), and then this does nothing.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { BUILT_ENTRY, whyBuildIsStale } from './helpers/cli.js';

export default function setup(): void {
  const stale = whyBuildIsStale();
  if (!stale) return;
  process.stderr.write(`${stale}: npm run build\n`);
  try {
    execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  } catch {
    // tsc writes dist/ even when the code does not type-check: drop the entry, so the tests that run the
    // CLI fail saying it is not built (and the next run builds again), while the others still run.
    rmSync(BUILT_ENTRY, { force: true });
    process.stderr.write('the build failed (above): the tests that run the CLI will fail\n');
  }
}
