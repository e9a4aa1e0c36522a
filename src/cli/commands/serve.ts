import { dirname, join } from 'node:path';
import { Queue } from 'bullmq';
import { Command } from 'commander';
import { ExitCode, ReviewwatchError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { Metrics } from '../../ops/metrics.js';
import { type OpsServer, startOpsServer } from '../../ops/server.js';
import { connectRedis } from '../../queue/connection.js';
import { resolveRedis } from '../../queue/local-redis.js';
import { MAINTENANCE_QUEUE } from '../../queue/maintenance.js';
import { DIGEST_QUEUE, NOTIFY_QUEUE, POLL_QUEUE } from '../../queue/names.js';
import type { Settings } from '../../settings.js';
import { openStore } from '../../store/db.js';
import { listUsers } from '../../store/users.js';
import { type Releasers, withReleasers } from '../../util/releasers.js';
import { createWeb } from '../../web/router.js';
import { loggerFor, settingsFor } from '../context.js';

interface ServeOptions {
  host?: string;
  port?: string;
}

/**
 * The inbox (and health, metrics, Bull Board) without polling: for a second machine beside a worker, or a
 * worker started with http.enabled: false. Same database, same Redis, same login.
 */
async function serve(settings: Settings, logger: Logger, address: { host: string; port: number }) {
  return withReleasers(async (releasers: Releasers) => {
    const store = openStore(settings.databasePath);
    releasers.add('SQLite', () => store.close());
    const endpoint = await resolveRedis({
      redisUrl: settings.redisUrlGiven ? settings.redisUrl : undefined,
      dataDir: join(dirname(settings.databasePath), 'redis'),
      logger,
    });
    releasers.add('private redis-server', () => endpoint.stop());
    const redis = await connectRedis(endpoint.url);
    releasers.add('Redis connection', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
    const prefix = settings.queuePrefix;
    // Only for Bull Board and the queue depths of /metrics: this process adds no job.
    const queues = [POLL_QUEUE, NOTIFY_QUEUE, DIGEST_QUEUE, MAINTENANCE_QUEUE].map(
      (name) => new Queue(name, { connection: redis, prefix }),
    );
    releasers.add('queues', async () => {
      for (const queue of queues) await queue.close();
    });
    const web = createWeb({ store, config: settings.config, admin: settings.admin, logger });
    const server: OpsServer = await startOpsServer({
      ...address,
      admin: settings.admin,
      deps: { redis, store, queues, metrics: new Metrics(), web },
      logger,
    });
    releasers.add('ops server', () => server.close());
    if (listUsers(store.db).length === 0) {
      logger.warn(
        `nobody can log in yet: add a user with \`reviewwatch user add NAME\`${settings.admin.token ? '' : ', or set REVIEWWATCH_ADMIN_TOKEN for scripts'}`,
      );
    }
    logger.info(`inbox at ${server.url}/`);
    return releasers;
  });
}

export function serveCommand(): Command {
  return new Command('serve')
    .description(
      'serve the triage inbox (and /healthz, /metrics, Bull Board) without polling, until SIGINT/SIGTERM',
    )
    .option('--host <host>', 'listen on this address (default: http.host, or REVIEWWATCH_HTTP_HOST)')
    .option(
      '--port <port>',
      'listen on this port, 0 for a free one (default: http.port, or REVIEWWATCH_HTTP_PORT)',
    )
    .action(async (options: ServeOptions, command: Command) => {
      const settings = settingsFor(command);
      const logger = loggerFor(command);
      let port = settings.http.port;
      if (options.port !== undefined) {
        port = /^\d{1,5}$/.test(options.port) ? Number(options.port) : Number.NaN;
        if (!(port >= 0 && port <= 65_535)) {
          throw new ReviewwatchError(`--port must be a port number from 0 to 65535, got "${options.port}"`, {
            exitCode: ExitCode.Usage,
          });
        }
      }
      const releasers = await serve(settings, logger, { host: options.host ?? settings.http.host, port });
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      const errors = await releasers.releaseAll();
      for (const err of errors) logger.error(err.message);
      logger.info('stopped');
    });
}
