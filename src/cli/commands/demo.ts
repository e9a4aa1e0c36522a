import { Command, InvalidArgumentError } from 'commander';
import { alreadyOnScreen, DEMO_APPS, DEMO_CATEGORY, DEMO_RIVAL, startDemo } from '../../demo.js';
import { loggerFor, runUntilSignal } from '../context.js';

function minutes(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number of minutes.');
  return n;
}

export function demoCommand(): Command {
  return new Command('demo')
    .description(
      'see it work in a minute: a simulated marketplace, alerts in this terminal, the triage inbox (Ctrl-C stops)',
    )
    .option('--minutes <n>', 'stop by itself after this many minutes', minutes)
    .action(async (options: { minutes?: number }, command: Command) => {
      // One short line an event, none for what an alert on the screen already says (docs/cli.md).
      const logger = loggerFor(command, { omit: alreadyOnScreen });
      const demo = await startDemo(logger);
      process.stdout.write(
        [
          '',
          `reviewwatch demo: watching ${DEMO_APPS.join(', ')} (and a competitor, ${DEMO_RIVAL}) in a simulated marketplace.`,
          'A review arrives every few seconds; the low ones show up below as alerts, scored and explained.',
          'Watch for a burst of bad reviews (a possible incident) and the rating drop it causes.',
          `The market of ${DEMO_CATEGORY} runs a day every 40 s: within two minutes the competitor cuts its price,`,
          'a new app enters and climbs, and acme-bundles falls eight places, each alert saying why.',
          'About a minute in, six merchants complain about one integration: one topic spike says what, with quotes.',
          `Alerts go to: ${Object.keys(demo.config.channels).join(', ')}. Ctrl-C stops.`,
          '',
          `Triage them in the inbox: ${demo.inbox.url}`,
          `  log in as "${demo.inbox.user}" with the password ${demo.inbox.password}`,
          '  (made for this run, on this machine only; the account ends when the demo stops)',
          '',
        ].join('\n'),
      );
      try {
        // The demo, not only its worker: its stop also ends the demo user while the database is open.
        await runUntilSignal(demo, logger, {
          ...(options.minutes ? { afterMs: options.minutes * 60_000 } : {}),
          onStopping: () => process.stdout.write('\nStopping the demo…\n'),
        });
      } finally {
        await demo.stop();
      }
    });
}
