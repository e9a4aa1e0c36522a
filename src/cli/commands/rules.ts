import { Command, InvalidArgumentError } from 'commander';
import { alertPolicyOf } from '../../alerts/policy.js';
import { replayReviews } from '../../alerts/replay.js';
import { withResources } from '../../root/resources.js';
import { PRIORITIES } from '../../scoring/priority.js';
import { reviewsSince } from '../../store/history.js';
import { settingsFor } from '../context.js';
import { stars, terminalSafe } from '../format.js';

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number of days.');
  return n;
}

export function rulesCommand(): Command {
  const rules = new Command('rules').description('alert rules');
  rules
    .command('test')
    .description('replay stored reviews through the current scoring and routing, sending nothing')
    .option('--days <n>', 'how far back', positive, 30)
    .option('--show <n>', 'alerts listed per channel', (v) => Math.max(0, Math.floor(Number(v))), 5)
    .action(async (options: { days: number; show: number }, command: Command) => {
      const settings = settingsFor(command);
      const policy = alertPolicyOf(settings.config);
      const since = new Date(Date.now() - options.days * 86_400_000);
      const result = await withResources(settings, ({ store }) =>
        replayReviews(reviewsSince(store.db, [...policy.apps.keys()], since), policy),
      );
      const out: string[] = [
        `${result.reviews} low review(s) (≤ ${policy.maxRating}★) in the last ${options.days} days, under the current rules:`,
      ];
      for (const name of Object.keys(settings.config.channels)) {
        const alerts = result.byChannel.get(name) ?? [];
        const byPriority = PRIORITIES.map(
          (p) => [p, alerts.filter((a) => a.severity.priority === p).length] as const,
        )
          .filter(([, n]) => n > 0)
          .map(([p, n]) => `${n} ${p}`);
        out.push(
          `\n${name}: ${alerts.length} alert(s)${byPriority.length ? ` (${byPriority.join(', ')})` : ''}`,
        );
        for (const a of alerts.slice(0, options.show)) {
          const text = terminalSafe(a.review.content);
          out.push(
            `  ${a.severity.priority.toUpperCase().padEnd(8)} ${String(a.severity.score).padStart(3)}  ${stars(a.review.rating)} ${a.app}: ${text.length > 70 ? `${text.slice(0, 69)}…` : text || '(no text)'}`,
            `           ${a.severity.reasons.join('; ')}`,
          );
        }
        if (alerts.length > options.show) out.push(`  … and ${alerts.length - options.show} more`);
      }
      if (result.unrouted.length > 0) out.push(`\n${result.unrouted.length} would reach no channel.`);
      process.stdout.write(`${out.join('\n')}\n`);
    });
  return rules;
}
