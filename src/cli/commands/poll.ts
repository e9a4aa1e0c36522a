import { Command, InvalidArgumentError } from 'commander';
import { ExitCode, ReviewwatchError } from '../../errors.js';
import { startWorker } from '../../root/worker.js';
import type { DeliveryState } from '../../store/outbox.js';
import { plural } from '../../util/plural.js';
import { pollOnce } from '../actions/poll-once.js';
import { loggerFor, settingsFor } from '../context.js';
import { formatLowRated, formatPollLine } from '../format.js';

interface PollCommandOptions {
  once?: boolean;
  app?: string;
  wait: number;
  timeout: number;
}

export function seconds(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new InvalidArgumentError('must be a positive number of seconds.');
  }
  return n;
}

export function pollCommand(): Command {
  return new Command('poll')
    .description('poll watched apps now through the queues and workers, deliver what it raises, and report')
    .option('--once', 'poll once and exit (the only mode for now)')
    .option('--app <handle>', 'poll only this watched app')
    .option('--timeout <seconds>', 'stop waiting for polls (retries included) after this long', seconds, 60)
    .option('--wait <seconds>', 'how long to wait for the notifications to be delivered', seconds, 120)
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
      // A rejected key or no credits: say so with the exit code for an unusable service.
      let unusable = false;
      const worker = await startWorker(settings, {
        mode: 'once',
        logger: loggerFor(command),
        onFatal: () => {
          unusable = true;
        },
      });
      let failed = 0;
      let timedOut = false;
      try {
        process.stdout.write(`Polling ${plural(handles.length, 'app')}…\n`);
        let done = 0;
        const report = await pollOnce(worker, handles, {
          timeoutMs: options.timeout * 1000,
          onResult: (outcome) =>
            process.stdout.write(
              `[${++done}/${handles.length}] ${outcome.result ? formatPollLine(outcome.result) : `${outcome.handle}: failed: ${outcome.error}`}\n`,
            ),
        });
        const { outcomes, lowRated, deliveryIds } = report;
        // An app the API no longer knows, or that could not be polled in time, fails the run.
        failed += outcomes.length - report.polled;
        timedOut = report.timedOut;
        process.stdout.write(
          `\nPolled ${report.polled} of ${handles.length} apps with ${worker.requests()} API requests: ${plural(lowRated.length, 'new low-rated review')}.\n`,
        );
        if (lowRated.length > 0) process.stdout.write(`${formatLowRated(lowRated)}\n`);
        for (const o of outcomes) {
          if (o.error !== undefined) process.stdout.write(`failed: ${o.handle}: ${o.error}\n`);
          else if (o.result?.status === 'skipped')
            process.stdout.write(`skipped: ${o.handle}: ${o.result.skippedBecause ?? 'not polled'}\n`);
        }
        if (deliveryIds.length > 0) {
          process.stdout.write(`Delivering ${plural(deliveryIds.length, 'notification')}…\n`);
          const states = await worker.settle(deliveryIds, {
            timeoutMs: options.wait * 1000,
            onProgress: (settled) => process.stdout.write(`  ${settled}/${deliveryIds.length} settled\n`),
          });
          failed += reportDeliveries(states);
        }
      } finally {
        // A poll still running past the timeout is abandoned: it ends when its request times out.
        await (timedOut ? worker.kill() : worker.stop());
      }
      if (failed > 0) process.exitCode = unusable ? ExitCode.Unavailable : ExitCode.Failure;
    });
}

/** Prints what became of each channel's deliveries; returns how many failed or are still pending. */
export function reportDeliveries(states: DeliveryState[]): number {
  const byChannel = new Map<string, Record<DeliveryState['status'], number>>();
  for (const s of states) {
    const entry = byChannel.get(s.channel) ?? { sent: 0, failed: 0, held: 0, pending: 0 };
    entry[s.status]++;
    byChannel.set(s.channel, entry);
  }
  for (const [channel, c] of byChannel) {
    const parts = [`${c.sent} delivered`];
    if (c.failed) parts.push(`${c.failed} failed`);
    if (c.held) parts.push(`${c.held} held by the throttle for the next grouped message`);
    if (c.pending) parts.push(`${c.pending} still pending (they stay in the outbox)`);
    process.stdout.write(`  ${channel}: ${parts.join(', ')}\n`);
  }
  for (const s of states.filter((s) => s.status === 'failed')) {
    process.stdout.write(`  failed: ${s.appHandle} → ${s.channel}: ${s.lastError ?? 'unknown error'}\n`);
  }
  return states.filter((s) => s.status === 'failed' || s.status === 'pending').length;
}
