import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ when it is missing or stale: the CLI tests run the built CLI.
    globalSetup: ['test/build-once.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores: files run in parallel forks; each test uses its own queue prefix and SQLite file.
    pool: 'forks',
  },
});
