/**
 * `reviewwatch market --refresh`: reads the market now (cli/actions/market-refresh.ts), delivers the alerts it
 * raised as `poll --once` does, then prints what moved, what changed and who entered, read from the store.
 */
import type { Command } from 'commander';
import { ExitCode, ReviewwatchError } from '../errors.js';
import { placesClimbed } from '../market/history.js';
import { startWorker } from '../root/worker.js';
import type { Settings } from '../settings.js';
import { plural } from '../util/plural.js';
import {
  type MarketSince,
  marketInputOf,
  marketSince,
  type SinceCategory,
} from '../web/market-views/index.js';
import { type RefreshRead, refreshMarket } from './actions/market-refresh.js';
import { reportDeliveries } from './commands/poll.js';
import { loggerFor } from './context.js';
import { rankMove, terminalLine, utcMinute } from './format.js';

export interface RefreshCommandOptions {
  category?: string | undefined;
  /** Seconds. */
  timeout: number;
  wait: number;
}

/** Runs the refresh and prints it; returns the exit code (0, 1, or 3 for a rejected key). */
export async function runMarketRefresh(
  settings: Settings,
  command: Command,
  options: RefreshCommandOptions,
): Promise<number> {
  const tracked = settings.config.categories.map((c) => c.handle);
  if (options.category !== undefined && !tracked.includes(options.category)) {
    throw new ReviewwatchError(
      `"${options.category}" is not a tracked category in ${settings.configPath} (tracked: ${tracked.length > 0 ? tracked.join(', ') : 'none'}).`,
      { exitCode: ExitCode.Usage },
    );
  }
  const worker = await startWorker(settings, { mode: 'once', logger: loggerFor(command) });
  let failed = 0;
  let timedOut = false;
  let unusable = false;
  try {
    const categories = options.category === undefined ? tracked.length : 1;
    const apps = settings.config.apps.length;
    const out = (text: string) => process.stdout.write(text);
    out(
      `Refreshing the market: ${plural(categories, 'category', 'categories')}, ${plural(apps, 'listing')}…\n`,
    );
    const report = await refreshMarket(worker, {
      category: options.category,
      timeoutMs: options.timeout * 1000,
      onRead: (read, done) => out(`[${done}] ${readLine(read)}\n`),
    });
    timedOut = report.timedOut;
    unusable = report.unusable !== undefined;
    failed += report.reads.filter((r) => r.status === 'failed' || r.status === 'unfinished').length;
    const requests = report.reads.reduce((sum, r) => sum + r.requests, 0);
    out(`\nRead ${plural(report.reads.length, 'subject')} with ${plural(requests, 'API request')}.\n`);
    const since = marketSince(worker.store.db, marketInputOf(settings.config), {
      since: report.since,
      now: new Date(),
      categories: report.categories,
    });
    out(sinceText(since));
    if (report.deliveryIds.length > 0) {
      out(`Delivering ${plural(report.deliveryIds.length, 'notification')}…\n`);
      const states = await worker.settle(report.deliveryIds, {
        timeoutMs: options.wait * 1000,
        onProgress: (settled) => out(`  ${settled}/${report.deliveryIds.length} settled\n`),
      });
      failed += reportDeliveries(states);
    }
  } finally {
    // A read still running past the timeout is abandoned: it ends when its request times out.
    await (timedOut ? worker.kill() : worker.stop());
  }
  if (failed === 0) return 0;
  return unusable ? ExitCode.Unavailable : ExitCode.Failure;
}

const KIND_WORD: Record<RefreshRead['kind'], string> = {
  category: 'snapshot',
  listing: 'listing',
  developer: 'developer',
};

function readLine(read: RefreshRead): string {
  const what = `${KIND_WORD[read.kind]} ${read.subject}`;
  const requests = plural(read.requests, 'request');
  switch (read.status) {
    case 'ok': {
      const alerts = read.alertKinds.length > 0 ? `, alerts: ${read.alertKinds.join(', ')}` : '';
      return `${what}: ok (${requests}${alerts})`;
    }
    case 'unavailable':
      return `${what}: unavailable: ${terminalLine(read.error ?? 'not found', 120)}`;
    case 'skipped':
      return `${what}: skipped`;
    case 'failed':
      return `${what}: failed: ${terminalLine(read.error ?? 'unknown error', 160)} (${requests})`;
    case 'unfinished':
      return `${what}: not read: ${terminalLine(read.error ?? 'did not finish in time', 160)}`;
  }
}

function rankLine(rank: SinceCategory['ranks'][number]): string {
  const now = rank.rank === null ? 'not in the tracked pages' : `#${rank.rank}`;
  const then = rank.previous === null ? 'not in the tracked pages' : `#${rank.previous}`;
  const moved = rankMove(placesClimbed(rank.previous, rank.rank));
  return `    ${terminalLine(rank.name, 32)} (${rank.role}): ${now}${moved ? ` ${moved}` : ''}, was ${then}`;
}

function categoryLines(category: SinceCategory): string[] {
  const { status } = category;
  if (status.state === 'unavailable')
    return [`  ${status.handle}: unavailable (${terminalLine(status.lastError ?? 'not found', 120)})`];
  if (!category.fresh) {
    const error = status.lastError ? `: ${terminalLine(status.lastError, 120)}` : '';
    return [`  ${status.handle}: no new snapshot${error}`];
  }
  const head = `  ${status.handle}: snapshot ${utcMinute(status.lastSnapshotAt)}`;
  if (category.previousAt === null) return [`${head}, its first: the baseline later moves are measured from`];
  return [
    `${head} against ${utcMinute(category.previousAt)}`,
    ...(category.ranks.length === 0
      ? ['    none of the watched apps is in the tracked pages']
      : category.ranks.map(rankLine)),
  ];
}

/** What moved, what changed and who entered, as the store holds it now. */
export function sinceText(since: MarketSince): string {
  const out = ['', 'WHAT MOVED'];
  out.push(...since.categories.flatMap(categoryLines));
  out.push(...since.moved.map((h) => `  ${terminalLine(h, 160)}`));
  out.push('', 'WHAT CHANGED');
  if (since.changed.length === 0 && since.developers.length === 0) out.push('  nothing');
  for (const app of since.changed) {
    for (const change of app.changes)
      out.push(`  ${terminalLine(app.name, 32)}: ${terminalLine(change.text, 120)}`);
  }
  out.push(...since.developers.map((h) => `  ${terminalLine(h, 160)}`));
  const entered = since.categories.flatMap((c) =>
    c.entered.map(
      (e) =>
        `  ${c.status.handle}: ${terminalLine(e.name, 40)} came in at ${e.rank === null ? '-' : `#${e.rank}`}`,
    ),
  );
  out.push('', 'WHO ENTERED', ...(entered.length > 0 ? entered : ['  nobody']), '');
  return `${out.join('\n')}\n`;
}
