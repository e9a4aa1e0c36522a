/**
 * Vitest's file order with the files that take longest, mostly waiting on timers, child processes and
 * Chromium, started first. Vitest orders by the durations of the last run it remembers; a clean clone (CI)
 * has none and starts large files first, which left the demo's minute-long script to run alone at the end
 * on one of the two forks (bench/README.md, "Test suite"). Started first, those waits overlap the rest.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first, by their wall time on an idle machine. */
const SLOW_FIRST = [
  'test/demo.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/market-refresh.test.ts',
  'test/web/accessibility.test.ts',
  'test/self-heal.test.ts',
  'test/alerts/flow.test.ts',
  'test/several-processes.test.ts',
  'test/web/market-browser.test.ts',
  'test/queue/gap-follow-up.test.ts',
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const rank = (file: TestSpecification) => {
      const at = SLOW_FIRST.indexOf(relative(root, file.moduleId).replaceAll('\\', '/'));
      return at < 0 ? SLOW_FIRST.length : at;
    };
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
