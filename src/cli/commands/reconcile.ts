import { Command } from 'commander';
import { ExitCode, ReviewwatchError } from '../../errors.js';
import { startWorker } from '../../root/worker.js';
import { plural } from '../../util/plural.js';
import type { ReconcileOutcome } from '../../watch/reconcile.js';
import { reconcileNow } from '../actions/reconcile.js';
import { loggerFor, settingsFor } from '../context.js';
import { reportDeliveries, seconds } from './poll.js';

interface ReconcileCommandOptions {
  app?: string;
  wait: number;
}

function outcomeLine(outcome: ReconcileOutcome): string {
  const requests = plural(outcome.requests, 'request');
  if (outcome.status === 'skipped') return `${outcome.handle}: skipped: ${outcome.note ?? ''}`;
  if (outcome.status === 'unavailable')
    return `${outcome.handle}: unavailable: ${outcome.note ?? ''} (${requests})`;
  const parts = [
    outcome.found > 0 ? `${outcome.found} found late` : '',
    outcome.edited > 0 ? `${plural(outcome.edited, 'missed edit')}` : '',
    outcome.merged > 0 ? `${outcome.merged} merged` : '',
    outcome.removed > 0 ? `${outcome.removed} removed` : '',
    outcome.restored > 0 ? `${outcome.restored} restored` : '',
    outcome.alerted > 0 ? plural(outcome.alerted, 'alert') : '',
  ].filter((part) => part !== '');
  const said = parts.length > 0 ? parts.join(', ') : 'matches the listing';
  const note = outcome.note ? `; ${outcome.note}` : '';
  return `${outcome.handle}: ${said} (${requests}${note})`;
}

export function reconcileCommand(): Command {
  return new Command('reconcile')
    .description(
      'deep-check watched apps now: store reviews the polls missed, mark removed and restored ones, merge edits',
    )
    .option('--app <handle>', 'reconcile only this watched app')
    .option('--wait <seconds>', 'how long to wait for the notifications to be delivered', seconds, 120)
    .action(async (options: ReconcileCommandOptions, command: Command) => {
      const settings = settingsFor(command);
      const { config } = settings;
      const watched = config.apps.map((app) => app.handle);
      if (options.app !== undefined && !watched.includes(options.app)) {
        throw new ReviewwatchError(
          `"${options.app}" is not a watched app in ${settings.configPath} (watched: ${watched.join(', ')}).`,
          { exitCode: ExitCode.Usage },
        );
      }
      const handles = options.app === undefined ? watched : [options.app];
      const worker = await startWorker(settings, { mode: 'once', logger: loggerFor(command) });
      let failed = 0;
      let unusable: string | undefined;
      try {
        process.stdout.write(
          `Reconciling ${plural(handles.length, 'app')} (up to ${plural(config.poll.reconcilePages, 'page')} each)…\n`,
        );
        const run = await reconcileNow(worker, handles, (result, done) => {
          const line =
            'outcome' in result ? outcomeLine(result.outcome) : `${result.handle}: failed: ${result.error}`;
          process.stdout.write(`[${done}/${handles.length}] ${line}\n`);
        });
        const { results } = run;
        unusable = run.unusable;
        const outcomes = results.flatMap((r) => ('outcome' in r ? [r.outcome] : []));
        failed = handles.length - outcomes.length;
        const requests = results.reduce((n, r) => n + ('outcome' in r ? r.outcome.requests : r.requests), 0);
        const sum = (key: 'found' | 'removed' | 'restored' | 'merged' | 'edited' | 'alerted') =>
          outcomes.reduce((n, o) => n + o[key], 0);
        const reconciled = outcomes.filter((o) => o.status === 'ok').length;
        process.stdout.write(
          `\nReconciled ${reconciled} of ${plural(handles.length, 'app')} with ${plural(requests, 'API request')}: ${sum('found')} found late (${plural(sum('alerted'), 'alert')}), ${sum('edited')} missed edits, ${sum('merged')} merged, ${sum('removed')} removed, ${sum('restored')} restored.\n`,
        );
        for (const r of results) if ('error' in r) process.stdout.write(`failed: ${r.handle}: ${r.error}\n`);
        if (unusable) process.stdout.write(`stopped: ${unusable}\n`);
        const deliveryIds = outcomes.flatMap((o) => o.messages.flatMap((m) => m.deliveryIds));
        if (deliveryIds.length > 0) {
          process.stdout.write(`Delivering ${plural(deliveryIds.length, 'notification')}…\n`);
          const states = await worker.settle(deliveryIds, { timeoutMs: options.wait * 1000 });
          failed += reportDeliveries(states);
        }
      } finally {
        await worker.stop();
      }
      if (unusable) process.exitCode = ExitCode.Unavailable;
      else if (failed > 0) process.exitCode = ExitCode.Failure;
    });
}
