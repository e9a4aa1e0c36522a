import { Command } from 'commander';
import { ExitCode, ReviewwatchError } from '../../errors.js';
import { withResources } from '../../root/resources.js';
import { categoryJson, overviewJson } from '../../web/market-json.js';
import type { CategoryRank, CategoryView, MarketOverview } from '../../web/market-views/index.js';
import {
  ALERT_MOVE_LABEL,
  alertMoveText,
  marketInputOf,
  WEEK_MOVE_LABEL,
  weekMoveText,
} from '../../web/market-views/index.js';
import { settingsFor } from '../context.js';
import { rankMove, terminalLine, utcMinute } from '../format.js';
import { runMarketRefresh } from '../market-refresh.js';
import { marketReport } from '../market-report.js';
import { seconds } from './poll.js';

const day = (date: Date) => date.toISOString().slice(0, 10);

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? '')].length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell + ' '.repeat(Math.max(0, (widths[i] ?? 0) - [...cell].length)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function rankText(rank: CategoryRank): string {
  const then = rank.before?.rank ?? null;
  if (rank.rank === null)
    return then === null ? 'not in the tracked pages' : `left the tracked pages (was #${then})`;
  if (rank.before !== null && then === null) return `#${rank.rank} new in the tracked pages`;
  const moved = rankMove(rank.move);
  return moved === '' ? `#${rank.rank}` : `#${rank.rank} ${moved} (from #${then})`;
}

function overviewText(overview: MarketOverview): string {
  const rows = [['APP', 'ROLE', 'RATING', '7 DAYS', 'OPEN LOW', 'LAST LISTING CHANGE']];
  for (const app of overview.apps) {
    const change = app.lastChange;
    const first = change?.changes[0];
    rows.push([
      terminalLine(app.name, 32),
      app.role,
      app.rating === null ? '-' : app.rating.toFixed(2),
      app.ratingChange === null
        ? '-'
        : `${app.ratingChange < 0 ? '▼' : app.ratingChange > 0 ? '▲' : '±'}${Math.abs(app.ratingChange).toFixed(2)}`,
      String(app.openLow),
      change && first
        ? `${day(change.at)}: ${terminalLine(first.text, 90)}${change.changes.length > 1 ? ` (+${change.changes.length - 1} more)` : ''}`
        : '-',
    ]);
  }
  const out = [table(rows), ''];
  if (overview.categories.length === 0) out.push('No category is tracked (config: categories).');
  for (const category of overview.categories) {
    if (category.state === 'waiting') {
      out.push(`${category.handle}: waiting for its first snapshot`);
      continue;
    }
    if (category.state === 'unavailable') {
      out.push(
        `${category.handle}: unavailable since ${utcMinute(category.unavailableSince)} (${terminalLine(category.lastError ?? 'not found', 120)})`,
      );
      continue;
    }
    out.push(
      `${category.handle}: last snapshot ${utcMinute(category.lastSnapshotAt)}, the top ${category.depth ?? '?'} organic places tracked`,
    );
    const shown = overview.apps.flatMap((app) => {
      const rank = app.ranks.find((r) => r.category === category.handle);
      return rank && (rank.rank !== null || (rank.before?.rank ?? null) !== null) ? [{ app, rank }] : [];
    });
    if (shown.length === 0) out.push('  none of the watched apps is in the tracked pages');
    const rows = table(
      shown.map(({ app, rank }) => [`  ${terminalLine(app.name, 32)}`, rankText(rank)]),
    ).split('\n');
    // Under each app, both sides of the rank story, labelled as on the pages (market-views/rank-story.ts).
    shown.forEach(({ rank }, i) => {
      out.push(rows[i] ?? '');
      out.push(
        `    ${WEEK_MOVE_LABEL}: ${weekMoveText(rank)}${rank.alert ? ` · ${ALERT_MOVE_LABEL}: ${alertMoveText(rank.alert)}` : ''}`,
      );
    });
  }
  return `${out.join('\n')}\n`;
}

function categoryText(view: CategoryView, days: number): string {
  const { status } = view;
  const out = [
    status.state === 'ok'
      ? `${view.handle}: last snapshot ${utcMinute(status.lastSnapshotAt)}, the top ${status.depth ?? '?'} organic places tracked`
      : status.state === 'waiting'
        ? `${view.handle}: waiting for its first snapshot`
        : `${view.handle}: unavailable since ${utcMinute(status.unavailableSince)}`,
    `last ${days} days: ${view.snapshots} snapshot${view.snapshots === 1 ? '' : 's'}${view.gaps
      .map(
        (g) =>
          `; ${g.snapshots} failed (${day(g.from)}${g.snapshots > 1 ? ` to ${day(g.to)}` : ''}): no ranks then`,
      )
      .join('')}`,
    '',
  ];
  const watched = view.series.filter((s) => s.role !== 'leader');
  if (watched.length > 0) {
    out.push('WATCHED APPS');
    out.push(
      table(
        watched.map((s) => [
          `  ${terminalLine(s.name, 32)}`,
          s.role,
          s.rank === null ? 'not in the tracked pages' : `#${s.rank}`,
          rankMove(s.move),
        ]),
      ),
      '',
    );
  }
  if (view.top.length > 0) {
    out.push(`TOP ${view.top.length}`);
    out.push(
      table(
        view.top.map((a) => [
          `  #${a.rank}`,
          terminalLine(a.name, 40),
          a.sponsored ? 'ad' : '',
          rankMove(a.move),
        ]),
      ),
      '',
    );
  }
  out.push(view.entrants.length === 0 ? `NEW ENTRANTS: none in the last ${days} days` : 'NEW ENTRANTS');
  for (const e of view.entrants)
    out.push(
      `  ${day(e.at)}  ${terminalLine(e.name, 40)}: came in at ${e.rank === null ? '-' : `#${e.rank}`}, now ${e.rankNow === null ? 'out of the tracked pages' : `#${e.rankNow}`}`,
    );
  out.push(view.exits.length === 0 ? 'LEFT THE TRACKED PAGES: none' : 'LEFT THE TRACKED PAGES');
  for (const e of view.exits) out.push(`  ${day(e.at)}  ${terminalLine(e.name, 40)}: last #${e.lastRank}`);
  out.push(
    view.sponsored.now.length === 0
      ? 'SPONSORED: none in the latest snapshot'
      : `SPONSORED: ${view.sponsored.now.map((s) => terminalLine(s.name, 40)).join(', ')}`,
  );
  return `${out.join('\n')}\n`;
}

interface MarketCommandOptions {
  category?: string;
  json?: boolean;
  refresh?: boolean;
  timeout: number;
  wait: number;
}

export function marketCommand(): Command {
  return new Command('market')
    .description("the watched apps' ranks, moves and listing changes; or one category over time")
    .option('--category <handle>', 'one tracked category: its ranks, entrants, exits and sponsored slots')
    .option('--json', 'print JSON for scripts (the shape of /api/market and /api/categories/HANDLE)')
    .option(
      '--refresh',
      'read the market now (every tracked category, or --category, every listing and competitor developer), deliver its alerts and print what moved',
    )
    .option(
      '--timeout <seconds>',
      'with --refresh: stop waiting for the reads (retries included) after this long',
      seconds,
      60,
    )
    .option(
      '--wait <seconds>',
      'with --refresh: how long to wait for the notifications to be delivered',
      seconds,
      120,
    )
    .action(async (options: MarketCommandOptions, command: Command) => {
      const settings = settingsFor(command);
      if (options.refresh) {
        if (options.json) {
          throw new ReviewwatchError('--json does not go with --refresh: run `market --json` after it.', {
            exitCode: ExitCode.Usage,
          });
        }
        process.exitCode = await runMarketRefresh(settings, command, options);
        return;
      }
      const report = await withResources(settings, (resources) =>
        marketReport(resources.store.db, marketInputOf(settings.config), {
          now: new Date(),
          category: options.category,
        }),
      );
      const publicUrl = settings.config.web.publicUrl;
      if (options.json) {
        const json =
          report.kind === 'overview'
            ? overviewJson(report.overview, publicUrl)
            : categoryJson(report.category, publicUrl);
        process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
        return;
      }
      process.stdout.write(
        report.kind === 'overview'
          ? overviewText(report.overview)
          : categoryText(report.category, report.days),
      );
    });
}
