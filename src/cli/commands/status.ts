import { Queue } from 'bullmq';
import { Command } from 'commander';
import type { Alert } from '../../alerts/types.js';
import { errorMessage } from '../../errors.js';
import { connectRedis } from '../../queue/connection.js';
import { handleOfSchedulerId, POLL_QUEUE, pollPausedKey } from '../../queue/names.js';
import { openStore } from '../../store/db.js';
import { failedDeliveries, outboxCounts } from '../../store/outbox.js';
import { reconcileCost } from '../../store/reconcile.js';
import { appStatuses } from '../../store/status.js';
import { settingsFor } from '../context.js';
import { stars } from '../format.js';

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
    .description('watched apps, last poll, rating, counts, and the queue')
    .option('--json', 'print JSON for scripts')
    .action(async (options: { json?: boolean }, command: Command) => {
      const settings = settingsFor(command);
      const store = openStore(settings.databasePath);
      const handles = settings.config.apps.map((app) => app.handle);
      const { apps, outbox, failed, reconciliation } = (() => {
        try {
          return {
            apps: appStatuses(store.db, handles),
            outbox: outboxCounts(store.db),
            failed: failedDeliveries<Alert>(store.db),
            // What the deep checks cost: the last day's runs and their requests, failed ones included.
            reconciliation: reconcileCost(store.db, new Date(Date.now() - 86_400_000)),
          };
        } finally {
          store.close();
        }
      })();

      let queue: Record<string, number> | undefined;
      let nextPoll = new Map<string, number | undefined>();
      let queueError: string | undefined;
      let paused: string | undefined;
      try {
        const redis = await connectRedis(settings.redisUrl);
        const q = new Queue(POLL_QUEUE, { connection: redis, prefix: settings.queuePrefix });
        try {
          queue = await q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
          const schedulers = await q.getJobSchedulers(0, -1);
          nextPoll = new Map(schedulers.map((s) => [handleOfSchedulerId(s.key) ?? s.key, s.next]));
          paused = (await redis.get(pollPausedKey(settings.queuePrefix))) ?? undefined;
        } finally {
          await q.close();
          await redis.quit();
        }
      } catch (err) {
        queueError = errorMessage(err);
      }

      if (options.json) {
        const out = {
          apps: apps.map((a) => ({
            ...a,
            nextPollAt: paused ? null : (nextPoll.get(a.handle) ?? null),
            scheduled: nextPoll.has(a.handle),
          })),
          paused: paused ?? null,
          queue: queue ?? null,
          queueError: queueError ?? null,
          notifications: outbox,
          reconciliation: { ...reconciliation, period: '24h' },
          failed: failed.map((d) => ({
            id: d.id,
            kind: d.alert.kind,
            app: d.appHandle,
            channel: d.channel,
            error: d.lastError,
          })),
        };
        process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        return;
      }
      const now = Date.now();
      const rows = [['APP', 'STATE', 'LAST POLL', 'NEXT POLL', 'RATING', 'REVIEWS', 'STORED', 'LAST ERROR']];
      for (const app of apps) {
        rows.push([
          app.handle,
          app.state,
          ago(app.lastPollAt, now),
          paused
            ? 'paused'
            : nextPoll.has(app.handle)
              ? until(nextPoll.get(app.handle), now)
              : 'not scheduled',
          app.rating === null ? '-' : `${stars(app.rating)} ${app.rating.toFixed(2)}`,
          app.ratingCount === null ? '-' : String(app.ratingCount),
          String(app.storedReviews),
          app.lastError ? app.lastError.slice(0, 80) : '',
        ]);
      }
      process.stdout.write(`${table(rows)}\n\n`);
      if (paused) process.stdout.write(`polling paused: ${paused} (restart reviewwatch once it is fixed)\n`);
      if (queue) {
        process.stdout.write(
          `poll queue: ${queue.waiting ?? 0} waiting, ${queue.active ?? 0} active, ${queue.delayed ?? 0} delayed, ${queue.failed ?? 0} failed\n`,
        );
      } else {
        process.stdout.write(`poll queue: unknown (${queueError})\n`);
      }
      process.stdout.write(
        `reconciliation: ${reconciliation.requests} API requests in the last 24 h (${reconciliation.runs} runs)\n`,
      );
      for (const c of outbox) {
        process.stdout.write(
          `notifications to ${c.channel}: ${c.sent} sent, ${c.pending} pending, ${c.held} held by the throttle, ${c.failed} failed\n`,
        );
      }
      for (const d of failed.slice(0, 20)) {
        process.stdout.write(
          `  failed #${d.id} ${d.alert.kind} of ${d.appHandle} → ${d.channel}: ${d.lastError ?? ''}\n`,
        );
      }
      if (failed.length > 0) process.stdout.write('  `reviewwatch notify retry` sends them again.\n');
    });
}
