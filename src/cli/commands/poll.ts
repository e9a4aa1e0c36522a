import { Command, InvalidArgumentError } from 'commander';
import { ExitCode, ReviewwatchError } from '../../errors.js';
import { lowReviewsSince } from '../../store/history.js';
import { type DeliveryState, deliveriesRaisedSince } from '../../store/outbox.js';
import { startWorker } from '../../worker.js';
import { loggerFor, settingsFor } from '../context.js';
import { formatLowRated, formatPollLine } from '../format.js';

interface PollCommandOptions {
  once?: boolean;
  app?: string;
  wait: number;
  timeout: number;
}

/** The new low reviews a run lists, newest first; more are counted, and `status` and the inbox show them. */
const LOW_REVIEWS_SHOWN = 1_000;

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
        logger: loggerFor(command),
        onFatal: () => {
          unusable = true;
        },
      });
      let failed = 0;
      let timedOut = false;
      // What happened to these apps from now on is this run's to report, whichever job did it.
      const since = new Date();
      try {
        process.stdout.write(`Polling ${handles.length} app${handles.length === 1 ? '' : 's'}…\n`);
        let done = 0;
        const outcomes = await worker.pollNow(handles, {
          timeoutMs: options.timeout * 1000,
          onResult: (outcome) =>
            process.stdout.write(
              `[${++done}/${handles.length}] ${outcome.result ? formatPollLine(outcome.result) : `${outcome.handle}: failed: ${outcome.error}`}\n`,
            ),
        });
        // An app the API no longer knows, or that could not be polled in time, fails the run.
        const polled = outcomes.filter(
          (o) => o.result && o.result.status !== 'skipped' && o.result.status !== 'unavailable',
        ).length;
        failed += outcomes.length - polled;
        const { db } = worker.store;
        const maxRating = settings.config.alerts.lowRating.maxRating;
        const lowRated = handles.flatMap((handle) =>
          lowReviewsSince(db, handle, since, maxRating, LOW_REVIEWS_SHOWN).map((review) => ({
            handle,
            review,
          })),
        );
        process.stdout.write(
          `\nPolled ${polled} of ${handles.length} apps with ${worker.requests()} API requests: ${lowRated.length} new low-rated review${lowRated.length === 1 ? '' : 's'}.\n`,
        );
        if (lowRated.length > 0) process.stdout.write(`${formatLowRated(lowRated)}\n`);
        for (const o of outcomes) {
          if (o.error !== undefined) process.stdout.write(`failed: ${o.handle}: ${o.error}\n`);
          else if (o.result?.status === 'skipped')
            process.stdout.write(`skipped: ${o.handle}: ${o.result.skippedBecause ?? 'not polled'}\n`);
        }
        timedOut = outcomes.some((o) => o.error?.startsWith('did not finish in time'));
        const deliveryIds = deliveriesRaisedSince(db, handles, since);
        if (deliveryIds.length > 0) {
          process.stdout.write(
            `Delivering ${deliveryIds.length} notification${deliveryIds.length === 1 ? '' : 's'}…\n`,
          );
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
