import { Command } from 'commander';
import { formatDuration } from '../../config/index.js';
import { settingsFor } from '../context.js';

export function checkConfigCommand(): Command {
  return new Command('check-config')
    .description('validate the config and say exactly what is wrong')
    .action((_options, command: Command) => {
      const { config, configPath } = settingsFor(command);
      const channels = Object.keys(config.channels);
      const catalog = config.catalog.apiKey
        ? `Catalog API at ${config.catalog.baseUrl}`
        : 'built-in simulator (no CATALOG_API_KEY)';
      process.stdout.write(
        [
          `${configPath} is valid.`,
          `  apps:     ${config.apps.length} (${config.apps.map((a) => a.handle).join(', ')})`,
          `  polling:  every ${formatDuration(config.poll.every)}, ${config.poll.concurrency} at a time, at most ${config.catalog.maxRequestsPerSecond} requests/s`,
          `  catalog:  ${catalog}`,
          `  channels: ${channels.length === 0 ? 'none' : channels.join(', ')}`,
          '',
        ].join('\n'),
      );
    });
}
