import { randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import { Command } from 'commander';
import { ExitCode, errorMessage, ReviewwatchError } from '../../errors.js';
import { POLL_JOB, POLL_QUEUE } from '../../queue/names.js';
import { createPollService } from '../../queue/poll-service.js';
import { type PollJobResult, pollJobOptions } from '../../queue/poll-worker.js';
import { openRuntime } from '../../runtime.js';
import { loggerFor, settingsFor } from '../context.js';
import { formatLowRated, formatPollLine } from '../format.js';

interface PollCommandOptions {
  once?: boolean;
  app?: string;
}

export function pollCommand(): Command {
  return new Command('poll')
    .description('poll watched apps now, through the queues and workers, and print what was found')
    .option('--once', 'poll once and exit (the only mode for now)')
    .option('--app <handle>', 'poll only this watched app')
    .action(async (options: PollCommandOptions, command: Command) => {
      const settings = settingsFor(command);
      const watched = settings.config.apps.map((app) => app.handle);
      if (options.app !== undefined && !watched.includes(options.app)) {
        throw new ReviewwatchError(
          `"${options.app}" is not a watched app in ${settings.configPath} (watched: ${watched.join(', ')}).`,
          { exitCode: ExitCode.Usage },
        );
      }
      const handles = options.app === undefined ? watched : [options.app];
      const rt = await openRuntime(settings, loggerFor(command));
      const service = createPollService(rt);
      const events = new QueueEvents(POLL_QUEUE, { connection: rt.redis, prefix: rt.queuePrefix });
      let failed = 0;
      try {
        await events.waitUntilReady();
        void service.worker.run();
        const run = randomUUID().slice(0, 8);
        const jobs = await service.queue.addBulk(
          handles.map((handle) => ({
            name: POLL_JOB,
            data: { handle },
            opts: { ...pollJobOptions(service.retry), jobId: `once-${run}-${handle}` },
          })),
        );
        process.stdout.write(`Polling ${handles.length} app${handles.length === 1 ? '' : 's'}…\n`);
        let done = 0;
        const results = await Promise.all(
          jobs.map(async (job, i) => {
            const handle = handles[i] as string;
            try {
              const result = (await job.waitUntilFinished(events)) as PollJobResult;
              if (result.status === 'unavailable') failed++;
              process.stdout.write(`[${++done}/${handles.length}] ${formatPollLine(result)}\n`);
              return result;
            } catch (err) {
              failed++;
              process.stdout.write(`[${++done}/${handles.length}] ${handle}: failed: ${errorMessage(err)}\n`);
              return undefined;
            }
          }),
        );
        const lowRated = results.flatMap((r) =>
          r ? r.lowRated.map((review) => ({ handle: r.handle, review })) : [],
        );
        const requests = results.reduce((sum, r) => sum + (r?.requests ?? 0), 0);
        process.stdout.write(
          `\nDone: ${handles.length - failed} of ${handles.length} apps polled, ${requests} API requests, ${lowRated.length} new low-rated review${lowRated.length === 1 ? '' : 's'}.\n`,
        );
        if (lowRated.length > 0) process.stdout.write(`${formatLowRated(lowRated)}\n`);
      } finally {
        await service.close();
        await events.close();
        await rt.close();
      }
      if (failed > 0) process.exitCode = ExitCode.Failure;
    });
}
