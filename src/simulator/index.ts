/**
 * The Catalog Read API simulator: a real HTTP server with deterministic seeded data and in-process (or
 * `/__sim` HTTP) controls for faults, quirks and new reviews. Used by tests, the demo and benchmarks.
 */
import type { AddressInfo } from 'node:net';
import { createSimulatorServer } from './server.js';
import { SimulatorState } from './state.js';
import type { SimulatorOptions } from './types.js';

export { CATEGORIES } from './data.js';
export { SimulatorError } from './errors.js';
export {
  DEFAULT_NOISE,
  type MarketEvent,
  type RankNoise,
  TICKS_PER_DAY,
} from './market.js';
export type {
  ArrivalOptions,
  Endpoint,
  FailSpec,
  MalformKind,
  MalformSpec,
  MarketOptions,
  Quirks,
  SimulatorOptions,
  SimulatorStats,
  SummaryEntry,
  WireReview,
} from './types.js';
export { CATEGORY_PAGE_SIZE, REVIEWS_PAGE_SIZE } from './views.js';
export { SimulatorState };

export interface Simulator {
  /** e.g. http://127.0.0.1:43123, no trailing slash. */
  url: string;
  port: number;
  controls: SimulatorState;
  /** Stops the server (keep-alive sockets too) and the arrival timer. */
  close(): Promise<void>;
}

export async function startSimulator(
  opts: SimulatorOptions & { port?: number; host?: string } = {},
): Promise<Simulator> {
  const { port = 0, host = '127.0.0.1', ...options } = opts;
  const state = new SimulatorState(options);
  const { server, close } = createSimulatorServer(state);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  state.startArrivals();
  return {
    url: `http://${urlHost}:${actualPort}`,
    port: actualPort,
    controls: state,
    async close() {
      state.stopArrivals();
      await close();
    },
  };
}
