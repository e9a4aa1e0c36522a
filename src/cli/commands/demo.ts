import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { parseConfig } from '../../config/index.js';
import { createLogger } from '../../log.js';
import { DEFAULT_REDIS_URL } from '../../queue/connection.js';
import { syncPollSchedulers } from '../../queue/schedulers.js';
import { createServices } from '../../queue/services.js';
import { openRuntime } from '../../runtime.js';
import { startSimulator } from '../../simulator/index.js';
import { globalOptions } from '../context.js';

const APPS = ['acme-bundles', 'bolt-subscriptions', 'cobalt-reviews'];
const RIVAL = 'rival-bundles';
const DATA_DIR = 'data/demo';
const PREFIX = 'reviewwatch-demo';

function minutes(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number of minutes.');
  return n;
}

/** The demo's config: short intervals, alerts to the terminal, and to Slack or email when configured. */
function demoConfig(simulatorUrl: string, env: NodeJS.ProcessEnv) {
  const channels: Record<string, unknown> = { terminal: { type: 'console' } };
  if (env.SLACK_WEBHOOK_URL) channels.slack = { type: 'slack', webhookUrl: env.SLACK_WEBHOOK_URL };
  if (env.SMTP_URL) {
    channels.email = {
      type: 'email',
      from: env.DEMO_EMAIL_FROM ?? 'reviewwatch-demo@example.com',
      to: [env.DEMO_EMAIL_TO ?? 'reviewwatch-demo@example.com'],
    };
  }
  const notify = Object.keys(channels);
  return parseConfig(
    {
      catalog: { baseUrl: simulatorUrl, apiKey: 'demo', maxRequestsPerSecond: 20 },
      poll: { every: '5s', baselinePages: 2, backoff: '1s' },
      apps: [...APPS.map((handle) => ({ handle, notify })), { handle: RIVAL, role: 'competitor' }],
      alerts: {
        lowRating: { maxRating: 2 },
        incident: { count: 3, window: '1h' },
        throttle: { max: 8, window: '1m' },
      },
      channels,
    },
    env,
  );
}

export function demoCommand(): Command {
  return new Command('demo')
    .description('see it work in a minute: a simulated marketplace, alerts in this terminal (Ctrl-C stops)')
    .option('--minutes <n>', 'stop by itself after this many minutes', minutes)
    .action(async (options: { minutes?: number }, command: Command) => {
      const logger = createLogger(globalOptions(command).verbose ? { level: 'debug' } : {});
      const env = process.env;
      // A fresh start each time: the first poll is a baseline, and what arrives after it alerts.
      rmSync(join(DATA_DIR, 'reviewwatch.db'), { force: true });
      rmSync(join(DATA_DIR, 'reviewwatch.db-wal'), { force: true });
      rmSync(join(DATA_DIR, 'reviewwatch.db-shm'), { force: true });
      const sim = await startSimulator({
        handles: [...APPS, RIVAL],
        appCount: 0,
        maxReviewsPerApp: 60,
        arrival: { everyMs: 4_000, handles: [...APPS, RIVAL], lowShare: 0.45 },
        firstNewReviewId: Math.floor(Date.now() / 1000) * 1000,
      });
      const config = demoConfig(sim.url, env);
      const rt = await openRuntime(
        {
          configPath: '(demo)',
          config,
          redisUrl: env.REDIS_URL || DEFAULT_REDIS_URL,
          redisUrlGiven: Boolean(env.REDIS_URL),
          databasePath: join(DATA_DIR, 'reviewwatch.db'),
          queuePrefix: PREFIX,
          smtpUrl: env.SMTP_URL || undefined,
        },
        logger,
      );
      const services = createServices(rt);
      const timers: NodeJS.Timeout[] = [];
      try {
        // Whatever an earlier demo left in its queues would only confuse this one.
        await services.pollQueue.obliterate({ force: true });
        await services.notifyQueue.obliterate({ force: true });
        await syncPollSchedulers(
          services.pollQueue,
          rt.redis,
          config.apps.map((a) => a.handle),
          config.poll.every,
          services.retry,
          logger,
        );
        services.run();
        process.stdout.write(
          [
            '',
            `reviewwatch demo: watching ${APPS.join(', ')} (and a competitor, ${RIVAL}) in a simulated marketplace.`,
            'A review arrives every few seconds; the low ones show up below as alerts, scored and explained.',
            'Watch for a burst of bad reviews (a possible incident) and the rating drop it causes.',
            `Alerts go to: ${Object.keys(config.channels).join(', ')}. Ctrl-C stops.`,
            '',
          ].join('\n'),
        );
        // A burst after the baseline: several low reviews of one app at once.
        timers.push(
          setTimeout(() => {
            sim.controls.addReviews('bolt-subscriptions', [
              {
                rating: 1,
                review_content: 'Charged twice this month and no refund yet. Support does not answer.',
              },
              {
                rating: 1,
                review_content: 'The last update broke checkout, orders are missing. Uninstalling.',
              },
              { rating: 2, review_content: 'Crashes every time I open the subscriptions page.' },
              { rating: 1, review_content: 'Lost all my subscriber data after the update!' },
            ]);
          }, 25_000),
        );
        await new Promise<void>((resolve) => {
          const stop = () => resolve();
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
          if (options.minutes) timers.push(setTimeout(stop, options.minutes * 60_000));
        });
        process.stdout.write('\nStopping the demo…\n');
      } finally {
        for (const timer of timers) clearTimeout(timer);
        await services.close(5_000);
        await rt.close();
        await sim.close();
      }
    });
}
