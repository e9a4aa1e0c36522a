import { Command } from 'commander';
import { formatDuration } from '../../config/index.js';
import { type OpsServer, opsServerAddress, startOpsServer } from '../../ops/server.js';
import { startDigestService } from '../../queue/digest-worker.js';
import { SWEEP_JOB } from '../../queue/names.js';
import { enqueueMessages } from '../../queue/notify-worker.js';
import { syncPollSchedulers } from '../../queue/schedulers.js';
import { createServices } from '../../queue/services.js';
import { openRuntime } from '../../runtime.js';
import { undeliveredMessages } from '../../store/outbox.js';
import { loggerFor, settingsFor } from '../context.js';

/** How long a stop waits for polls in flight before abandoning them (they are retried next time). */
const STOP_GRACE_MS = 30_000;

/** How often the outbox is checked for messages that never reached the notify queue. */
const SWEEP_EVERY_MS = 60_000;

export function startCommand(): Command {
  return new Command('start')
    .description('run the poll schedulers and workers until SIGINT/SIGTERM')
    .action(async (_options, command: Command) => {
      const settings = settingsFor(command);
      const logger = loggerFor(command);
      const rt = await openRuntime(settings, logger);
      const services = createServices(rt, {
        onFatal: (err) => {
          if (services.pollWorker.isPaused()) return;
          logger.error(`${err.message} Polling is paused; restart reviewwatch once it is fixed.`);
          void services.pollWorker.pause(true);
        },
      });
      const { config } = rt;
      await syncPollSchedulers(
        services.pollQueue,
        rt.redis,
        config.apps.map((app) => app.handle),
        config.poll.every,
        services.retry,
        logger,
      );
      // Whatever a crash or a flushed Redis left undelivered goes out now; the sweep catches the rest.
      const undelivered = undeliveredMessages(rt.store.db);
      await enqueueMessages(services.notifyQueue, undelivered);
      if (undelivered.length > 0)
        logger.info(`re-enqueued ${undelivered.length} undelivered notification(s)`);
      await services.notifyQueue.upsertJobScheduler(
        'notify-sweep',
        { every: SWEEP_EVERY_MS },
        { name: SWEEP_JOB },
      );
      services.run();
      const digest = await startDigestService(
        { config, store: rt.store, senders: rt.senders, logger },
        { connection: rt.redis, prefix: rt.queuePrefix },
      );
      let ops: OpsServer | undefined;
      if (config.http.enabled) {
        try {
          ops = await startOpsServer({
            ...opsServerAddress(config.http, process.env),
            deps: {
              redis: rt.redis,
              store: rt.store,
              queues: [services.pollQueue, services.notifyQueue, digest.queue],
              metrics: rt.metrics,
            },
            logger,
          });
        } catch (err) {
          // A port already taken is a reason not to run: stop what started, then report it.
          await services.close(STOP_GRACE_MS);
          await digest.close();
          await rt.close();
          throw err;
        }
      }
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
      await services.close(STOP_GRACE_MS);
      await digest.close();
      // After the workers: /readyz and /metrics keep answering while the polls in flight finish.
      await ops?.close();
      await rt.close();
      logger.info('stopped');
    });
}
