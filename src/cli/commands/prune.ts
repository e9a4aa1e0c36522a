import { Command } from 'commander';
import { ExitCode, ReviewwatchError } from '../../errors.js';
import { withResources } from '../../root/resources.js';
import {
  type PruneCounts,
  type PruneProgress,
  type PruneResult,
  pruneDatabase,
  retentionPolicyOf,
} from '../../store/retention.js';
import { settingsFor } from '../context.js';

interface PruneCommandOptions {
  dryRun?: boolean;
  vacuum?: boolean;
  json?: boolean;
}

const ROWS: Array<[keyof PruneCounts, string]> = [
  ['pollRuns', 'poll runs'],
  ['ratingSnapshots', 'rating snapshots'],
  ['deliveries', 'sent deliveries'],
  ['alertPayloads', 'alert payloads (emptied, the alerts stay)'],
  ['digestRuns', 'digest runs'],
  ['categorySnapshots', 'category snapshots (with their ranks)'],
  ['listingVersions', 'listing versions (their changes kept)'],
  ['marketRuns', 'market runs'],
];

const PROGRESS_EVERY_MS = 2_000;

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function report(result: PruneResult): string {
  const width = Math.max(...ROWS.map(([, label]) => label.length));
  const numbers = ROWS.map(([key]) => result.counts[key].toLocaleString('en'));
  const numberWidth = Math.max(...numbers.map((n) => n.length));
  const lines = [
    result.dryRun ? 'Dry run: nothing was deleted. The prune would delete:' : 'Deleted:',
    ...ROWS.map(([, label], i) => `  ${label.padEnd(width)}  ${(numbers[i] ?? '').padStart(numberWidth)}`),
  ];
  if (result.dryRun) {
    lines.push(`Database: ${bytes(result.bytesBefore)}, ${bytes(result.freeBytes)} of it free pages.`);
  } else {
    const how = {
      incremental: 'incremental vacuum',
      vacuum: 'VACUUM',
      automatic: 'auto-vacuum',
      reuse: 'free pages kept for reuse: run `reviewwatch prune --vacuum` once to return them',
    }[result.reclaim ?? 'reuse'];
    lines.push(
      `Database: ${bytes(result.bytesBefore)} → ${bytes(result.bytesAfter)}, ${bytes(result.bytesReclaimed)} reclaimed (${how}).`,
    );
    if (result.freeBytes > 0) lines.push(`  ${bytes(result.freeBytes)} of free pages left inside the file.`);
    if (!result.checkpointed) lines.push('  A reader kept the WAL from being emptied; the next prune will.');
  }
  lines.push(`Took ${(result.durationMs / 1000).toFixed(1)} s.`);
  return `${lines.join('\n')}\n`;
}

function progressLine(p: PruneProgress): string {
  const c = p.counts;
  const deleted =
    c.ratingSnapshots +
    c.pollRuns +
    c.deliveries +
    c.digestRuns +
    c.categorySnapshots +
    c.listingVersions +
    c.marketRuns;
  return `  ${p.phase}: ${p.done.toLocaleString('en')}/${p.total.toLocaleString('en')} (${deleted.toLocaleString('en')} rows so far)\n`;
}

export function pruneCommand(): Command {
  return new Command('prune')
    .description('delete what the retention policy says has expired, and reclaim the space')
    .option('--dry-run', 'count what would be deleted, delete nothing')
    .option(
      '--vacuum',
      'rewrite the file once with VACUUM: returns all free space and turns on incremental reclaim for a database created before it; holds the write lock throughout (stop the worker first)',
    )
    .option('--json', 'print JSON for scripts')
    .exitOverride()
    .action(async (options: PruneCommandOptions, command: Command) => {
      if (options.dryRun && options.vacuum) {
        throw new ReviewwatchError('--dry-run and --vacuum cannot be combined.', {
          exitCode: ExitCode.Usage,
        });
      }
      const settings = settingsFor(command);
      let lastProgress = performance.now();
      await withResources(settings, async ({ store }) => {
        const result = await pruneDatabase(store.db, retentionPolicyOf(settings.config), new Date(), {
          dryRun: options.dryRun === true,
          vacuum: options.vacuum === true,
          onProgress: (p) => {
            if (performance.now() - lastProgress < PROGRESS_EVERY_MS) return;
            lastProgress = performance.now();
            process.stderr.write(progressLine(p));
          },
        });
        process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : report(result));
      });
    });
}
