import type { Command } from 'commander';
import { createLogger, type Logger, type LogOptions } from '../log.js';
import type { Worker } from '../root/worker.js';
import { loadSettings, logOptionsFrom, type Settings } from '../settings.js';

export interface GlobalOptions {
  config?: string;
  verbose?: boolean;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

export function loggerFor(command: Command, extra: Pick<LogOptions, 'omit'> = {}): Logger {
  return createLogger({ ...logOptionsFrom(undefined, globalOptions(command).verbose === true), ...extra });
}

export function settingsFor(command: Command): Settings {
  const { config } = globalOptions(command);
  return loadSettings(config === undefined ? {} : { configPath: config });
}

/**
 * Resolves on SIGINT/SIGTERM (or after `afterMs`), once the worker stopped gracefully; a second signal
 * exits at once, abandoning the jobs in flight (they run again on the next start).
 */
export async function runUntilSignal(
  worker: Pick<Worker, 'stop'>,
  logger: Logger,
  options: { afterMs?: number; onStopping?: (reason: string) => void } = {},
): Promise<void> {
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (reason: string) => {
      if (stopping) {
        logger.warn(`${reason} again: exiting now`);
        process.exit(130);
      }
      stopping = true;
      options.onStopping?.(reason);
      resolve();
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    if (options.afterMs !== undefined) setTimeout(() => stop('time is up'), options.afterMs).unref();
  });
  await worker.stop();
}
