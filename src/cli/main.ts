#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ExitCode, errorMessage, ReviewwatchError } from '../errors.js';

/**
 * Each command's module, loaded only when it runs: a command's module brings its libraries (BullMQ,
 * Express, the simulator, d3), and loading them all slowed every invocation (`status` started in 0.62 s
 * instead of 0.43 s on an idle machine: bench/README.md, "Test suite"). In the order `--help` lists them.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  start: async () => (await import('./commands/start.js')).startCommand(),
  poll: async () => (await import('./commands/poll.js')).pollCommand(),
  status: async () => (await import('./commands/status.js')).statusCommand(),
  'check-config': async () => (await import('./commands/check-config.js')).checkConfigCommand(),
  demo: async () => (await import('./commands/demo.js')).demoCommand(),
  digest: async () => (await import('./commands/digest.js')).digestCommand(),
  notify: async () => (await import('./commands/notify.js')).notifyCommand(),
  rules: async () => (await import('./commands/rules.js')).rulesCommand(),
  simulate: async () => (await import('./commands/simulate.js')).simulateCommand(),
  prune: async () => (await import('./commands/prune.js')).pruneCommand(),
  user: async () => (await import('./commands/user.js')).userCommand(),
  serve: async () => (await import('./commands/serve.js')).serveCommand(),
  reconcile: async () => (await import('./commands/reconcile.js')).reconcileCommand(),
  market: async () => (await import('./commands/market.js')).marketCommand(),
  topics: async () => (await import('./commands/topics.js')).topicsCommand(),
  init: async () => (await import('./commands/init.js')).initCommand(),
};

/** The global options that take a value: the word after them is not the command's name. */
const VALUE_OPTIONS = new Set(['-c', '--config']);

/** A global option with its value attached (`--config=x`, `-cx`), or `--verbose`. */
function isWholeGlobalOption(arg: string): boolean {
  return arg === '--verbose' || arg.startsWith('--config=') || (arg.startsWith('-c') && arg.length > 2);
}

/**
 * The command the arguments name, if one: the first word that is neither a global option nor its value.
 * None before an unknown option or help, whose message lists every command.
 */
function commandNamed(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (VALUE_OPTIONS.has(arg)) i += 1;
    else if (isWholeGlobalOption(arg)) continue;
    else if (arg.startsWith('-')) return undefined;
    else return Object.hasOwn(COMMANDS, arg) ? arg : undefined;
  }
  return undefined;
}

/** The version in package.json, beside `dist/` and `src/` in a checkout, a package and the Docker image. */
function productVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version: string }).version;
}

const program = new Command()
  .name('reviewwatch')
  .description('Watches marketplace reviews and ratings and tells the right people, once.')
  .version(productVersion(), '-V, --version', 'print the version')
  .option('-c, --config <path>', 'config file (default: $REVIEWWATCH_CONFIG or config/reviewwatch.yaml)')
  .option('--verbose', 'debug logs, and stack traces on errors')
  .showHelpAfterError()
  .exitOverride();

// The named command alone; every one for help, an unknown command (so that commander can suggest one) or
// none.
const args = process.argv.slice(2);
const named = commandNamed(args);
// `--version` alone needs no command: commander prints it before any would run.
const loaders =
  args.length === 1 && ['-V', '--version'].includes(args[0] ?? '')
    ? []
    : named === undefined
      ? Object.values(COMMANDS)
      : [COMMANDS[named] as () => Promise<Command>];
for (const command of await Promise.all(loaders.map((load) => load()))) program.addCommand(command);

/**
 * Commands added with addCommand() do not inherit exitOverride(): without this, a subcommand's usage
 * error (`poll --bogus`, a missing `--channel`) would exit 1, not the documented 2.
 */
function overrideExits(command: Command): void {
  command.exitOverride().showHelpAfterError();
  for (const sub of command.commands) overrideExits(sub);
}
overrideExits(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Commander already printed its message; help and version are not failures.
    process.exitCode = err.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  } else {
    const verbose = program.opts<{ verbose?: boolean }>().verbose === true;
    process.stderr.write(`reviewwatch: ${errorMessage(err)}\n`);
    if (verbose && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    process.exitCode = err instanceof ReviewwatchError ? err.exitCode : ExitCode.Failure;
  }
}
