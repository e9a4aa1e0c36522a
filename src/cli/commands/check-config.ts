import { Command } from 'commander';
import { formatDuration } from '../../config/index.js';
import { ConfigError, errorMessage } from '../../errors.js';
import { withResources } from '../../resources.js';
import { catalogTargetOf } from '../../worker.js';
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
      process.stdout.write(
        [
          `${configPath} is valid, and the environment has what it needs.`,
          `  apps:     ${config.apps.length} (${config.apps.map((a) => a.handle).join(', ')})`,
          `  polling:  every ${formatDuration(config.poll.every)}, ${config.poll.concurrency} at a time, at most ${config.catalog.maxRequestsPerSecond} requests/s`,
          `  catalog:  ${catalog}`,
          `  channels: ${channels.length === 0 ? 'none' : channels.join(', ')}`,
          '',
        ].join('\n'),
      );
    });
}
