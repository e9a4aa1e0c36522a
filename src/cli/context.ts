import type { Command } from 'commander';
import { createLogger, type Logger } from '../log.js';
import { loadSettings, type Settings } from '../runtime.js';

export interface GlobalOptions {
  config?: string;
  verbose?: boolean;
}

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

export function loggerFor(command: Command): Logger {
  return createLogger(globalOptions(command).verbose ? { level: 'debug' } : {});
}

export function settingsFor(command: Command): Settings {
  const { config } = globalOptions(command);
  return loadSettings(config === undefined ? {} : { configPath: config });
}
