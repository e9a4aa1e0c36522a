import type { Queue } from 'bullmq';
import type { Logger } from '../log.js';
import type { Metrics } from '../ops/metrics.js';
import { type OpsServer, type OpsServerDeps, startOpsServer } from '../ops/server.js';
import type { Settings } from '../settings.js';
import type { Releasers } from '../util/releasers.js';
import { createWeb } from '../web/router.js';
import type { Storage } from './storage.js';

/**
 * The ops server (health, readiness, metrics, Bull Board) with the triage inbox at `/`, when
 * `http.enabled`. Opened before the workers and released after them, so /readyz and /metrics keep
 * answering while the last jobs finish.
 */
export async function openOps(
  settings: Settings,
  releasers: Releasers,
  parts: {
    storage: Storage;
    queues: readonly Queue[];
    metrics: Metrics;
    /** Whether polling is alive: `start`'s watchdog, or `serve`'s reading of the heartbeats. */
    health: OpsServerDeps['polling'];
    logger: Logger;
    /** Where to listen; `settings.http` unless `serve` was given its own. */
    listen?: { host: string; port: number };
  },
): Promise<OpsServer | undefined> {
  if (!parts.listen && !settings.config.http.enabled) return undefined;
  const { store, redis } = parts.storage;
  const { logger } = parts;
  const server = await startOpsServer({
    ...(parts.listen ?? settings.http),
    admin: settings.admin,
    deps: {
      redis,
      store,
      queues: parts.queues,
      metrics: parts.metrics,
      web: createWeb({ store, config: settings.config, admin: settings.admin, logger }),
      ...(parts.health ? { polling: parts.health } : {}),
    },
    logger,
  });
  releasers.add('ops server', () => server.close());
  return server;
}
