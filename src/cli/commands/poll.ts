import { randomUUID } from 'node:crypto';
import { QueueEvents } from 'bullmq';
import { Command } from 'commander';
import { ExitCode, errorMessage, ReviewwatchError } from '../../errors.js';
import { POLL_JOB, POLL_QUEUE } from '../../queue/names.js';
import { type PollJobResult, pollJobOptions } from '../../queue/poll-worker.js';
import { createServices } from '../../queue/services.js';
import { openRuntime, type Runtime } from '../../runtime.js';
import { deliveryStates } from '../../store/outbox.js';
import { loggerFor, settingsFor } from '../context.js';
import { formatLowRated, formatPollLine } from '../format.js';

interface PollCommandOptions {
  once?: boolean;
  app?: string;
  wait: string;
}

export function pollCommand(): Command {
  return new Command('poll')
    .description('poll watched apps now through the queues and workers, deliver what it raises, and report')
    .option('--once', 'poll once and exit (the only mode for now)')
    .option('--app <handle>', 'poll only this watched app')
    .option('--wait <seconds>', 'how long to wait for the notifications to be delivered', '120')
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
      // A rejected key or no credits: say so with the exit code for an unusable service.
      let unusable = false;
      const services = createServices(rt, {
        onFatal: () => {
          unusable = true;
        },
      });
      const events = new QueueEvents(POLL_QUEUE, { connection: rt.redis, prefix: rt.queuePrefix });
      let failed = 0;
      try {
        await events.waitUntilReady();
        services.run();
        const results = await pollAll(rt, services, events, handles);
        failed += results.filter((r) => r === undefined || r.status === 'unavailable').length;
        const polled = results.filter((r): r is PollJobResult => r !== undefined);
        const lowRated = polled.flatMap((r) => r.lowRated.map((review) => ({ handle: r.handle, review })));
        const requests = polled.reduce((sum, r) => sum + r.requests, 0);
        process.stdout.write(
          `\nPolled ${handles.length - failed} of ${handles.length} apps with ${requests} API requests: ${lowRated.length} new low-rated review${lowRated.length === 1 ? '' : 's'}.\n`,
        );
        if (lowRated.length > 0) process.stdout.write(`${formatLowRated(lowRated)}\n`);
        const deliveryIds = polled.flatMap((r) => r.deliveryIds);
        if (deliveryIds.length > 0)
          failed += await awaitDeliveries(rt, deliveryIds, Number(options.wait) * 1000);
      } finally {
        await services.close();
        await events.close();
        await rt.close();
      }
      if (failed > 0) process.exitCode = unusable ? ExitCode.Unavailable : ExitCode.Failure;
    });
}

async function pollAll(
  rt: Runtime,
  services: ReturnType<typeof createServices>,
  events: QueueEvents,
  handles: string[],
): Promise<Array<PollJobResult | undefined>> {
  const run = randomUUID().slice(0, 8);
  const jobs = await services.pollQueue.addBulk(
    handles.map((handle) => ({
      name: POLL_JOB,
      data: { handle },
      opts: { ...pollJobOptions(services.retry), jobId: `once-${run}-${handle}` },
    })),
  );
  process.stdout.write(`Polling ${handles.length} app${handles.length === 1 ? '' : 's'}…\n`);
  let done = 0;
  return Promise.all(
    jobs.map(async (job, i) => {
      const handle = handles[i] as string;
      try {
        const result = (await job.waitUntilFinished(events)) as PollJobResult;
        process.stdout.write(`[${++done}/${handles.length}] ${formatPollLine(result)}\n`);
        return result;
      } catch (err) {
        process.stdout.write(`[${++done}/${handles.length}] ${handle}: failed: ${errorMessage(err)}\n`);
        rt.logger.debug({ app: handle }, 'poll failed');
        return undefined;
      }
    }),
  );
}

/** Waits until every delivery is sent, failed or held by a throttle; returns how many failed. */
async function awaitDeliveries(rt: Runtime, ids: number[], timeoutMs: number): Promise<number> {
  process.stdout.write(`Delivering ${ids.length} notification${ids.length === 1 ? '' : 's'}…\n`);
  const deadline = Date.now() + timeoutMs;
  let states = deliveryStates(rt.store.db, ids);
  let shown = -1;
  while (states.some((s) => s.status === 'pending') && Date.now() < deadline) {
    const settled = states.filter((s) => s.status !== 'pending').length;
    if (settled !== shown) process.stdout.write(`  ${settled}/${ids.length} settled\n`);
    shown = settled;
    await new Promise((resolve) => setTimeout(resolve, 200));
    states = deliveryStates(rt.store.db, ids);
  }
  const count = (status: string) => states.filter((s) => s.status === status).length;
  const byChannel = new Map<string, { sent: number; failed: number; held: number; pending: number }>();
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
  return count('failed') + count('pending');
}
