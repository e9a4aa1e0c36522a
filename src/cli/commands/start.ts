import { Command } from 'commander';
import { formatDuration } from '../../config/index.js';
import { createPollService } from '../../queue/poll-service.js';
import { syncPollSchedulers } from '../../queue/schedulers.js';
import { openRuntime } from '../../runtime.js';
import { loggerFor, settingsFor } from '../context.js';

/** How long a stop waits for polls in flight before abandoning them (they are retried next time). */
const STOP_GRACE_MS = 30_000;

export function startCommand(): Command {
  return new Command('start')
    .description('run the poll schedulers and workers until SIGINT/SIGTERM')
    .action(async (_options, command: Command) => {
      const settings = settingsFor(command);
      const logger = loggerFor(command);
      const rt = await openRuntime(settings, logger);
      const service = createPollService(rt, {
        onFatal: (err) => {
          if (service.worker.isPaused()) return;
          logger.error(`${err.message} Polling is paused; restart reviewwatch once it is fixed.`);
          void service.worker.pause(true);
        },
      });
      const { config } = rt;
      await syncPollSchedulers(
        service.queue,
        rt.redis,
        config.apps.map((app) => app.handle),
        config.poll.every,
        service.retry,
        logger,
      );
      void service.worker.run();
      logger.info(
        `watching ${config.apps.length} app${config.apps.length === 1 ? '' : 's'} every ${formatDuration(config.poll.every)}; Ctrl-C to stop`,
      );

      await new Promise<void>((resolve) => {
        let stopping = false;
        const stop = (signal: NodeJS.Signals) => {
          if (stopping) {
            logger.warn(`${signal} again: exiting now`);
            process.exit(130);
          }
          stopping = true;
          logger.info(
            `${signal}: stopping after the polls in flight (up to ${STOP_GRACE_MS / 1000}s; again to exit now)`,
          );
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      await service.close(STOP_GRACE_MS);
      await rt.close();
      logger.info('stopped');
    });
}
