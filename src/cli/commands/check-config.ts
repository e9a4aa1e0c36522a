import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { formatDuration, routingWarnings } from '../../config/index.js';
import { ConfigError, errorMessage } from '../../errors.js';
import { catalogTargetOf } from '../../root/catalog.js';
import { withResources } from '../../root/resources.js';
import { configCost, costParts, outsideLine } from '../actions/status-report.js';
import { settingsFor } from '../context.js';

export function checkConfigCommand(): Command {
  return new Command('check-config')
    .description('validate the config and the environment `start` needs, and say exactly what is wrong')
    .action(async (_options, command: Command) => {
      const settings = settingsFor(command);
      const { config, configPath } = settings;
      // Everything start checks before it opens anything, so "valid" here means start gets past it.
      const problems: string[] = [];
      let catalog = '';
      try {
        const target = catalogTargetOf(settings);
        catalog =
          target === 'simulator'
            ? 'the built-in simulator (catalog.simulator: true): simulated data'
            : `Catalog API at ${target.baseUrl}`;
      } catch (err) {
        problems.push(errorMessage(err));
      }
      try {
        // Building each channel's sender checks what it needs (SMTP_URL for email, a webhook URL).
        await withResources(settings, (resources) => resources.senders());
      } catch (err) {
        problems.push(...(err instanceof ConfigError ? err.problems : [errorMessage(err)]));
      }
      if (problems.length > 0) throw new ConfigError(`${configPath} with this environment`, problems);
      const channels = Object.keys(config.channels);
      // The store's history when there is one (never created here: a config is checked before any start).
      const cost = await withResources(settings, (resources) =>
        configCost(config, existsSync(settings.databasePath) ? resources.store.db : undefined, Date.now()),
      );
      process.stdout.write(
        [
          `${configPath} is valid, and the environment has what it needs.`,
          `  apps:     ${config.apps.length} (${config.apps.map((a) => a.handle).join(', ')})`,
          `  polling:  every ${formatDuration(config.poll.every)}, ${config.poll.concurrency} at a time, at most ${config.catalog.maxRequestsPerSecond} requests/s`,
          `  catalog:  ${catalog}`,
          `  channels: ${channels.length === 0 ? 'none' : channels.join(', ')}`,
          ...routingWarnings(config).map((warning) => `            warning: ${warning}`),
          ...costLines(cost, config.catalog.dailyRequestBudget),
          '',
        ].join('\n'),
      );
    });
}

/**
 * "cost: about 9,912 API requests a day (polls 9,600, baselines and reconciliation 240, category pages
 * 48, listings 20, developers 4 at most), within catalog.dailyRequestBudget 20,000".
 */
export function costLines(cost: ReturnType<typeof configCost>, budget: number | undefined): string[] {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const p = cost.plan.projected;
  const polls = p.polls + p.paging + p.tightening;
  const total = p.total;
  const spread =
    cost.plan.marketStretch > 1 ? `, spread ${cost.plan.marketStretch.toFixed(1)}× by the budget` : '';
  const against =
    budget === undefined
      ? ''
      : total > budget
        ? `, over catalog.dailyRequestBudget ${n(budget)}`
        : `, within catalog.dailyRequestBudget ${n(budget)}`;
  const lines = [
    `  cost:     about ${n(total)} API requests a day (polls ${n(polls)} under the ${cost.plan.policy} schedule, baselines and reconciliation ${n(p.reserved)}, ${costParts(cost.market.planned)}${spread})${against}`,
  ];
  for (const warning of cost.plan.warnings) lines.push(`            warning: ${warning}`);
  const outside = outsideLine(cost.market);
  if (outside) lines.push(`  market:   ${outside}`);
  return lines;
}
