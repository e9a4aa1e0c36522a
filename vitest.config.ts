import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ when it is missing or stale: the CLI tests run the built CLI.
    globalSetup: ['test/build-once.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Files run in forks, each test with its own queue prefix and SQLite file. Vitest's default is one
    // fork fewer than the cores, so one fork on CI's two: two overlap one file's waits (timers, child
    // processes, Chromium) with another's work. Measured in bench/README.md#test-suite.
    pool: 'forks',
    maxWorkers: 2,
  },
});
