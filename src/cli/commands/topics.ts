/**
 * `reviewwatch topics`: what reviewers talk about, as /topics shows it (docs/cli.md, "topics"): each
 * watched app's topics since a moment, with the trend the rule allows, and the own apps against the
 * competitors; `--backfill` computes stored reviews' topics now rather than at the worker's start.
 */
import { Command, InvalidArgumentError } from 'commander';
import { ExitCode, ReviewwatchError } from '../../errors.js';
import { withResources } from '../../root/resources.js';
import { backfillTopics, configTaxonomy } from '../../store/topic-backfill.js';
import type { TopicFigure } from '../../store/topic-summary.js';
import {
  comparisonText,
  type OverviewApp,
  overviewJson,
  percentOf,
  type TopicsOverview,
  topicsOverview,
} from '../../store/topics-overview.js';
import { settingsFor } from '../context.js';

const DAY_MS = 86_400_000;

function moment(value: string): Date {
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new InvalidArgumentError('must be a date or moment like 2026-11-01 or 2026-11-01T09:00:00Z.');
  return new Date(at);
}

function trendCell(figure: TopicFigure): string {
  if (figure.trendText === undefined) return '-';
  return `${figure.trend.direction === 'up' ? '▲' : '▼'} ${figure.trendText.slice(figure.topic.length + 2)}`;
}

function appLines(app: OverviewApp): string[] {
  const head = `${app.name}${app.role === 'competitor' ? ' (competitor)' : ''}: ${app.reviews} reviews`;
  if (app.topics.length === 0) return [head, '  no topics in the period'];
  const rows = [['TOPIC', 'REVIEWS', 'SHARE', 'STARS', 'TREND']].concat(
    app.topics.map((t) => [
      t.topic,
      String(t.reviews),
      percentOf(t.share),
      t.reviews === 0 ? '-' : t.averageStars.toFixed(1),
      trendCell(t),
    ]),
  );
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return [head, ...rows.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd())];
}

function text(overview: TopicsOverview): string {
  const day = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');
  const out = [
    `Topics from ${day(overview.from)} to ${day(overview.to)} UTC, against the 8 periods of that length before (a trend only when it means something).`,
  ];
  for (const app of overview.apps) out.push('', ...appLines(app));
  if (overview.comparisons.length > 0) {
    out.push(
      '',
      'Your apps against competitors:',
      ...overview.comparisons.map((c) => `  ${comparisonText(c)}`),
    );
  }
  return `${out.join('\n')}\n`;
}

export function topicsCommand(): Command {
  return new Command('topics')
    .description(
      "what reviewers talk about: each app's topics since a moment, their trends, own apps against competitors",
    )
    .option('--app <handle>', 'one watched app')
    .option('--since <iso>', 'from this date or moment (default: 7 days ago)', moment)
    .option('--json', 'print JSON for scripts (as /api/topics)')
    .option('--backfill', "compute stored reviews' topics under the config now, with progress, and exit")
    .action(
      async (
        options: { app?: string; since?: Date; json?: boolean; backfill?: boolean },
        command: Command,
      ) => {
        const settings = settingsFor(command);
        const { config } = settings;
        if (options.app !== undefined && !config.apps.some((a) => a.handle === options.app)) {
          throw new ReviewwatchError(
            `--app ${options.app} is not a watched app; the config watches: ${config.apps.map((a) => a.handle).join(', ')}`,
            { exitCode: ExitCode.Usage },
          );
        }
        if (options.backfill) {
          const done = await withResources(settings, ({ store }) =>
            backfillTopics(store, configTaxonomy(config), {
              onProgress: (p) =>
                process.stderr.write(`topics: ${p.done} of ${p.total} stored reviews computed\n`),
            }),
          );
          process.stdout.write(
            done.total === 0
              ? 'topics: every stored review already has its topics under this config\n'
              : `topics: ${done.done} stored reviews computed\n`,
          );
          return;
        }
        const to = new Date();
        const from = options.since ?? new Date(to.getTime() - 7 * DAY_MS);
        if (from.getTime() >= to.getTime()) {
          throw new ReviewwatchError('--since must be in the past', { exitCode: ExitCode.Usage });
        }
        const handles = options.app ? [options.app] : config.apps.map((a) => a.handle);
        const overview = await withResources(settings, ({ store }) =>
          topicsOverview(store.db, config, { from, to }, handles),
        );
        process.stdout.write(
          options.json ? `${JSON.stringify(overviewJson(overview), null, 2)}\n` : text(overview),
        );
      },
    );
}
