import { CatalogClient, type CatalogError } from '../catalog/index.js';
import { ExitCode, ReviewwatchError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../ops/metrics.js';
import { RedisRequestGate } from '../queue/rate-gate.js';
import type { Settings } from '../settings.js';
import { type Simulator, startSimulator } from '../simulator/index.js';
import type { Releasers } from '../util/releasers.js';
import type { Storage } from './storage.js';

/** How often `catalog.simulator: true` publishes a review, so a first run shows the flow working. */
const EMBEDDED_ARRIVAL_MS = 20_000;

export interface Catalog {
  client: CatalogClient;
  /** Set when `catalog.simulator: true`: the built-in simulator this worker polls. */
  simulator: Simulator | undefined;
  /** Catalog API requests sent, answered or not (429s, errors and timeouts included). */
  requests(): number;
}

/** A rejected key or no credits: nothing will work until someone acts. */
export type OnFatal = (err: CatalogError) => void;

type CatalogTarget = 'simulator' | { baseUrl: string; apiKey: string };

/**
 * Where the worker reads the marketplace: the configured API, or the built-in simulator only when the
 * config says `catalog.simulator: true`. Anything else missing is a usage error naming the variable.
 */
export function catalogTargetOf(settings: Settings): CatalogTarget {
  const { catalog } = settings.config;
  if (catalog.simulator) return 'simulator';
  const missing = [
    catalog.baseUrl ? undefined : 'CATALOG_API_BASE_URL',
    catalog.apiKey ? undefined : 'CATALOG_API_KEY',
  ].filter((name): name is string => name !== undefined);
  if (missing.length > 0 || !catalog.baseUrl || !catalog.apiKey) {
    throw new ReviewwatchError(
      `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not set: reviewwatch needs the Catalog API's base URL and key (or catalog.baseUrl and catalog.apiKey in ${settings.configPath}). To try it out without them, run \`reviewwatch demo\`, or set catalog.simulator: true.`,
      { exitCode: ExitCode.Usage },
    );
  }
  return { baseUrl: catalog.baseUrl, apiKey: catalog.apiKey };
}

/** The catalog client behind the Redis request gate, on the built-in simulator if the config says so. */
export async function openCatalog(
  settings: Settings,
  releasers: Releasers,
  parts: { storage: Storage; metrics: Metrics; logger: Logger; target: CatalogTarget },
): Promise<Catalog> {
  const { config } = settings;
  const { logger } = parts;
  let simulator: Simulator | undefined;
  let target = parts.target;
  if (target === 'simulator') {
    const handles = config.apps.map((app) => app.handle);
    const started = await startSimulator({
      handles,
      appCount: 0,
      arrival: { everyMs: EMBEDDED_ARRIVAL_MS, handles },
    });
    simulator = started;
    releasers.add('simulator', () => started.close());
    target = { baseUrl: started.url, apiKey: 'simulator' };
    logger.warn(
      `catalog.simulator is true: polling the built-in Catalog API simulator at ${started.url} (simulated data; a new review every ${EMBEDDED_ARRIVAL_MS / 1000}s)`,
    );
  }
  let requests = 0;
  const client = new CatalogClient({
    ...target,
    timeoutMs: config.catalog.timeout,
    gate: new RedisRequestGate(parts.storage.redis, {
      prefix: settings.queuePrefix,
      maxRequestsPerSecond: config.catalog.maxRequestsPerSecond,
    }),
    logger,
    onResponse: (info) => {
      requests++;
      parts.metrics.onCatalogResponse(info);
    },
  });
  releasers.add('catalog client', () => client.close());
  return { client, simulator, requests: () => requests };
}
