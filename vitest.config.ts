import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './test/slow-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ when it is missing or stale: the CLI tests run the built CLI.
    globalSetup: ['test/build-once.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Files run in forks, each test with its own queue prefix and SQLite file. Vitest's default is one
    // fork fewer than the cores: one on CI's two. Most slow files wait more than they compute (timers,
    // child processes, Chromium), so a second fork fills those waits; a third made the suite's own load
    // time a test out on CI (bench/README.md, "Test suite").
    pool: 'forks',
    maxWorkers: 2,
    // A fork runs its files in one module graph rather than loading src/ again for each: a third less CPU
    // for the suite (bench/README.md, "Test suite"). So a test file restores any global it changes.
    isolate: false,
    sequence: { sequencer: SlowFirstSequencer },
  },
});
