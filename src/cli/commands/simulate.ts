import { Command, InvalidArgumentError } from 'commander';
import { startSimulator } from '../../simulator/index.js';
import { loggerFor } from '../context.js';

function integer(name: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min)
      throw new InvalidArgumentError(`${name} must be an integer >= ${min}.`);
    return n;
  };
}

export function simulateCommand(): Command {
  return new Command('simulate')
    .description('serve the built-in Catalog API simulator')
    .option('-p, --port <n>', 'port to listen on', integer('port', 0), 4010)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--apps <n>', 'number of generated apps', integer('apps', 0), 50)
    .option('--seed <n>', 'seed of the generated data', integer('seed', 0), 42)
    .option('--api-key <key>', 'accept only this key (default: any non-empty key)')
    .option(
      '--arrival <ms>',
      'publish a new review every <ms> milliseconds (0 = never)',
      integer('arrival', 0),
      0,
    )
    .action(
      async (
        options: {
          port: number;
          host: string;
          apps: number;
          seed: number;
          apiKey?: string;
          arrival: number;
        },
        command: Command,
      ) => {
        const logger = loggerFor(command);
        const sim = await startSimulator({
          port: options.port,
          host: options.host,
          appCount: options.apps,
          seed: options.seed,
          ...(options.apiKey ? { apiKey: options.apiKey } : {}),
          ...(options.arrival > 0 ? { arrival: { everyMs: options.arrival } } : {}),
        });
        logger.info(
          `Catalog API simulator on ${sim.url} with ${sim.controls.handles().length} apps. Point reviewwatch at it: CATALOG_API_BASE_URL=${sim.url} CATALOG_API_KEY=${options.apiKey ? '<the key>' : 'any'}`,
        );
        await new Promise<void>((resolve) => {
          const stop = () => resolve();
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
        });
        await sim.close();
      },
    );
}
