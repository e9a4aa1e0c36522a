#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ExitCode, errorMessage, ReviewwatchError } from '../errors.js';
import { checkConfigCommand } from './commands/check-config.js';
import { demoCommand } from './commands/demo.js';
import { digestCommand } from './commands/digest.js';
import { initCommand } from './commands/init.js';
import { marketCommand } from './commands/market.js';
import { notifyCommand } from './commands/notify.js';
import { pollCommand } from './commands/poll.js';
import { pruneCommand } from './commands/prune.js';
import { reconcileCommand } from './commands/reconcile.js';
import { rulesCommand } from './commands/rules.js';
import { serveCommand } from './commands/serve.js';
import { simulateCommand } from './commands/simulate.js';
import { startCommand } from './commands/start.js';
import { statusCommand } from './commands/status.js';
import { topicsCommand } from './commands/topics.js';
import { userCommand } from './commands/user.js';

const program = new Command()
  .name('reviewwatch')
  .description('Watches marketplace reviews and ratings and tells the right people, once.')
  .option('-c, --config <path>', 'config file (default: $REVIEWWATCH_CONFIG or config/reviewwatch.yaml)')
  .option('--verbose', 'debug logs, and stack traces on errors')
  .showHelpAfterError()
  .exitOverride();

program.addCommand(startCommand());
program.addCommand(pollCommand());
program.addCommand(statusCommand());
program.addCommand(checkConfigCommand());
program.addCommand(demoCommand());
program.addCommand(digestCommand());
program.addCommand(notifyCommand());
program.addCommand(rulesCommand());
program.addCommand(simulateCommand());
program.addCommand(pruneCommand());
program.addCommand(userCommand());
program.addCommand(serveCommand());
program.addCommand(reconcileCommand());
program.addCommand(marketCommand());
program.addCommand(topicsCommand());
program.addCommand(initCommand());

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
