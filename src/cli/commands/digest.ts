import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import {
  collectDigest,
  type DigestPeriod,
  digestInputOf,
  periodBetween,
  previousWeek,
} from '../../digest/index.js';
import { sendDigest } from '../../digest/send.js';
import { ExitCode, ReviewwatchError } from '../../errors.js';
import { coverageNote, renderDigestEmail } from '../../render/index.js';
import { catalogTargetOf } from '../../root/catalog.js';
import { withResources } from '../../root/resources.js';
import { loggerFor, settingsFor } from '../context.js';

interface DigestOptions {
  send?: boolean;
  preview?: boolean;
  since?: string;
  until?: string;
  out?: string;
}

function date(name: string, value: string): Date {
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) {
    throw new ReviewwatchError(
      `--${name} "${value}" is not an ISO date (e.g. 2026-11-16 or 2026-11-16T00:00:00Z)`,
      {
        exitCode: ExitCode.Usage,
      },
    );
  }
  return parsed;
}

export function digestCommand(): Command {
  return new Command('digest')
    .description(
      'render (--preview) or send (--send) the weekly digest; by default for the last complete week',
    )
    .option('--send', 'send it now to digest.channels (once per period and channel)')
    .option('--preview', 'render it without sending: the text version, or HTML with --out')
    .option('--since <iso>', 'period start (default: the last complete week in digest.timezone)')
    .option('--until <iso>', 'period end (default: now when --since is given)')
    .option('--out <file>', 'with --preview: write the HTML email to this file')
    .action(async (options: DigestOptions, command: Command) => {
      if (Boolean(options.send) === Boolean(options.preview)) {
        throw new ReviewwatchError('say --send or --preview', { exitCode: ExitCode.Usage });
      }
      const settings = settingsFor(command);
      // The same contract as start and poll: a digest of a misconfigured install is no digest at all.
      catalogTargetOf(settings);
      const { config } = settings;
      const { timezone } = config.digest;
      const now = new Date();
      const period: DigestPeriod =
        options.since || options.until
          ? periodBetween(
              options.since ? date('since', options.since) : new Date(now.getTime() - 7 * 86_400_000),
              options.until ? date('until', options.until) : now,
              timezone,
            )
          : previousWeek(now, timezone);
      await withResources(settings, async ({ store, senders }) => {
        if (options.preview) {
          const data = collectDigest(store.db, digestInputOf(config, period, now));
          const inboxUrl = config.web.publicUrl;
          const email = renderDigestEmail(data, {
            simulated: settings.simulated,
            ...(inboxUrl ? { inboxUrl } : {}),
          });
          if (options.out) {
            writeFileSync(options.out, email.html);
            const note = coverageNote(data.coverage, period.timezone);
            process.stdout.write(
              `Subject: ${email.subject}\nWrote the HTML digest for ${period.label} to ${options.out}\n${note === undefined ? '' : `Note: ${note}\n`}`,
            );
          } else {
            process.stdout.write(`Subject: ${email.subject}\n\n${email.text}\n`);
          }
          return;
        }
        if (config.digest.channels.length === 0) {
          throw new ReviewwatchError(
            `${settings.configPath}: digest.channels is empty: nowhere to send the digest`,
            { exitCode: ExitCode.Usage },
          );
        }
        const outcomes = await sendDigest(
          { config, store, senders: senders(), logger: loggerFor(command), simulated: settings.simulated },
          period,
          now,
        );
        const unwatched = outcomes.find((o) => o.status === 'not-watched');
        if (unwatched) {
          // Not a failure: nothing was owed. Said once, not per channel.
          process.stdout.write(`nothing sent for ${period.label}: ${unwatched.reason}\n`);
          return;
        }
        for (const o of outcomes) {
          const line =
            o.status === 'sent'
              ? `sent to ${o.channel}: ${o.subject}`
              : o.status === 'already-sent'
                ? `${o.channel}: already sent for ${period.label}, nothing sent`
                : o.status === 'busy'
                  ? `${o.channel}: another reviewwatch is sending it right now`
                  : `${o.channel}: failed: ${o.error}`;
          process.stdout.write(`${line}\n`);
        }
        if (outcomes.some((o) => o.status === 'failed')) process.exitCode = ExitCode.Failure;
      });
    });
}
