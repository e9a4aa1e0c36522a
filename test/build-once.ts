/**
 * Vitest's global setup: the CLI tests run the built CLI (test/helpers/cli.ts), so build it once here when
 * dist/ is missing or older than src/. CI has just built it (.ci/run), and then this does nothing.
 */
import { execFileSync } from 'node:child_process';
import { whyBuildIsStale } from './helpers/cli.js';

export default function setup(): void {
  const stale = whyBuildIsStale();
  if (!stale) return;
  process.stderr.write(`${stale}: npm run build\n`);
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
}
