import { Command } from 'commander';
import { DEFAULT_CONFIG_PATH } from '../../config/index.js';
import { withResources } from '../../root/resources.js';
import { fmtDuration } from '../../schedule/index.js';
import {
  type AppReport,
  collectStatus,
  costParts,
  outsideLine,
  type StatusReport,
} from '../actions/status-report.js';
import { settingsFor } from '../context.js';
import { stars, terminalLine } from '../format.js';

function ago(date: Date | null, now: number): string {
  if (!date) return 'never';
  const s = Math.round((now - date.getTime()) / 1000);
  if (s < 0) return `in ${-s}s`;
  if (s < 90) return `${s}s ago`;
  if (s < 5400) return `${Math.round(s / 60)}m ago`;
  if (s < 129600) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

function until(ms: number | undefined, now: number): string {
  if (ms === undefined) return '-';
  const s = Math.max(0, Math.round((ms - now) / 1000));
  return s < 90 ? `in ${s}s` : `in ${Math.round(s / 60)}m`;
}

/** A poll due this long ago, while a worker runs, is still being taken: "due now" rather than overdue. */
const OVERDUE_AFTER_MS = 10_000;

/** When the next poll comes: "in 25s", "due now", "overdue since 14:02:11" when nothing took it. */
function nextPoll(app: AppReport, report: StatusReport, now: number): string {
  if (report.paused) return 'paused';
  if (!app.scheduled) return 'not scheduled';
  const due = app.nextPollAt;
  if (due === null) return '-';
  const idle = report.polling.scheduled === false;
  if (due < now - (idle ? 0 : OVERDUE_AFTER_MS)) return `overdue since ${clock(due, now)}`;
  if (due <= now) return 'due now';
  return idle ? `${until(due, now)} (no worker)` : until(due, now);
}

/** "14:02:11" on this machine's clock, with the date when it is not within the last 20 hours. */
function clock(ms: number, now: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  const time = `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
  if (now - ms < 20 * 3_600_000) return time;
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${time}`;
}

/** The process that polled last, and what became of it when it is no longer polling. */
function pollBy(app: AppReport, polling: StatusReport['polling']): string {
  const by = app.lastPollBy;
  if (by === null) return '-';
  if (polling.scheduled === null) return by;
  const seen = polling.workers.filter((w) => w.id === by);
  if (seen.some((w) => w.state === 'live')) return by;
  const latest = seen[0];
  return `${by} (${latest === undefined ? 'stopped' : latest.state === 'exited' ? 'exited' : 'not reporting'})`;
}

/** What to run: `start` with the config this `status` read, unless it is the default one. */
function startHint(configPath: string): string {
  const config = configPath === DEFAULT_CONFIG_PATH ? '' : ` --config ${configPath}`;
  return `  start the worker: reviewwatch start${config} (or its service: systemctl start reviewwatch, docker compose up -d)`;
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function statusCommand(): Command {
  return new Command('status')
    .description('watched apps, last poll, poll interval, rating, counts, and the queue')
    .option('--json', 'print JSON for scripts')
    .action(async (options: { json?: boolean }, command: Command) => {
      const now = Date.now();
      const settings = settingsFor(command);
      const report = await withResources(settings, (resources) => collectStatus(resources, now));
      process.stdout.write(
        options.json
          ? `${JSON.stringify(asJson(report), null, 2)}\n`
          : text(report, now, settings.configPath),
      );
    });
}

function asJson(report: StatusReport) {
  return {
    ...report,
    failed: report.failed.map((d) => ({
      id: d.id,
      kind: d.alert.kind,
      app: d.appHandle,
      channel: d.channel,
      error: d.lastError,
    })),
  };
}

function text(report: StatusReport, now: number, configPath: string): string {
  const { paused, queue, schedule } = report;
  const rows = [
    [
      'APP',
      'STATE',
      'LAST POLL',
      'NEXT POLL',
      'EVERY',
      'REVIEWS/DAY',
      'RATING',
      'REVIEWS',
      'STORED',
      // Which process polled last: with several `start` processes on one store, the one doing the work.
      // Added next to last, so the columns before it keep their places for those who read them by position.
      'BY',
      'LAST ERROR',
    ],
  ];
  for (const app of report.apps) {
    rows.push([
      app.handle,
      app.state,
      ago(app.lastPollAt, now),
      nextPoll(app, report, now),
      app.intervalMs === null ? '-' : fmtDuration(app.intervalMs),
      rate(app),
      app.rating === null ? '-' : `${stars(app.rating)} ${app.rating.toFixed(2)}`,
      app.ratingCount === null ? '-' : String(app.ratingCount),
      app.removedReviews > 0
        ? `${app.storedReviews} (${app.removedReviews} removed)`
        : String(app.storedReviews),
      pollBy(app, report.polling),
      app.lastError ? app.lastError.slice(0, 80) : '',
    ]);
  }
  const out = [`${table(rows)}\n`];
  if (report.polling.scheduled === false) {
    out.push(`nothing is polling: ${report.polling.reason}`, startHint(configPath));
  }
  for (const app of report.apps) {
    if (app.gap) out.push(gapLine(app.handle, app.gap, now));
  }
  if (paused) out.push(`polling paused: ${paused} (restart reviewwatch once it is fixed)`);
  const budget = schedule.budget === null ? '' : ` of catalog.dailyRequestBudget ${count(schedule.budget)}`;
  const { polls, paging, tightening, reserved, market, total } = schedule.projected;
  out.push(
    `poll schedule: ${schedule.policy}, ${count(total)} API requests a day projected${budget} (polls ${count(polls)}, extra pages ${count(paging)}, after incidents ${count(tightening)}, baselines and reconciliation ${count(reserved)}, market ${count(market)})`,
  );
  for (const warning of schedule.warnings) out.push(`  warning: ${warning}`);
  out.push(
    queue
      ? `poll queue: ${queue.waiting ?? 0} waiting, ${queue.active ?? 0} active, ${queue.delayed ?? 0} delayed, ${queue.failed ?? 0} failed`
      : `poll queue: unknown (${report.queueError})`,
  );
  out.push(
    `reconciliation: ${report.reconciliation.requests} API requests in the last 24 h (${report.reconciliation.runs} runs)`,
  );
  out.push(...marketLines(report, now));
  out.push(
    report.topics.pending === 0
      ? `topics: every stored review computed under the config's topics (${report.topics.version})`
      : `topics: ${count(report.topics.pending)} stored reviews still to compute (the worker does it at start, in the background)`,
  );
  for (const c of report.notifications) {
    out.push(
      `notifications to ${c.channel}: ${c.sent} sent, ${c.pending} pending, ${c.held} held by the throttle, ${c.failed} failed`,
    );
    if (c.retrying > 0) {
      out.push(
        `  ${c.retrying} pending after a failed attempt, retried; last error: ${terminalLine(c.lastError ?? 'unknown', 120)}`,
      );
    }
  }
  for (const d of report.failed.slice(0, 20)) {
    out.push(
      `  failed #${d.id} ${d.alert.kind} of ${d.appHandle} → ${d.channel}: ${terminalLine(d.lastError ?? '', 120)}`,
    );
  }
  if (report.failed.length > 0) out.push('  `reviewwatch notify retry` sends them again.');
  return `${out.join('\n')}\n`;
}

/** An open burst gap: "gap: my-app: about 25 reviews unread (opened 3m ago; the next polls read on)". */
function gapLine(handle: string, gap: { openedAt: Date; unread: number | null }, now: number): string {
  const unread =
    gap.unread === null
      ? 'reviews unread (the listing does not say how many)'
      : gap.unread === 0
        ? 'its last page read, the next poll confirms its end'
        : `about ${count(gap.unread)} reviews unread`;
  return `gap: ${handle}: ${unread} (a burst past poll.maxPages, opened ${ago(gap.openedAt, now)}; the next polls read on)`;
}

/** Reviews a day as the schedule estimates them; "new" until an app has a day of history. */
function rate(app: AppReport): string {
  if (app.state === 'new' || app.intervalReason === 'cold start') return 'new';
  const perDay = app.ratePerDay;
  return perDay >= 10 ? perDay.toFixed(0) : perDay >= 0.1 ? perDay.toFixed(1) : perDay.toFixed(2);
}

function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Requests a day by kind (planned, and spent in the last 24 h), and what the tracked categories miss. */
function marketLines(report: StatusReport, now: number): string[] {
  const { market } = report;
  const spent = market.last24h;
  const lines = [
    `market: ${count(market.planned.total)} API requests a day planned (${costParts(market.planned)})` +
      (spent
        ? `; in the last 24 h ${count(spent.category + spent.listing + spent.developer)} (category pages ${count(spent.category)}, listings ${count(spent.listing)}, developers ${count(spent.developer)})`
        : ''),
  ];
  for (const u of market.unavailable) {
    lines.push(`  category ${u.handle}: unavailable since ${ago(u.since, now)} (${u.reason ?? 'HTTP 404'})`);
  }
  const outside = outsideLine(market);
  if (outside) lines.push(`  ${outside}`);
  return lines;
}
