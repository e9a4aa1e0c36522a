import { Command } from 'commander';
import { ExitCode, ReviewwatchError } from '../../errors.js';
import { startWorker } from '../../root/worker.js';
import { listUsers } from '../../store/users.js';
import { loggerFor, settingsFor } from '../context.js';

interface ServeOptions {
  host?: string;
  port?: string;
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
      const server = await startWorker(settings, {
        mode: 'serve',
        logger,
        listen: { host: options.host ?? settings.http.host, port },
      });
      if (listUsers(server.store.db).length === 0) {
        logger.warn(
          `nobody can log in yet: add a user with \`reviewwatch user add NAME\`${settings.admin.token ? '' : ', or set REVIEWWATCH_ADMIN_TOKEN for scripts'}`,
        );
      }
      logger.info(`inbox at ${server.url}/`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      await server.stop();
      logger.info('stopped');
    });
}
