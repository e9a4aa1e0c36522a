import { Command } from 'commander';
import { formatDuration, routingWarnings } from '../../config/index.js';
import { STOP_GRACE_MS, startWorker } from '../../root/worker.js';
import { plural } from '../../util/plural.js';
import { loggerFor, runUntilSignal, settingsFor } from '../context.js';

export function startCommand(): Command {
  return new Command('start')
    .description('run the poll schedulers and workers until SIGINT/SIGTERM')
    .action(async (_options, command: Command) => {
      const settings = settingsFor(command);
      const logger = loggerFor(command);
      const worker = await startWorker(settings, { mode: 'service', logger });
      const { apps, poll } = settings.config;
      const every =
        poll.schedule === 'fixed'
          ? `every ${formatDuration(poll.every)}`
          : `each at its own pace (poll.schedule: ${poll.schedule}, every ${formatDuration(poll.minEvery)} to ${formatDuration(poll.maxEvery)}; \`reviewwatch status\` shows them)`;
      logger.info(`watching ${plural(apps.length, 'app')} ${every}; Ctrl-C to stop`);
      for (const warning of routingWarnings(settings.config)) logger.warn(warning);
      await runUntilSignal(worker, logger, {
        onStopping: (signal) =>
          logger.info(
            `${signal}: stopping after the polls in flight (up to ${STOP_GRACE_MS / 1000}s; again to exit now)`,
          ),
      });
      logger.info('stopped');
    });
}
