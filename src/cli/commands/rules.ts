import { Command, InvalidArgumentError } from 'commander';
import { alertPolicyOf } from '../../alerts/policy.js';
import { replayReviews } from '../../alerts/replay.js';
import { withResources } from '../../root/resources.js';
import { PRIORITIES } from '../../scoring/priority.js';
import { reviewsSince } from '../../store/history.js';
import type { ReviewRow } from '../../store/schema.js';
import { type Taxonomy, topicsOf } from '../../topics/index.js';
import { settingsFor } from '../context.js';
import { stars, terminalSafe } from '../format.js';

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number of days.');
  return n;
}

/**
 * The topics this config gives the stored reviews of the period, each with how many and one review's
 * words that put it there: custom topics (`topics:`) can be tuned on real history before a start.
 */
function topicLines(reviews: readonly ReviewRow[], taxonomy: Taxonomy, days: number): string[] {
  const found = new Map<string, { reviews: number; example: string }>();
  let none = 0;
  for (const review of reviews) {
    const topics = topicsOf(review.content, taxonomy);
    if (topics.length === 0) none++;
    for (const topic of topics) {
      const entry = found.get(topic.name) ?? { reviews: 0, example: topic.words.join(', ') };
      entry.reviews++;
      found.set(topic.name, entry);
    }
  }
  const share = (n: number) => (reviews.length === 0 ? '0%' : `${Math.round((n / reviews.length) * 100)}%`);
  const width = Math.max(4, ...[...found.keys()].map((name) => name.length));
  return [
    `Topics under this config, on ${reviews.length} stored review(s) of the last ${days} days (any stars):`,
    ...[...found]
      .sort(([a, x], [b, y]) => y.reviews - x.reviews || a.localeCompare(b))
      .map(
        ([name, e]) =>
          `  ${name.padEnd(width)}  ${String(e.reviews).padStart(5)} (${share(e.reviews)})  e.g. "${terminalSafe(e.example)}"`,
      ),
    `  ${'none'.padEnd(width)}  ${String(none).padStart(5)} (${share(none)})`,
  ];
}

export function rulesCommand(): Command {
  const rules = new Command('rules').description('alert rules');
  rules
    .command('test')
    .description(
      'replay stored reviews through the current scoring and routing, sending nothing, and show the topics the config gives them',
    )
    .option('--days <n>', 'how far back', positive, 30)
    .option('--show <n>', 'alerts listed per channel', (v) => Math.max(0, Math.floor(Number(v))), 5)
    .action(async (options: { days: number; show: number }, command: Command) => {
      const settings = settingsFor(command);
      const policy = alertPolicyOf(settings.config);
      const since = new Date(Date.now() - options.days * 86_400_000);
      const stored = await withResources(settings, ({ store }) =>
        reviewsSince(store.db, [...policy.apps.keys()], since),
      );
      const result = replayReviews(stored, policy);
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
      out.push('', ...topicLines(stored, policy.scoring.topics, options.days));
      process.stdout.write(`${out.join('\n')}\n`);
    });
  return rules;
}
