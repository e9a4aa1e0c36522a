import { afterEach } from 'vitest';
import type { Store } from '../../src/store/db.js';
import { tempStore } from './index.js';

/**
 * Opens a fresh store per call, each closed and removed after the test that opened it. Call it at the top
 * level of a test file: `const store = storesPerTest();`. (Apart from index.ts, which benchmarks import
 * outside vitest.)
 */
export function storesPerTest(): () => Store {
  let cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const cleanup of cleanups.reverse()) cleanup();
    cleanups = [];
  });
  return () => {
    const store = tempStore();
    cleanups.push(store.cleanup);
    return store;
  };
}
